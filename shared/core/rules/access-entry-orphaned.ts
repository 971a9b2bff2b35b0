import { eksOwnershipOf } from '../access/eks-owned.ts';
import { principalKey } from '../access/principal.ts';
import { eksCommand, principalArnFlag } from '../fixes/remediation.ts';
import type { FindingDraft, Rule } from './types.ts';

/**
 * Node entry types whose users the snapshot's inventory can see. `HYPERPOD_LINUX` is a node type
 * too (docs/eks-auth-semantics.md#access-entry-types: node types take IAM roles only), but SageMaker HyperPod's instances are
 * neither node groups, profiles, node classes nor EC2 instances of the account: "nothing uses it"
 * cannot be known, so it is never called orphaned.
 */
const NODE_TYPES = new Set(['EC2_LINUX', 'EC2_WINDOWS', 'FARGATE_LINUX', 'HYBRID_LINUX', 'EC2']);

export const accessEntryOrphaned: Rule = {
  id: 'access-entry/orphaned',
  severity: 'low',
  kinds: ['state'],
  title: 'A node or Fargate access entry whose role no compute uses',
  meaning:
    'EKS does not delete the EC2_LINUX/FARGATE_LINUX entry when the node group or profile goes away. A leftover entry lets anyone who can pass the role join nodes to the cluster.',
  fix: 'Delete the entry if nothing will launch with the role again.',
  evaluate({ current: a }) {
    const s = a.snapshot;
    // Orphaned is a negative claim: every inventory source must have been read.
    const blind =
      s.nodegroups.status === 'error' ||
      s.fargateProfiles.status === 'error' ||
      s.compute.status === 'error' ||
      s.karpenterNodeClasses?.status === 'error' ||
      s.autoModeNodeClasses?.status === 'error';
    if (blind || !a.accessEntries || a.mode === 'CONFIG_MAP') return [];
    const out: FindingDraft[] = [];
    for (const e of a.accessEntries) {
      if (!NODE_TYPES.has(e.type)) continue;
      if (a.consumers.byRole.has(principalKey(e.principalArn))) continue;
      // EKS created it (Auto Mode's built-in node role before any node runs, …): not left behind.
      if (eksOwnershipOf(e, s, a.roles)) continue;
      out.push({
        severity: 'low',
        subject: e.principalArn,
        title: `${e.type} access entry for ${e.principalArn} has no node group, profile, node class or node using it`,
        detail: 'Left behind when a node group or Fargate profile was deleted, or created ahead of use.',
        evidence: { type: e.type, createdAt: e.createdAt ?? null },
        remediation: {
          summary: 'Delete the entry once nothing will use the role.',
          cli: [eksCommand(a, 'delete-access-entry', principalArnFlag(e.principalArn))],
        },
      });
    }
    return out;
  },
};
