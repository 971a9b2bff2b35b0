/**
 * Who depends on what, for the HTML report's picture: each principal → how the cluster authorizes
 * it in its current mode (an access entry, an aws-auth line, mapAccounts, nothing) → the compute
 * groups that use it (managed node groups, Karpenter node classes, Fargate profiles, and the
 * self-managed, hybrid and Auto Mode nodes of a role). A path is `broken` when a current finding
 * (critical or high) concerns its principal or compute, `at-risk` when a what-if predicts a
 * critical finding for it. Pure data; the layout and the SVG are html-report.ts's.
 */

import { nodeLabel } from '../access/consumers.ts';
import { principalKey } from '../access/principal.ts';
import type { ClusterSnapshot, Finding } from '../model.ts';
import { type Analysis, analyzeSnapshot } from '../predict/analysis.ts';
import { isWorkloadIdentity } from './blast-radius.ts';

export type GraphNodeKind = 'principal' | 'authorization' | 'compute';
export type PathState = 'ok' | 'at-risk' | 'broken';

export interface GraphNode {
  id: string;
  kind: GraphNodeKind;
  /** First line (attacker-written: escaped by the renderer). */
  label: string;
  /** Second line, smaller. */
  sublabel?: string;
  state: PathState;
}

export interface GraphEdge {
  from: string;
  to: string;
  state: PathState;
}

export interface DependencyGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

const RANK: Record<PathState, number> = { ok: 0, 'at-risk': 1, broken: 2 };
const worse = (a: PathState, b: PathState): PathState => (RANK[a] >= RANK[b] ? a : b);

interface ComputeGroup {
  id: string;
  label: string;
  sublabel: string;
  /** What findings' blast radius names it by. */
  match: { nodegroup?: string; fargateProfile?: string; nodeClass?: string };
}

function computeGroupsOf(a: Analysis): Map<string, ComputeGroup[]> {
  const byRole = new Map<string, ComputeGroup[]>();
  for (const c of a.consumers.byRole.values()) {
    const groups: ComputeGroup[] = [];
    const count = (pred: (n: (typeof c.nodes)[number]) => boolean) => c.nodes.filter(pred).length;
    for (const ng of c.nodegroups) {
      const n = count((x) => x.nodegroup === ng);
      groups.push({
        id: `compute:nodegroup:${ng}`,
        label: ng,
        sublabel: `managed node group, ${n} node${n === 1 ? '' : 's'}`,
        match: { nodegroup: ng },
      });
    }
    for (const nc of c.nodeClasses) {
      const n = count((x) => x.nodeClass === nc);
      groups.push({
        id: `compute:nodeclass:${nc}`,
        label: nc,
        sublabel: `Karpenter node class, ${n} node${n === 1 ? '' : 's'}`,
        match: { nodeClass: nc },
      });
    }
    for (const fp of c.fargateProfiles) {
      const n = count((x) => x.fargateProfile === fp);
      groups.push({
        id: `compute:fargate:${fp}`,
        label: fp,
        sublabel: `Fargate profile, ${n} pod${n === 1 ? '' : 's'}`,
        match: { fargateProfile: fp },
      });
    }
    // Nodes no group above accounts for: one group per kind and role.
    const loose = c.nodes.filter(
      (x) =>
        !(x.nodegroup && c.nodegroups.includes(x.nodegroup)) &&
        !(x.nodeClass && c.nodeClasses.includes(x.nodeClass)) &&
        !(x.fargateProfile && c.fargateProfiles.includes(x.fargateProfile)),
    );
    for (const kind of [...new Set(loose.map((x) => x.kind))].sort()) {
      const nodes = loose.filter((x) => x.kind === kind);
      groups.push({
        id: `compute:${kind}:${c.key}`,
        label: `${kind} nodes`,
        sublabel: `${nodes.length}: ${nodes.slice(0, 2).map(nodeLabel).join(', ')}${nodes.length > 2 ? ', …' : ''}`,
        match: {},
      });
    }
    byRole.set(c.key, groups);
  }
  return byRole;
}

function touches(f: Finding, key: string, g?: ComputeGroup): boolean {
  // A workload-identity finding (pods lose their AWS credentials) names a node role or node group
  // only as where the pods run: the nodes' own path to the cluster is not broken by it.
  if (isWorkloadIdentity(f.blastRadius)) return false;
  if (principalKey(f.subject) === key) return true;
  if (!g || !f.blastRadius) return false;
  const b = f.blastRadius;
  return (
    (g.match.nodegroup !== undefined && b.nodegroups.includes(g.match.nodegroup)) ||
    (g.match.fargateProfile !== undefined && b.fargateProfiles.includes(g.match.fargateProfile)) ||
    (g.match.nodeClass !== undefined && b.nodeClasses.includes(g.match.nodeClass))
  );
}

function stateOf(
  key: string,
  current: readonly Finding[],
  predicted: readonly Finding[],
  g?: ComputeGroup,
): PathState {
  if (current.some((f) => touches(f, key, g))) return 'broken';
  if (predicted.some((f) => touches(f, key, g))) return 'at-risk';
  return 'ok';
}

/** Every principal the snapshot knows: aws-auth's effective mappings, access entries and compute roles. */
function principalsOf(a: Analysis): Map<string, string> {
  const out = new Map<string, string>();
  const add = (arn: string) => {
    const key = principalKey(arn);
    if (!out.has(key)) out.set(key, arn);
  };
  for (const r of a.index.roles.values()) if (r.rolearn) add(r.rolearn);
  for (const u of a.index.usersByKey.values()) add(u.userarn);
  for (const e of a.accessEntries ?? []) add(e.principalArn);
  for (const c of a.consumers.byRole.values()) add(c.roleArn);
  return out;
}

function authorizationOf(
  a: Analysis,
  key: string,
  arn: string,
): { id: string; label: string; sublabel?: string } {
  const r = a.resolve(arn);
  if (r.state === 'unknown')
    return { id: `auth:unknown:${key}`, label: 'unknown', sublabel: `cannot read ${r.blind.join(', ')}` };
  if (r.state === 'unmapped')
    return { id: `auth:none:${key}`, label: 'nothing', sublabel: `not authorized (${a.mode})` };
  const id = r.identity;
  switch (id.source) {
    case 'access-entry':
      return {
        id: `auth:entry:${key}`,
        label: `access entry ${id.accessEntryType ?? 'STANDARD'}`,
        sublabel: id.username,
      };
    case 'aws-auth-account':
      return {
        id: `auth:account:${id.matchedBy}`,
        label: `mapAccounts ${id.matchedBy}`,
        sublabel: 'username = ARN, no groups',
      };
    default: {
      const where = id.location;
      const line = where?.line === undefined ? '' : ` line ${where.line}`;
      return {
        id: `auth:aws-auth:${key}`,
        label: `aws-auth ${where?.dataKey ?? 'mapRoles'}${line}`,
        sublabel: `${id.username} [${id.groups.join(', ')}]`,
      };
    }
  }
}

/**
 * The graph of one snapshot. `current`: its assessment's findings; `predicted`: the what-ifs'
 * findings (only critical ones mark a path at risk).
 */
export function buildDependencyGraph(
  snapshot: ClusterSnapshot,
  current: readonly Finding[],
  predicted: readonly Finding[],
): DependencyGraph {
  const a = analyzeSnapshot(snapshot);
  const severe = current.filter((f) => f.severity === 'critical' || f.severity === 'high');
  const critical = predicted.filter((f) => f.severity === 'critical');
  const groups = computeGroupsOf(a);
  const nodes = new Map<string, GraphNode>();
  const edges = new Map<string, GraphEdge>();
  const node = (n: GraphNode) => {
    const old = nodes.get(n.id);
    nodes.set(n.id, old ? { ...old, state: worse(old.state, n.state) } : n);
  };
  const edge = (from: string, to: string, state: PathState) => {
    const id = `${from}\u0000${to}`;
    const old = edges.get(id);
    edges.set(id, { from, to, state: old ? worse(old.state, state) : state });
  };
  for (const [key, arn] of [...principalsOf(a)].sort((x, y) => (x[1] < y[1] ? -1 : 1))) {
    const principalId = `principal:${key}`;
    const computes = groups.get(key) ?? [];
    const computeStates = computes.map((g) => stateOf(key, severe, critical, g));
    const own = stateOf(key, severe, critical);
    const state = computeStates.reduce(worse, own);
    const kind = arn.includes(':user/') ? 'IAM user' : 'IAM role';
    node({ id: principalId, kind: 'principal', label: arn, sublabel: kind, state });
    const auth = authorizationOf(a, key, arn);
    const authState = auth.label === 'nothing' && computes.length > 0 ? 'broken' : state;
    node({
      id: auth.id,
      kind: 'authorization',
      label: auth.label,
      ...(auth.sublabel === undefined ? {} : { sublabel: auth.sublabel }),
      state: worse(state, authState),
    });
    edge(principalId, auth.id, worse(state, authState));
    computes.forEach((g, i) => {
      const s = worse(computeStates[i] ?? 'ok', auth.label === 'nothing' ? 'broken' : 'ok');
      node({ id: g.id, kind: 'compute', label: g.label, sublabel: g.sublabel, state: s });
      edge(auth.id, g.id, s);
    });
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}
