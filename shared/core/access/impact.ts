/**
 * The blast radius of lost access: which node groups, Fargate profiles, node classes and nodes
 * depend on the roles that lose it, and how soon their compute fails. Pure.
 */
import type { BlastRadius, ComputeNode } from '../model.ts';
import { type ConsumerInventory, nodeCountOf, nodeLabel, type RoleConsumer } from './consumers.ts';

export const FIRST_NODES = 10;

export const TIME_TO_IMPACT_NODES =
  'new nodes fail to join at once; running nodes go NotReady within minutes (upstream defaults ≈ 1–3 min, reports ≈ 5 min)';
export const TIME_TO_IMPACT_FARGATE =
  'new Fargate pods cannot be scheduled from the next launch; running Fargate nodes authenticate with the same role and go NotReady within minutes, their pods evicted ≈ 5 min later';

const notReady = (n: ComputeNode) => n.ready === 'False' || n.ready === 'Unknown';

/**
 * When the compute of `consumers` is hit: nodes the snapshot shows NotReady already are said to be
 * NotReady (Ready=Unknown/False), not to go NotReady; the rest get `ahead` (what is still to come).
 */
export function nodesTimeToImpact(
  consumers: readonly Pick<RoleConsumer, 'nodes'>[],
  ahead: string = TIME_TO_IMPACT_NODES,
  newCompute = 'new nodes fail to join',
): string {
  const nodes = consumers.flatMap((c) => c.nodes);
  const down = nodes.filter(notReady);
  if (down.length === 0) return ahead;
  const states = [...new Set(down.map((n) => `Ready=${n.ready}`))].sort().join('/');
  const already = `${down.length === nodes.length ? 'all ' : ''}${down.length} node(s) already NotReady (${states}${sinceOf(down)})`;
  if (down.length === nodes.length) return `${already}; ${newCompute}`;
  return `${already}; the other ${nodes.length - down.length}: ${ahead}`;
}

/** `, since 12:01:07Z` from the earliest known Ready transition of `nodes`, if the snapshot has one. */
function sinceOf(nodes: readonly ComputeNode[]): string {
  const times = nodes.flatMap((n) => (n.readySince === undefined ? [] : [n.readySince])).sort();
  return times[0] === undefined ? '' : `, since ${times[0]}`;
}

export function blastRadiusOf(consumers: readonly RoleConsumer[], timeToImpact: string): BlastRadius {
  const nodes = consumers.flatMap((c) => c.nodes);
  return {
    nodegroups: [...new Set(consumers.flatMap((c) => c.nodegroups))].sort(),
    fargateProfiles: [...new Set(consumers.flatMap((c) => c.fargateProfiles))].sort(),
    nodeClasses: [...new Set(consumers.flatMap((c) => c.nodeClasses))].sort(),
    nodeCount: consumers.reduce((n, c) => n + nodeCountOf(c), 0),
    firstNodes: nodes.slice(0, FIRST_NODES).map(nodeLabel),
    timeToImpact,
  };
}

export function consumerOf(inventory: ConsumerInventory, key: string): RoleConsumer | undefined {
  return inventory.byRole.get(key);
}
