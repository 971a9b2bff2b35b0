/**
 * Consumer inventory: every IAM role that running or future compute depends on, who depends on
 * it, and what kind of identity it needs (docs/eks-auth-semantics.md#what-eks-writes-and-deletes,
 * docs/eks-auth-semantics.md#karpenter-and-node-attribution).
 */
import { compareLocale } from '../collate.ts';
import type { ClusterSnapshot, ComputeNode, SourceName } from '../model.ts';
import { principalKey } from './principal.ts';
import type { NodeRequirement } from './resolve.ts';

export interface RoleConsumer {
  /** principalKey of the role. */
  key: string;
  /** The role ARN as the first source gave it (may carry a path). */
  roleArn: string;
  requirements: Set<NodeRequirement>;
  /** Managed node groups using the role as `nodeRole`. */
  nodegroups: string[];
  fargateProfiles: string[];
  /** Karpenter EC2NodeClasses launching nodes with the role. */
  nodeClasses: string[];
  /** Compute known to run with the role (from the `compute` source). */
  nodes: ComputeNode[];
  /** When `compute` is unreadable: the node groups' desired sizes, an estimate. */
  estimatedNodes: number;
}

export interface ConsumerInventory {
  byRole: Map<string, RoleConsumer>;
  /** Sources whose failure makes the inventory incomplete. */
  blind: SourceName[];
  computeKnown: boolean;
}

export function requirementOfNode(node: ComputeNode): NodeRequirement {
  switch (node.kind) {
    case 'fargate':
      return 'fargate';
    case 'auto':
      return 'auto';
    case 'hybrid':
      return 'hybrid';
    default:
      return node.os === 'windows' ? 'ec2-windows' : 'ec2-linux';
  }
}

export function nodeLabel(node: ComputeNode): string {
  return node.nodeName ?? node.id;
}

export function buildConsumers(snapshot: ClusterSnapshot): ConsumerInventory {
  const byRole = new Map<string, RoleConsumer>();
  const blind: SourceName[] = [];
  // Thousands of nodes share a handful of role ARNs: key each distinct ARN string once.
  const byArn = new Map<string, RoleConsumer>();
  const get = (arn: string): RoleConsumer => {
    const known = byArn.get(arn);
    if (known) return known;
    const key = principalKey(arn);
    let c = byRole.get(key);
    if (!c) {
      c = {
        key,
        roleArn: arn,
        requirements: new Set(),
        nodegroups: [],
        fargateProfiles: [],
        nodeClasses: [],
        nodes: [],
        estimatedNodes: 0,
      };
      byRole.set(key, c);
    }
    byArn.set(arn, c);
    return c;
  };

  const computeKnown = snapshot.compute.status === 'ok';
  if (snapshot.nodegroups.status === 'ok') {
    for (const ng of snapshot.nodegroups.data) {
      if (!ng.nodeRole) continue;
      const c = get(ng.nodeRole);
      c.nodegroups.push(ng.name);
      c.requirements.add(ng.amiType?.toUpperCase().includes('WINDOWS') ? 'ec2-windows' : 'ec2-linux');
      if (!computeKnown) c.estimatedNodes += ng.desiredSize ?? 0;
    }
  } else if (snapshot.nodegroups.status === 'error') blind.push('nodegroups');

  if (snapshot.fargateProfiles.status === 'ok') {
    for (const fp of snapshot.fargateProfiles.data) {
      if (!fp.podExecutionRoleArn) continue;
      const c = get(fp.podExecutionRoleArn);
      c.fargateProfiles.push(fp.name);
      c.requirements.add('fargate');
    }
  } else if (snapshot.fargateProfiles.status === 'error') blind.push('fargateProfiles');

  const classes = snapshot.karpenterNodeClasses;
  if (classes?.status === 'ok') {
    for (const nc of classes.data) {
      if (!nc.roleArn) continue;
      const c = get(nc.roleArn);
      c.nodeClasses.push(nc.name);
      c.requirements.add('ec2-linux');
    }
  } else if (classes?.status === 'error') blind.push('karpenterNodeClasses');

  // Auto Mode NodeClasses: their nodes need an `EC2` entry with AmazonEKSAutoNodePolicy.
  const autoClasses = snapshot.autoModeNodeClasses;
  if (autoClasses?.status === 'ok') {
    for (const nc of autoClasses.data) {
      if (!nc.roleArn) continue;
      const c = get(nc.roleArn);
      c.nodeClasses.push(nc.name);
      c.requirements.add('auto');
    }
  } else if (autoClasses?.status === 'error') blind.push('autoModeNodeClasses');

  if (snapshot.compute.status === 'ok') {
    for (const node of snapshot.compute.data) {
      if (!node.roleArn) continue;
      const c = get(node.roleArn);
      c.nodes.push(node);
      c.requirements.add(requirementOfNode(node));
    }
  } else if (snapshot.compute.status === 'error') blind.push('compute');

  for (const c of byRole.values()) {
    c.nodes.sort((a, b) => compareLocale(nodeLabel(a), nodeLabel(b)));
    c.nodegroups.sort();
    c.fargateProfiles.sort();
    c.nodeClasses.sort();
  }
  return { byRole, blind, computeKnown };
}

/** How many nodes depend on the role (known, or estimated from node group sizes). */
export function nodeCountOf(c: RoleConsumer): number {
  return c.nodes.length > 0 ? c.nodes.length : c.estimatedNodes;
}
