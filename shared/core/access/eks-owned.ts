/**
 * Access entries EKS creates and owns itself (docs/eks-auth-semantics.md#eks-owned-access-entries).
 * They are never drift, stale or orphaned — no IaC declares them, no compute the inventory sees
 * uses them — and their loss breaks an EKS feature, so it alerts (`access-entry/eks-owned-removed`).
 *
 * How an entry is recognised, and the facts each way rests on (docs/eks-auth-semantics.md
 * #eks-owned-access-entries and #access-entry-types):
 * - `capability`: the principal's trust policy allows the service principal
 *   `capabilities.eks.amazonaws.com` (EKS user guide "capability IAM role": every capability
 *   role must trust it). EKS creates the capability's access entries itself; deleting one makes
 *   the capability report `AccessDenied`. Needs the role's trust policy in `iamRoles`
 *   (a capture keeps it for such roles, capture-workload-identity.ts).
 * - `auto-mode-cluster-role`: Auto Mode is on (DescribeCluster `computeConfig.enabled`) and the
 *   principal is the cluster role (`roleArn`): EKS creates its entry at cluster creation.
 * - `auto-mode-node-role`: Auto Mode uses built-in node pools (`computeConfig.nodePools` not
 *   empty) and the principal is their node role (`computeConfig.nodeRoleArn`): EKS creates that
 *   `EC2` entry only for the built-in node pools (terraform-aws-modules/terraform-aws-eks#3241). A custom NodeClass role's entry
 *   is the customer's to create (rule `nodes/role-unauthorized`), and not EKS-owned.
 * - `eks-reserved`: the entry's username starts with `eks:`, `aws:`, `amazon:` or `iam:`, which
 *   no caller may give an access entry, or its principal is a service-linked role
 *   (`role/aws-service-role/…`), which callers may not name (EKS user guide, creating access
 *   entries): only AWS wrote it. The cluster-insights entry EKS creates in every cluster is
 *   recognised this way; its exact
 *   principal and username are not published, so it is not matched by name.
 * Tags are not used: access-entry tags are caller-written and not in the snapshot.
 */

import type { AccessEntry, ClusterSnapshot, IamRole } from '../model.ts';
import { parsePolicy } from '../workload-identity/iam-policy/policy.ts';
import { principalKey } from './principal.ts';

export const CAPABILITIES_SERVICE = 'capabilities.eks.amazonaws.com';

export type EksOwnerKind = 'capability' | 'auto-mode-cluster-role' | 'auto-mode-node-role' | 'eks-reserved';

export interface EksOwnership {
  kind: EksOwnerKind;
  /** Why the product takes it for EKS's, one sentence (prose). */
  why: string;
  /** What breaks without it, one sentence (prose). */
  loss: string;
}

/**
 * Username prefixes no caller may set (EKS user guide, creating access entries; migrate.ts `RESERVED_USERNAME_PREFIXES`, not imported:
 * the event path's rules carry no migration code). `system:` is left out: node entries carry
 * `system:node:…` by default.
 */
const AWS_ONLY_USERNAME_PREFIXES = ['eks:', 'aws:', 'amazon:', 'iam:'] as const;

/** Whether the trust policy (JSON text) lets `capabilities.eks.amazonaws.com` in. Never throws. */
export function trustsEksCapabilities(trustPolicy: string | undefined): boolean {
  if (trustPolicy === undefined) return false;
  const parsed = parsePolicy(trustPolicy);
  if (!parsed.ok) return false;
  return parsed.statements.some(
    (s) =>
      s.effect === 'Allow' &&
      s.principal !== undefined &&
      s.principal !== '*' &&
      [...s.principal].some(
        ([type, ids]) =>
          type.toLowerCase() === 'service' && ids.some((id) => id.toLowerCase() === CAPABILITIES_SERVICE),
      ),
  );
}

const sameRole = (a: string | undefined, b: string): boolean =>
  a !== undefined && a !== '' && principalKey(a) === principalKey(b);

/** Whether EKS owns `entry` in the cluster `snapshot` describes, and why; undefined when not. */
export function eksOwnershipOf(
  entry: AccessEntry,
  snapshot: Pick<ClusterSnapshot, 'cluster'>,
  roles: ReadonlyMap<string, IamRole> | undefined,
): EksOwnership | undefined {
  const arn = entry.principalArn;
  if (trustsEksCapabilities(roles?.get(principalKey(arn))?.trustPolicy)) {
    return {
      kind: 'capability',
      why: `the role trusts ${CAPABILITIES_SERVICE}: it is an EKS Capability role, whose access entries EKS creates itself`,
      loss: 'the capability (ACK, Argo CD or kro) can no longer reach the cluster and reports AccessDenied',
    };
  }
  const auto = snapshot.cluster.computeConfig;
  if (auto?.enabled && sameRole(snapshot.cluster.roleArn, arn)) {
    return {
      kind: 'auto-mode-cluster-role',
      why: 'it is the cluster role of an EKS Auto Mode cluster, whose access entry EKS creates at cluster creation',
      loss: 'EKS Auto Mode can no longer manage compute, storage and load balancing in the cluster',
    };
  }
  if (auto?.enabled && auto.nodePools.length > 0 && sameRole(auto.nodeRoleArn, arn)) {
    return {
      kind: 'auto-mode-node-role',
      why: `it is the node role of the built-in Auto Mode node pools (${auto.nodePools.join(', ')}), whose EC2 access entry EKS creates`,
      loss: 'nodes of the built-in node pools can no longer join the cluster',
    };
  }
  const username = entry.username?.toLowerCase();
  const reserved = AWS_ONLY_USERNAME_PREFIXES.find((p) => username?.startsWith(p));
  if (reserved !== undefined || /:role\/aws-service-role\//i.test(arn)) {
    return {
      kind: 'eks-reserved',
      why:
        reserved !== undefined
          ? `its username starts with "${reserved}", which no caller may give an access entry: EKS created it (as it does the cluster-insights entry)`
          : 'its principal is a service-linked role, which no caller may give an access entry: EKS created it',
      loss: 'the EKS feature that uses it (such as cluster insights) loses access to the cluster',
    };
  }
  return undefined;
}

/** Every EKS-owned entry of the snapshot, by principal key. */
export function eksOwnedEntries(
  snapshot: ClusterSnapshot,
  roles: ReadonlyMap<string, IamRole> | undefined,
): Map<string, { entry: AccessEntry; ownership: EksOwnership }> {
  const out = new Map<string, { entry: AccessEntry; ownership: EksOwnership }>();
  if (snapshot.accessEntries.status !== 'ok') return out;
  for (const entry of snapshot.accessEntries.data) {
    const ownership = eksOwnershipOf(entry, snapshot, roles);
    if (ownership) out.set(principalKey(entry.principalArn), { entry, ownership });
  }
  return out;
}
