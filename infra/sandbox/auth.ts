/**
 * Who the sandbox's Kubernetes API lets in, and which nodes keep working: the core resolver over
 * the sandbox's own aws-auth and access entries (the same semantics the monitor checks against).
 * Access entries bound to a role that was deleted or re-created after the entry match nothing.
 */

import { principalKey } from '../../shared/core/access/principal.ts';
import {
  type AccessIndex,
  buildAccessIndex,
  checkIdentity,
  isWorkingFargateIdentity,
  isWorkingNodeIdentity,
  type ResolvedIdentity,
  resolvePrincipal,
} from '../../shared/core/access/resolve.ts';
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import type { AccessEntry } from '../../shared/core/model.ts';
import { parseRoleArn } from './ids.ts';
import type { SandboxNode, SandboxRbacGrant } from './types.ts';
import type { AccessEvaluator, ClusterState, World } from './world.ts';

export const READERS_GROUP = 'eks-auth-sentinel:readers';
const POLICY_PREFIX = 'arn:aws:eks::aws:cluster-access-policy/';

export function accessIndexOf(world: World, cluster: ClusterState): AccessIndex {
  const entries: AccessEntry[] = cluster.accessEntries.map((e) => ({
    principalArn: e.principalArn,
    type: e.type,
    username: e.username,
    kubernetesGroups: [...e.kubernetesGroups],
    createdAt: e.createdAt,
    modifiedAt: e.modifiedAt,
    accessPolicies: e.accessPolicies.map((p) => ({
      policyArn: p.policyArn,
      accessScope: p.accessScope,
      associatedAt: p.associatedAt,
    })),
  }));
  const dead = new Set<string>();
  for (const e of cluster.accessEntries) {
    const role = parseRoleArn(e.principalArn);
    if (!role) continue;
    const iam = world.iamRoles.get(role.name.toLowerCase());
    if (!iam) continue;
    if (iam.state === 'missing' || Date.parse(iam.createDate) > Date.parse(e.createdAt)) {
      dead.add(principalKey(e.principalArn));
    }
  }
  const awsAuth = cluster.awsAuth ? parseAwsAuth(cluster.awsAuth.data) : undefined;
  return buildAccessIndex(cluster.authenticationMode, awsAuth, entries, { deadEntryKeys: dead });
}

/** Every role and user ARN aws-auth maps (valid entries, file order, each once). */
export function awsAuthPrincipals(cluster: ClusterState): string[] {
  const parsed = cluster.awsAuth ? parseAwsAuth(cluster.awsAuth.data) : undefined;
  const arns = [
    ...(parsed?.roles ?? []).flatMap((r) => (r.rolearn ? [r.rolearn] : [])),
    ...(parsed?.users ?? []).map((u) => u.userarn),
  ];
  return [...new Set(arns)];
}

/** The ARNs of `principals` that authenticated under `before` and no longer do under `after`. */
export function principalsLosingAccess(
  before: AccessIndex,
  after: AccessIndex,
  principals: readonly string[],
): string[] {
  return principals.filter(
    (arn) => resolvePrincipal(before, arn) !== undefined && resolvePrincipal(after, arn) === undefined,
  );
}

export function createAccessEvaluator(world: World): AccessEvaluator {
  // One index per cluster and change: a re-evaluation pass (and the timers it sets) parses aws-auth once.
  const cache = new WeakMap<ClusterState, { stamp: number; index: AccessIndex }>();
  return (cluster: ClusterState, node: SandboxNode): boolean | undefined => {
    if (!node.roleArn) return undefined;
    let cached = cache.get(cluster);
    if (cached?.stamp !== cluster.authStamp) {
      cached = { stamp: cluster.authStamp, index: accessIndexOf(world, cluster) };
      cache.set(cluster, cached);
    }
    const identity = resolvePrincipal(cached.index, node.roleArn);
    switch (node.kind) {
      case 'fargate':
        return isWorkingFargateIdentity(identity);
      case 'auto':
        return checkIdentity(identity, 'auto').works;
      case 'hybrid':
        return checkIdentity(identity, 'hybrid').works;
      default:
        return isWorkingNodeIdentity(identity, node.os);
    }
  };
}

export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';
const READ_VERBS: ReadonlySet<KubeVerb> = new Set(['get', 'list', 'watch']);

export interface KubeRequestTarget {
  verb: KubeVerb;
  resource: 'configmaps' | 'nodes' | 'ec2nodeclasses' | 'nodeclasses' | 'serviceaccounts' | 'version';
  namespace?: string;
  /** The object's name from the URL (none for create and list), matched by `resourceNames`. */
  name?: string;
}

export type KubeAccess =
  | { kind: 'unauthenticated' }
  | {
      kind: 'authenticated';
      username: string;
      groups: string[];
      can: (target: KubeRequestTarget) => boolean;
      /** Why a request is allowed, as the audit log's `authorization.k8s.io/reason` says it. */
      reason: (target: KubeRequestTarget) => string;
      /** The IAM principal behind the user (undefined for the cluster creator's implicit admin). */
      identity?: ResolvedIdentity;
    };

function namespaceMatches(patterns: string[], namespace: string): boolean {
  return patterns.some((p) =>
    new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(namespace),
  );
}

function grantAllows(
  g: SandboxRbacGrant,
  username: string,
  groups: Set<string>,
  t: KubeRequestTarget,
): boolean {
  const subject = g.subjects.some((s) => (s.kind === 'Group' ? groups.has(s.name) : s.name === username));
  if (!subject) return false;
  if (g.namespace !== undefined && g.namespace !== t.namespace) return false;
  if (!g.verbs.includes('*') && !g.verbs.includes(t.verb)) return false;
  if (!g.resources.includes('*') && !g.resources.includes(t.resource)) return false;
  // resourceNames cannot restrict create or list: the request names no object (as in RBAC).
  if (g.resourceNames && g.resourceNames.length > 0)
    return t.name !== undefined && g.resourceNames.includes(t.name);
  return true;
}

/** The grant (`cluster.rbac`) allowing `t`, if any. */
export function rbacGrantFor(
  cluster: ClusterState,
  username: string,
  groups: readonly string[],
  t: KubeRequestTarget,
): SandboxRbacGrant | undefined {
  const set = new Set(groups);
  return cluster.rbac.find((g) => grantAllows(g, username, set, t));
}

/** RBAC of the identity: the monitor's reads and the writes the built-in roles allow. */
function rights(identity: ResolvedIdentity): (t: KubeRequestTarget) => boolean {
  const groups = new Set(identity.groups);
  const policies = identity.accessPolicies.map((p) => ({
    name: p.policyArn.startsWith(POLICY_PREFIX) ? p.policyArn.slice(POLICY_PREFIX.length) : p.policyArn,
    scope: p.accessScope,
  }));
  return (t) => {
    const read = READ_VERBS.has(t.verb);
    if (t.resource === 'version') return true;
    if (groups.has('system:masters')) return true;
    if (groups.has(READERS_GROUP) && read) return true;
    for (const p of policies) {
      const clusterWide = p.scope.type === 'cluster';
      const inNamespace =
        t.namespace !== undefined && (clusterWide || namespaceMatches(p.scope.namespaces ?? [], t.namespace));
      if (p.name === 'AmazonEKSClusterAdminPolicy' && (clusterWide || inNamespace)) return true;
      if (p.name === 'AmazonEKSAdminViewPolicy' && clusterWide && read) return true;
      // View (reads) / Edit and Admin (reads and writes): namespaced objects only (no nodes, no CRDs).
      if (t.resource !== 'configmaps' || !inNamespace) continue;
      if (p.name === 'AmazonEKSViewPolicy' && read) return true;
      if (p.name === 'AmazonEKSEditPolicy' || p.name === 'AmazonEKSAdminPolicy') return true;
    }
    // The Node authorizer lets kubelets read nodes.
    if (groups.has('system:nodes') && t.resource === 'nodes' && read) return true;
    return false;
  };
}

export function kubeAccess(
  world: World,
  cluster: ClusterState,
  principal: { arn: string; stsArn: string },
  monitorArn: string,
): KubeAccess {
  if (principal.arn === monitorArn) {
    // The cluster creator: implicit admin, not in aws-auth (like EKS's CONFIG_MAP creator).
    return {
      kind: 'authenticated',
      username: 'kubernetes-admin',
      groups: ['system:masters'],
      can: () => true,
      reason: () => MASTERS_REASON,
    };
  }
  const identity = resolvePrincipal(accessIndexOf(world, cluster), principal.stsArn);
  if (!identity) return { kind: 'unauthenticated' };
  const username = identity.username
    .replace('{{SessionName}}', principal.stsArn.split('/').pop() ?? '')
    .replace('{{AccountID}}', world.accountId);
  const builtIn = rights(identity);
  const can = (t: KubeRequestTarget): boolean =>
    builtIn(t) || rbacGrantFor(cluster, username, identity.groups, t) !== undefined;
  const reason = (t: KubeRequestTarget): string => {
    if (identity.groups.includes('system:masters')) return MASTERS_REASON;
    const grant = rbacGrantFor(cluster, username, identity.groups, t);
    if (grant) {
      const kind = grant.namespace === undefined ? 'ClusterRoleBinding' : 'RoleBinding';
      const where = grant.namespace === undefined ? '' : ` in namespace "${grant.namespace}"`;
      return `RBAC: allowed by ${kind} "${grant.name ?? 'sandbox-grant'}"${where}`;
    }
    const policy = identity.accessPolicies[0];
    return policy ? `EKS Access Policy: allowed by ${policy.policyArn}` : 'RBAC: allowed';
  };
  return { kind: 'authenticated', username, groups: identity.groups, can, reason, identity };
}

const MASTERS_REASON =
  'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"';
