/**
 * Use case: capture one cluster into a ClusterSnapshot (docs/design.md#scheduled-snapshot, docs/design.md#clustersnapshot).
 *
 * DescribeCluster comes first; without it there is no snapshot (its typed error is rethrown). A
 * cluster deleted while it is read gets no snapshot either: when an EKS source fails with
 * not-found, DescribeCluster is asked again and its not-found error is thrown.
 * Every other source is read independently and ends `ok`, `absent` (a real 404 or a mode in which
 * the store cannot exist) or `error` (a safe message) — never empty on error (docs/design.md#could-not-read-is-not-empty).
 *
 * Sources are read and converted by `read-sources.ts`. Compute merges EC2 instances and Kubernetes
 * nodes (providerID ↔ instance ID; the pure merge is `core/access/compute.ts`):
 *   - both readable: every instance and every node, Ready from the node;
 *   - Kubernetes unreadable, EC2 readable: `ok` with the EC2 instances, Ready unknown (omitted);
 *     Fargate and hybrid nodes (which exist only in Kubernetes) are then missing — their
 *     dependencies stay visible through `fargateProfiles`/`accessEntries`, and the failed
 *     Kubernetes read shows up as `awsAuth: error` / `karpenterNodeClasses: error`;
 *   - EC2 unreadable: `error` — without instances the roles of self-managed and Karpenter nodes
 *     are unknown, and a list without them would read as "nobody uses this role";
 *   - an instance profile whose GetInstanceProfile fails (other than NoSuchEntity): `error`, same reason.
 * `iamRoles` covers the role principals of the sources that could be read (aws-auth `mapRoles`,
 * access entries, node group roles, Fargate pod execution roles, compute roles, node-class roles) in the cluster's
 * account; roles of other accounts are not looked up (GetRole would read the wrong account). Each
 * role is read once, whatever spellings name it, and keeps IAM's ARN and path: the access entries
 * a fix or a migration writes need the path that aws-auth leaves out.
 * Workload identity (Pod Identity associations, add-ons, service accounts, IAM OIDC providers,
 * node-role permissions) is read by `capture-workload-identity.ts`; its roles join the same
 * GetRole pass, so each role is read once per capture.
 */

import { mergeCompute, parseClusterArn, roleArnFromName, rolePrincipals } from '../core/access/index.ts';
import { mapLimit } from '../core/concurrency.ts';
import type {
  AutoModeNodeClass,
  ClusterSnapshot,
  ComputeNode,
  IamRole,
  KarpenterNodeClass,
  Source,
} from '../core/model.ts';
import { safeErrorMessage } from '../errors.ts';
import type {
  CaptureDeps,
  CaptureTarget,
  ClusterDescription,
  Ec2Instance,
  Ec2NodeClassSpec,
  IamReader,
  Lookup,
} from '../ports.ts';
import {
  keepTrustOfWorkloadRoles,
  readNodeRolePermissions,
  readWorkloadIdentity,
  withWorkloadRoles,
  workloadIdentityRoles,
  workloadIdentitySources,
} from './capture-workload-identity.ts';
import {
  awaitRead,
  failedNotFound,
  kubeClusterRef,
  type ReadResult,
  readAccessEntries,
  sourceOfLookup,
  sourceOfValue,
} from './read-sources.ts';

const IAM_CONCURRENCY = 5;

async function resolveProfiles(iam: IamReader, instances: Ec2Instance[]): Promise<Map<string, string>> {
  const profiles = [
    ...new Set(instances.map((i) => i.instanceProfileArn).filter((p): p is string => p !== undefined)),
  ];
  const roles = new Map<string, string>();
  await mapLimit(profiles, IAM_CONCURRENCY, async (profile) => {
    const role = await iam.roleOfInstanceProfile(profile);
    if (role.found) roles.set(profile, role.value);
  });
  return roles;
}

async function resolveNodeClasses(
  iam: IamReader,
  specs: Ec2NodeClassSpec[],
  partition: string,
  accountId: string,
): Promise<KarpenterNodeClass[]> {
  return mapLimit(specs, IAM_CONCURRENCY, async (spec) => {
    const nodeClass: KarpenterNodeClass = { ...spec };
    if (spec.role !== undefined) nodeClass.roleArn = roleArnFromName(spec.role, partition, accountId);
    else if (spec.instanceProfile !== undefined) {
      const role = await iam.roleOfInstanceProfile(spec.instanceProfile);
      if (role.found) nodeClass.roleArn = role.value;
    }
    return nodeClass;
  });
}

export async function captureSnapshot(deps: CaptureDeps, target: CaptureTarget): Promise<ClusterSnapshot> {
  const eks = deps.eks(target.region);
  const ec2 = deps.ec2(target.region);
  const cluster: ClusterDescription = await eks.describeCluster(target.clusterName);
  const capturedAt = deps.clock.now().toISOString();
  const parsedArn = parseClusterArn(cluster.arn);
  const accountId = target.accountId ?? parsedArn?.accountId ?? '';
  const partition = parsedArn?.partition ?? 'aws';

  const kubeRef = kubeClusterRef(cluster, { accountId, region: target.region });

  // The IAM lookups that depend on one first-wave read start as soon as it is in, not after the
  // slowest of them: a slow (or throttled) source elsewhere does not push them past the deadline.
  const instancesRead = awaitRead(ec2.instancesOfCluster(cluster.name));
  const nodeClassSpecsRead = awaitRead(deps.kube.ec2NodeClasses(kubeRef));
  // Auto Mode NodeClasses name their role by name (spec.role): the ARN needs no IAM call.
  const autoClassesRead = awaitRead(deps.kube.autoModeNodeClasses(kubeRef)).then(
    (read): ReadResult<Lookup<AutoModeNodeClass[]>> =>
      read.ok && read.value.found
        ? {
            ok: true,
            value: {
              found: true,
              value: read.value.value.map((spec) =>
                spec.role === undefined
                  ? { ...spec }
                  : { ...spec, roleArn: roleArnFromName(spec.role, partition, accountId) },
              ),
            },
          }
        : read.ok
          ? { ok: true, value: read.value }
          : read,
  );
  const [
    awsAuth,
    accessEntries,
    nodegroups,
    fargateProfiles,
    instances,
    nodes,
    workload,
    profileRoles,
    nodeClasses,
    autoClasses,
    certificateAuthorities,
    auditSubscription,
  ] = await Promise.all([
    awaitRead(deps.kube.awsAuth(kubeRef)),
    awaitRead(readAccessEntries(eks, cluster)),
    awaitRead(eks.nodegroups(cluster.name)),
    awaitRead(eks.fargateProfiles(cluster.name)),
    instancesRead,
    awaitRead(deps.kube.nodes(kubeRef)),
    readWorkloadIdentity(deps, eks, cluster.name, kubeRef, cluster.oidcIssuer),
    instancesRead.then((read) => (read.ok ? awaitRead(resolveProfiles(deps.iam, read.value)) : undefined)),
    nodeClassSpecsRead.then(
      (read): Promise<ReadResult<Lookup<KarpenterNodeClass[]>>> =>
        read.ok
          ? awaitRead(
              read.value.found
                ? resolveNodeClasses(deps.iam, read.value.value, partition, accountId).then(
                    (value): Lookup<KarpenterNodeClass[]> => ({ found: true, value }),
                  )
                : Promise.resolve<Lookup<KarpenterNodeClass[]>>(read.value),
            )
          : Promise.resolve(read),
    ),
    autoClassesRead,
    eks.certificateAuthorities === undefined
      ? undefined
      : awaitRead(eks.certificateAuthorities(cluster.name)),
    // Whether the audit log reaches anything: asked only when the cluster ships it.
    deps.logs === undefined || cluster.auditLogging !== true
      ? undefined
      : awaitRead(
          deps.logs(target.region).subscriptionFilterNames(`/aws/eks/${cluster.name}/cluster`, cluster.name),
        ),
  ]);

  // The cluster may have been deleted while we read it: its sources then fail with not-found.
  // Confirm with DescribeCluster; a vanished cluster gets no snapshot (its not-found error is thrown).
  const eksReads: ReadResult<unknown>[] = [
    accessEntries,
    nodegroups,
    fargateProfiles,
    workload.podIdentityAssociations,
    workload.addons,
    ...(certificateAuthorities === undefined ? [] : [certificateAuthorities]),
  ];
  if (eksReads.some(failedNotFound)) {
    await eks.describeCluster(target.clusterName);
  }

  const okValue = <T>(s: ReadResult<T>): T | undefined => (s.ok ? s.value : undefined);
  const okLookup = <T>(s: ReadResult<Lookup<T>>): T | undefined =>
    s.ok && s.value.found ? s.value.value : undefined;

  let compute: Source<ComputeNode[]>;
  if (!instances.ok) {
    compute = { status: 'error', error: `EC2 instances unreadable: ${safeErrorMessage(instances.error)}` };
  } else if (profileRoles !== undefined && !profileRoles.ok) {
    compute = {
      status: 'error',
      error: `instance roles unreadable: ${safeErrorMessage(profileRoles.error)}`,
    };
  } else {
    compute = {
      status: 'ok',
      data: mergeCompute({
        instances: instances.value,
        nodes: okValue(nodes),
        profileRoles: profileRoles?.ok ? profileRoles.value : new Map(),
        nodegroups: okValue(nodegroups),
        fargateProfiles: okValue(fargateProfiles),
        nodeClasses: okLookup(nodeClasses),
      }),
    };
  }

  const principals = rolePrincipals(accountId, {
    awsAuth: okLookup(awsAuth),
    accessEntries: okLookup(accessEntries),
    nodegroups: okValue(nodegroups),
    fargateProfiles: okValue(fargateProfiles),
    compute: compute.status === 'ok' ? compute.data : undefined,
    nodeClasses: [...(okLookup(nodeClasses) ?? []), ...(okLookup(autoClasses) ?? [])],
  });
  // One GetRole per role, whoever uses it: nodes, access entries, Pod Identity or IRSA.
  const workloadRoles = workloadIdentityRoles(accountId, workload);
  const [roles, nodeRolePermissions] = await Promise.all([
    awaitRead(
      mapLimit(withWorkloadRoles(principals, workloadRoles), IAM_CONCURRENCY, (arn) => deps.iam.getRole(arn)),
    ),
    readNodeRolePermissions(deps, accountId, workload.podIdentityAssociations, compute),
  ]);
  const iamRoles: Source<IamRole[]> = keepTrustOfWorkloadRoles(sourceOfValue(roles), workloadRoles);

  const snapshot: ClusterSnapshot = {
    schemaVersion: 1,
    capturedAt,
    accountId,
    region: target.region,
    clusterName: cluster.name,
    clusterArn: cluster.arn,
    cluster: clusterInfo(cluster),
    awsAuth: sourceOfLookup(awsAuth),
    accessEntries: sourceOfLookup(accessEntries),
    nodegroups: sourceOfValue(nodegroups),
    fargateProfiles: sourceOfValue(fargateProfiles),
    compute,
    karpenterNodeClasses: sourceOfLookup(nodeClasses),
    autoModeNodeClasses: sourceOfLookup(autoClasses),
    iamRoles,
    ...workloadIdentitySources(workload, nodeRolePermissions),
    ...(certificateAuthorities === undefined
      ? {}
      : { certificateAuthorities: sourceOfValue(certificateAuthorities) }),
    ...(auditSubscription === undefined ? {} : { auditSubscription: subscriptionOf(auditSubscription) }),
  };
  return snapshot;
}

function clusterInfo(cluster: ClusterDescription): ClusterSnapshot['cluster'] {
  const info: ClusterSnapshot['cluster'] = {
    status: cluster.status,
    authenticationMode: cluster.authenticationMode,
  };
  if (cluster.version !== undefined) info.version = cluster.version;
  if (cluster.platformVersion !== undefined) info.platformVersion = cluster.platformVersion;
  if (cluster.bootstrapClusterCreatorAdminPermissions !== undefined) {
    info.bootstrapClusterCreatorAdminPermissions = cluster.bootstrapClusterCreatorAdminPermissions;
  }
  if (cluster.endpointPublicAccess !== undefined) info.endpointPublicAccess = cluster.endpointPublicAccess;
  if (cluster.endpointPrivateAccess !== undefined) info.endpointPrivateAccess = cluster.endpointPrivateAccess;
  if (cluster.publicAccessCidrs !== undefined) info.publicAccessCidrs = [...cluster.publicAccessCidrs];
  if (cluster.auditLogging !== undefined) info.auditLogging = cluster.auditLogging;
  if (cluster.oidcIssuer !== undefined) info.oidcIssuer = cluster.oidcIssuer;
  if (cluster.roleArn !== undefined) info.roleArn = cluster.roleArn;
  if (cluster.computeConfig !== undefined)
    info.computeConfig = { ...cluster.computeConfig, nodePools: [...cluster.computeConfig.nodePools] };
  return info;
}

// ---------------------------------------------------------------------------------------------

export type CaptureOutcome =
  | { target: CaptureTarget; ok: true; snapshot: ClusterSnapshot }
  | { target: CaptureTarget; ok: false; error: unknown };

/**
 * Captures several clusters, `concurrency` at a time; one failing never stops the others.
 * `onOutcome` hears of each cluster as it completes (progress lines), in completion order.
 */
export async function captureSnapshots(
  deps: CaptureDeps,
  targets: readonly CaptureTarget[],
  concurrency = 3,
  onOutcome?: (outcome: CaptureOutcome, index: number) => void,
): Promise<CaptureOutcome[]> {
  return mapLimit(targets, concurrency, async (target, index): Promise<CaptureOutcome> => {
    const result = await awaitRead(captureSnapshot(deps, target));
    const outcome: CaptureOutcome = result.ok
      ? { target, ok: true, snapshot: result.value }
      : { target, ok: false, error: result.error };
    onOutcome?.(outcome, index);
    return outcome;
  });
}

/** The filter names of the audit log group; a group that does not exist is `absent`. */
function subscriptionOf(
  read: ReadResult<Lookup<string[]>>,
): NonNullable<ClusterSnapshot['auditSubscription']> {
  const source = sourceOfLookup(read);
  return source.status === 'ok' ? { status: 'ok', data: { filterNames: [...source.data] } } : source;
}
