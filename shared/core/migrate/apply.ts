/**
 * A migration plan applied to a snapshot as EKS would apply it (the state `whatif --auth-mode API`
 * verifies): the mode switched to API_AND_CONFIG_MAP, stale entries replaced, entries created,
 * each stamped with the snapshot's `capturedAt`. Pure.
 */

import { principalKey } from '../access/principal.ts';
import { refusedEntryArn, roleArnIndex } from '../access/role-arn.ts';
import type { AccessEntry, ClusterSnapshot } from '../model.ts';
import type { MigrationPlan } from './migration-plan.ts';

/**
 * The snapshot after the plan's first steps (mode API_AND_CONFIG_MAP, stale entries replaced,
 * entries created), as EKS would hold it: what `whatif --auth-mode API` is run on to verify. An
 * entry for a role ARN without the path the role has is refused by EKS, so it is not created.
 */
export function applyMigrationPlan(snapshot: ClusterSnapshot, plan: MigrationPlan): ClusterSnapshot {
  const arns = roleArnIndex(snapshot);
  const s = structuredClone(snapshot);
  if (s.cluster.authenticationMode === 'CONFIG_MAP') s.cluster.authenticationMode = 'API_AND_CONFIG_MAP';
  const accepted = plan.accessEntries.filter((e) => refusedEntryArn(arns, e.principalArn) === undefined);
  const replaced = new Set(accepted.map((e) => principalKey(e.principalArn)));
  const kept = s.accessEntries.status === 'ok' ? s.accessEntries.data : [];
  s.accessEntries = {
    status: 'ok',
    data: [
      ...kept.filter((e) => !replaced.has(principalKey(e.principalArn))),
      ...accepted.map(
        (e): AccessEntry => ({
          principalArn: e.principalArn,
          type: e.type,
          ...(e.username === undefined ? {} : { username: e.username }),
          kubernetesGroups: [...(e.kubernetesGroups ?? [])],
          createdAt: s.capturedAt,
          modifiedAt: s.capturedAt,
          accessPolicies: (e.accessPolicies ?? []).map((p) => ({
            policyArn: p.policyArn,
            accessScope: structuredClone(p.accessScope),
            associatedAt: s.capturedAt,
          })),
        }),
      ),
    ],
  };
  return s;
}
