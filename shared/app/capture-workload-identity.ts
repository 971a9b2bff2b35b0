/**
 * The workload-identity part of a capture (Pod Identity, IRSA): associations, add-ons, service
 * accounts and the account's IAM OIDC providers are read with the first wave (and, for the
 * cluster's own issuer only, GetOpenIDConnectProvider for its client IDs: one call per capture,
 * whatever the number of providers; thumbprints are not read, IAM no longer uses them for an
 * issuer with a publicly trusted certificate such as EKS's); the roles they
 * name join the capture's one GetRole pass (each role read once, whoever uses it); the node roles
 * of running nodes are asked `eks-auth:AssumeRoleForPodIdentity` of IAM itself
 * (SimulatePrincipalPolicy), only when the cluster has associations — without them no pod needs it.
 * Every source ends `ok`, `absent` or `error` like the others; a 403 names the IAM action
 * (or the Kubernetes verb and resource), and `monitor/source-unavailable` repeats it.
 */
import { principalKey, roleAccount, trustsEksCapabilities } from '../core/access/index.ts';
import { mapLimit } from '../core/concurrency.ts';
import type {
  Addon,
  ClusterSnapshot,
  ComputeNode,
  IamRole,
  OidcProvider,
  PodIdentityAssociation,
  RoleActionPermission,
  ServiceAccount,
  Source,
} from '../core/model.ts';
import { ASSUME_ROLE_FOR_POD_IDENTITY, findOidcProvider } from '../core/workload-identity/index.ts';
import { safeErrorMessage } from '../errors.ts';
import type { CaptureDeps, EksReader, IamReader, KubeClusterRef } from '../ports.ts';
import { awaitRead, type ReadResult, sourceOfValue } from './read-sources.ts';

export interface WorkloadIdentityReads {
  podIdentityAssociations: ReadResult<PodIdentityAssociation[]>;
  addons: ReadResult<Addon[]>;
  serviceAccounts: ReadResult<ServiceAccount[]>;
  oidcProviders: ReadResult<OidcProvider[]>;
}

/** The first-wave reads, concurrent with the capture's others. */
export async function readWorkloadIdentity(
  deps: Pick<CaptureDeps, 'iam' | 'kube'>,
  eks: EksReader,
  clusterName: string,
  kubeRef: KubeClusterRef,
  oidcIssuer?: string,
): Promise<WorkloadIdentityReads> {
  const [podIdentityAssociations, addons, serviceAccounts, oidcProviders] = await Promise.all([
    awaitRead(eks.podIdentityAssociations(clusterName)),
    awaitRead(eks.addons(clusterName)),
    awaitRead(deps.kube.serviceAccounts(kubeRef)),
    awaitRead(readOidcProviders(deps.iam, oidcIssuer)),
  ]);
  return { podIdentityAssociations, addons, serviceAccounts, oidcProviders };
}

/**
 * The account's OIDC providers; the cluster's own (if listed) with its client IDs. A provider
 * deleted between the list and the get is left out (it no longer exists); a get that fails fails
 * the source, naming iam:GetOpenIDConnectProvider.
 */
async function readOidcProviders(iam: IamReader, issuer: string | undefined): Promise<OidcProvider[]> {
  const providers = await iam.oidcProviders();
  const own = issuer === undefined || issuer.trim() === '' ? undefined : findOidcProvider(providers, issuer);
  if (own === undefined) return providers;
  const clientIds = await iam.oidcProviderClientIds(own.arn);
  if (!clientIds.found) return providers.filter((p) => p !== own);
  return providers.map((p) => (p === own ? { ...p, clientIds: clientIds.value } : p));
}

const ROLE_ARN = /^arn:aws(?:-[a-z]+)*:iam::\d{12}:role\/[\w+=,.@/-]+$/;

/**
 * The roles of workload identity in the cluster's account (association `roleArn` and
 * `targetRoleArn`, IRSA annotations that are role ARNs), one per role. Roles of other accounts are
 * not read: GetRole would look in the wrong account.
 */
export function workloadIdentityRoles(accountId: string, reads: WorkloadIdentityReads): string[] {
  const arns: string[] = [];
  if (reads.podIdentityAssociations.ok) {
    for (const a of reads.podIdentityAssociations.value) {
      arns.push(a.roleArn);
      if (a.targetRoleArn !== undefined) arns.push(a.targetRoleArn);
    }
  }
  if (reads.serviceAccounts.ok) {
    for (const sa of reads.serviceAccounts.value) {
      const annotation = sa.roleArnAnnotation?.trim();
      if (annotation !== undefined) arns.push(annotation);
    }
  }
  const byKey = new Map<string, string>();
  for (const arn of arns) {
    if (!ROLE_ARN.test(arn) || roleAccount(arn) !== accountId) continue;
    const key = principalKey(arn);
    if (!byKey.has(key)) byKey.set(key, arn);
  }
  return [...byKey.values()].sort();
}

/** `principals` plus the workload roles not already among them (same role = same principal key). */
export function withWorkloadRoles(principals: readonly string[], workloadRoles: readonly string[]): string[] {
  const keys = new Set(principals.map(principalKey));
  return [...principals, ...workloadRoles.filter((arn) => !keys.has(principalKey(arn)))];
}

/**
 * GetRole answers carry the trust policy; the snapshot keeps it for the roles of workload identity
 * and for EKS Capability roles (trusting `capabilities.eks.amazonaws.com`), whose access entries
 * EKS owns (core/access/eks-owned.ts): the trust is how they are recognised.
 */
export function keepTrustOfWorkloadRoles(
  roles: Source<IamRole[]>,
  workloadRoles: readonly string[],
): Source<IamRole[]> {
  if (roles.status !== 'ok') return roles;
  const keys = new Set(workloadRoles.map(principalKey));
  return {
    status: 'ok',
    data: roles.data.map((role) => {
      if (role.trustPolicy === undefined || keys.has(principalKey(role.arn))) return role;
      if (trustsEksCapabilities(role.trustPolicy)) return role;
      const { trustPolicy: _trust, ...rest } = role;
      return rest;
    }),
  };
}

/** Node roles of running EC2-backed nodes (Fargate pods have no node role of theirs). */
function nodeRolesOf(compute: ComputeNode[], accountId: string): string[] {
  const byKey = new Map<string, string>();
  for (const node of compute) {
    if (node.kind === 'fargate' || node.roleArn === undefined) continue;
    if (roleAccount(node.roleArn) !== accountId) continue;
    const key = principalKey(node.roleArn);
    if (!byKey.has(key)) byKey.set(key, node.roleArn);
  }
  return [...byKey.values()].sort();
}

const IAM_CONCURRENCY = 5;

/** `eks-auth:AssumeRoleForPodIdentity` for each node role used by running nodes, when Pod Identity is in use. */
export async function readNodeRolePermissions(
  deps: Pick<CaptureDeps, 'iam'>,
  accountId: string,
  associations: ReadResult<PodIdentityAssociation[]>,
  compute: Source<ComputeNode[]>,
): Promise<Source<RoleActionPermission[]>> {
  if (associations.ok && associations.value.length === 0) {
    return {
      status: 'absent',
      reason: `no Pod Identity associations: no node role needs ${ASSUME_ROLE_FOR_POD_IDENTITY}`,
    };
  }
  if (compute.status !== 'ok') {
    return {
      status: 'error',
      error: `node roles unknown (nodes and instances unreadable): ${compute.status === 'error' ? compute.error : 'absent'}`,
    };
  }
  const roles = nodeRolesOf(compute.data, accountId);
  const read = await awaitRead(
    mapLimit(roles, IAM_CONCURRENCY, (roleArn) =>
      deps.iam.simulateRoleAction(roleArn, ASSUME_ROLE_FOR_POD_IDENTITY),
    ),
  );
  return read.ok
    ? { status: 'ok', data: read.value }
    : { status: 'error', error: safeErrorMessage(read.error) };
}

/** The snapshot's workload-identity sources. */
export function workloadIdentitySources(
  reads: WorkloadIdentityReads,
  nodeRolePermissions: Source<RoleActionPermission[]>,
): Pick<
  ClusterSnapshot,
  'podIdentityAssociations' | 'addons' | 'oidcProviders' | 'serviceAccounts' | 'nodeRolePermissions'
> {
  return {
    podIdentityAssociations: sourceOfValue(reads.podIdentityAssociations),
    addons: sourceOfValue(reads.addons),
    oidcProviders: sourceOfValue(reads.oidcProviders),
    serviceAccounts: sourceOfValue(reads.serviceAccounts),
    nodeRolePermissions,
  };
}
