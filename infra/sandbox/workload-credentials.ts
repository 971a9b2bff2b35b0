/**
 * What the pods of a sandbox cluster get when they next ask for AWS credentials, evaluated the
 * way EKS Auth and STS do, independently of the monitor's core (the sandbox is the ground truth
 * the demo checks the monitor's alerts against):
 *
 * - **Pod Identity** (association → role): the `eks-pod-identity-agent` add-on is installed and
 *   not failed; a running node's role may call `eks-auth:AssumeRoleForPodIdentity`
 *   (SimulatePrincipalPolicy's evaluator); the role exists; its trust lets the service principal
 *   `pods.eks.amazonaws.com` call `sts:AssumeRole` and `sts:TagSession` (not TagSession when
 *   session tags are disabled); a `targetRoleArn` exists and trusts the association's role. Two
 *   hops, each with the request context STS sees:
 *   1. EKS Auth → the association's role, as `pods.eks.amazonaws.com`: the cluster as source
 *      (`aws:SourceAccount`, `aws:SourceArn`), the six session tags as `aws:RequestTag/…` unless
 *      disabled (EKS User Guide, `pod-id-abac`: "the keys for tags that are added to the
 *      AssumeRole request"), and **no** `sts:ExternalId`: the association's external ID is "for a
 *      target IAM role" (EKS API reference, `PodIdentityAssociation.externalId`).
 *   2. the association role's session → the target role: principal the association's role
 *      (`aws:PrincipalArn`), `sts:ExternalId` = the association's `externalId` ("you put this
 *      value in the trust policy of the target role … to match the sts:ExternalId", same
 *      reference), and the session tags again, transitive (`pod-id-assign-target-role`'s trust
 *      conditions on `aws:RequestTag/kubernetes-namespace`, `pod-id-abac` "Cross-account tags").
 * - **IRSA** (service account annotation → role): the role exists; the cluster's issuer is an IAM
 *   OIDC provider of the account; the trust lets that provider call
 *   `sts:AssumeRoleWithWebIdentity` with `sub` = `system:serviceaccount:<ns>:<name>` and `aud` =
 *   `sts.amazonaws.com` (StringEquals / StringLike).
 *
 * Trust statements: Effect, Principal (Service / Federated / AWS as string or list, or `*`; an
 * account ID or its `:root` ARN names every principal of that account, IAM User Guide "AWS JSON
 * policy elements: Principal"), Action (string, list, wildcards), Condition with `StringEquals`,
 * `StringLike`, `ArnEquals`, `ArnLike`, Deny over Allow. A condition on a key the request lacks,
 * or with an operator the sandbox does not model, makes the statement not match.
 */
import { externalIdOf } from './eks-workload-identity.ts';
import { simulateAction } from './iam-policy-eval.ts';
import { parseRoleArn } from './ids.ts';
import type { SandboxIamRole } from './types.ts';
import type { ClusterState, World } from './world.ts';

export const POD_IDENTITY_AGENT = 'eks-pod-identity-agent';
const PODS_SERVICE = 'pods.eks.amazonaws.com';

export interface WorkloadCredential {
  /** `pod identity` or `IRSA`. */
  kind: 'pod identity' | 'IRSA';
  /** `<namespace>/<service account>`. */
  serviceAccount: string;
  /** undefined = credentials are issued; else why not, as the pod's SDK would see it. */
  failure?: string;
}

interface Request {
  principal: { type: 'Service' | 'Federated' | 'AWS'; value: string };
  action: string;
  context: Record<string, string>;
}

const asList = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

function glob(pattern: string, value: string, caseInsensitive = false): boolean {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, caseInsensitive ? 'i' : '').test(value);
}

function principalMatches(principal: unknown, request: Request): boolean {
  if (principal === '*') return true;
  if (typeof principal !== 'object' || principal === null) return false;
  const values = asList((principal as Record<string, unknown>)[request.principal.type]);
  const caller = request.principal.type === 'AWS' ? parseRoleArn(request.principal.value) : undefined;
  const root = caller && `arn:${caller.partition}:iam::${caller.accountId}:root`;
  return values.some(
    (v) =>
      v === '*' ||
      v === request.principal.value ||
      (caller !== undefined && (v === caller.accountId || v === root)),
  );
}

/** `ArnEquals`/`ArnLike`: the six colon-separated parts matched one by one (a `*` spans no colon). */
function arnLike(pattern: string, arn: string): boolean {
  const split = (x: string) => {
    const parts = x.split(':');
    return parts.length < 6 ? undefined : [...parts.slice(0, 5), parts.slice(5).join(':')];
  };
  const p = split(pattern);
  const a = split(arn);
  return p !== undefined && a !== undefined && p.every((part, i) => glob(part, a[i] ?? ''));
}

function conditionsHold(condition: unknown, request: Request): boolean {
  if (condition === undefined) return true;
  if (typeof condition !== 'object' || condition === null) return false;
  for (const [operator, block] of Object.entries(condition as Record<string, unknown>)) {
    if (typeof block !== 'object' || block === null) return false;
    for (const [key, expected] of Object.entries(block as Record<string, unknown>)) {
      const actual = request.context[key.toLowerCase()];
      if (actual === undefined) return false;
      const patterns = asList(expected);
      const hit =
        operator === 'StringEquals'
          ? patterns.includes(actual)
          : operator === 'StringLike'
            ? patterns.some((p) => glob(p, actual))
            : operator === 'ArnEquals' || operator === 'ArnLike'
              ? patterns.some((p) => arnLike(p, actual))
              : false;
      if (!hit) return false;
    }
  }
  return true;
}

/** Whether `trustPolicy` lets the request through (Deny over Allow; no Allow = denied). */
export function trustAllows(trustPolicy: string | undefined, request: Request): boolean {
  if (trustPolicy === undefined) return false;
  let statements: unknown[];
  try {
    const doc = JSON.parse(trustPolicy) as { Statement?: unknown };
    statements = Array.isArray(doc.Statement) ? doc.Statement : [doc.Statement];
  } catch {
    return false;
  }
  let allowed = false;
  for (const st of statements) {
    if (typeof st !== 'object' || st === null) continue;
    const s = st as Record<string, unknown>;
    if (!principalMatches(s.Principal, request)) continue;
    const actionHit =
      s.Action !== undefined
        ? asList(s.Action).some((a) => glob(a, request.action, true))
        : s.NotAction !== undefined && !asList(s.NotAction).some((a) => glob(a, request.action, true));
    if (!actionHit || !conditionsHold(s.Condition, request)) continue;
    if (s.Effect === 'Deny') return false;
    if (s.Effect === 'Allow') allowed = true;
  }
  return allowed;
}

function roleOf(world: World, arn: string): SandboxIamRole | undefined {
  const name = parseRoleArn(arn)?.name;
  const role = name === undefined ? undefined : world.iamRoles.get(name.toLowerCase());
  return role?.state === 'exists' ? role : undefined;
}

function podIdentityFailure(
  world: World,
  cluster: ClusterState,
  a: ClusterState['podIdentityAssociations'][number],
): string | undefined {
  const agent = cluster.addons.find((x) => x.name === POD_IDENTITY_AGENT);
  if (agent === undefined || agent.status === 'DELETING')
    return `the ${POD_IDENTITY_AGENT} add-on is not installed`;
  if (agent.status !== undefined && /FAILED|DEGRADED/.test(agent.status))
    return `the ${POD_IDENTITY_AGENT} add-on is ${agent.status}`;
  const nodeRoles = [
    ...new Set(
      cluster.nodes
        .filter((n) => n.kind !== 'fargate' && n.instanceState === 'running' && n.roleArn !== undefined)
        .map((n) => n.roleArn as string),
    ),
  ];
  const permitted = nodeRoles.filter((arn) => {
    const role = roleOf(world, arn);
    return role !== undefined && simulateAction(role, 'eks-auth:AssumeRoleForPodIdentity') === 'allowed';
  });
  if (nodeRoles.length > 0 && permitted.length === 0)
    return `no node role may call eks-auth:AssumeRoleForPodIdentity (${nodeRoles.join(', ')})`;
  const role = roleOf(world, a.roleArn);
  if (role === undefined) return `role ${a.roleArn} does not exist`;
  const actions = a.disableSessionTags === true ? ['sts:AssumeRole'] : ['sts:AssumeRole', 'sts:TagSession'];
  const tags = sessionTags(cluster, a);
  const firstHop: Record<string, string> = {
    'aws:sourceaccount': cluster.accountId,
    'aws:sourcearn': cluster.arn,
    'aws:principalservicename': PODS_SERVICE,
    ...prefixed('aws:requesttag/', tags),
  };
  const denied = actions.filter(
    (action) =>
      !trustAllows(role.trustPolicy, {
        principal: { type: 'Service', value: PODS_SERVICE },
        action,
        context: firstHop,
      }),
  );
  if (denied.length > 0)
    return `role ${role.roleName} does not trust ${PODS_SERVICE} for ${denied.join(' and ')}`;
  if (a.targetRoleArn !== undefined && a.targetRoleArn !== '') {
    const target = roleOf(world, a.targetRoleArn);
    if (target === undefined) return `target role ${a.targetRoleArn} does not exist`;
    const externalId = externalIdOf(cluster, a);
    const targetHop: Record<string, string> = {
      'aws:principalarn': role.arn,
      'aws:principalaccount': parseRoleArn(role.arn)?.accountId ?? '',
      ...(externalId === undefined ? {} : { 'sts:externalid': externalId }),
      ...prefixed('aws:requesttag/', tags),
      ...prefixed('aws:principaltag/', tags),
    };
    const chained = actions.filter(
      (action) =>
        !trustAllows(target.trustPolicy, {
          principal: { type: 'AWS', value: role.arn },
          action,
          context: targetHop,
        }),
    );
    if (chained.length > 0) return `target role ${target.roleName} does not trust ${role.arn}`;
  }
  return undefined;
}

/**
 * The session tags EKS adds (none when disabled). The sandbox runs no pods: the pod's name and
 * UID are those of a stand-in pod of the service account.
 */
function sessionTags(
  cluster: ClusterState,
  a: ClusterState['podIdentityAssociations'][number],
): Record<string, string> {
  if (a.disableSessionTags === true) return {};
  return {
    'eks-cluster-arn': cluster.arn,
    'eks-cluster-name': cluster.name,
    'kubernetes-namespace': a.namespace,
    'kubernetes-service-account': a.serviceAccount,
    'kubernetes-pod-name': `${a.serviceAccount}-0`,
    'kubernetes-pod-uid': `00000000-0000-4000-8000-${a.associationId
      .replace(/[^0-9a-f]/g, '0')
      .padEnd(12, '0')
      .slice(0, 12)}`,
  };
}

const prefixed = (prefix: string, tags: Record<string, string>) =>
  Object.fromEntries(Object.entries(tags).map(([k, v]) => [`${prefix}${k}`, v]));

function irsaFailure(
  world: World,
  cluster: ClusterState,
  namespace: string,
  name: string,
  arn: string,
): string | undefined {
  const role = roleOf(world, arn);
  if (role === undefined) return `role ${arn} does not exist`;
  const issuer = cluster.oidcIssuer.replace(/^https:\/\//, '');
  const provider = `arn:aws:iam::${cluster.accountId}:oidc-provider/${issuer}`;
  if (!world.oidcProviders.includes(provider)) return `no IAM OIDC provider for ${issuer}`;
  const request: Request = {
    principal: { type: 'Federated', value: provider },
    action: 'sts:AssumeRoleWithWebIdentity',
    context: {
      [`${issuer}:sub`.toLowerCase()]: `system:serviceaccount:${namespace}:${name}`,
      [`${issuer}:aud`.toLowerCase()]: 'sts.amazonaws.com',
    },
  };
  if (!trustAllows(role.trustPolicy, request))
    return `role ${role.roleName} does not trust ${provider} for system:serviceaccount:${namespace}:${name}`;
  return undefined;
}

/** Every workload identity of the cluster and whether its next credential request succeeds. */
export function workloadCredentials(world: World, cluster: ClusterState): WorkloadCredential[] {
  const out: WorkloadCredential[] = [];
  for (const a of cluster.podIdentityAssociations) {
    const failure = podIdentityFailure(world, cluster, a);
    out.push({
      kind: 'pod identity',
      serviceAccount: `${a.namespace}/${a.serviceAccount}`,
      ...(failure ? { failure } : {}),
    });
  }
  for (const sa of cluster.serviceAccounts) {
    if (sa.roleArnAnnotation === undefined) continue;
    const failure = irsaFailure(world, cluster, sa.namespace, sa.name, sa.roleArnAnnotation);
    out.push({ kind: 'IRSA', serviceAccount: `${sa.namespace}/${sa.name}`, ...(failure ? { failure } : {}) });
  }
  return out;
}
