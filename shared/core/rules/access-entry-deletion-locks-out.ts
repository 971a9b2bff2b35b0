import { eksOwnershipOf } from '../access/eks-owned.ts';
import { principalKey } from '../access/principal.ts';
import { eksCommand, principalArnFlag } from '../fixes/remediation.ts';
import { jsonText } from '../quote/json.ts';
import type { Rule } from './types.ts';

/**
 * A person's or a tool's access entry (type `STANDARD`) deleted while nothing else lets the
 * principal in: it loses the cluster, and the entry's username, groups and policy associations go
 * with it. Nodes, Fargate and the monitor itself are `access-entry/deletion-unauthorizes`.
 */
export const accessEntryDeletionLocksOut: Rule = {
  id: 'access-entry/deletion-locks-out',
  severity: 'critical',
  kinds: ['change'],
  settledIsDamage: true,
  title: 'Deleting an access entry leaves its principal with no access to the cluster',
  meaning:
    'The entry was all that let this role or user (a person, a CI pipeline, a tool) authenticate: nothing in aws-auth or the mode takes over. The deletion takes its username, groups and access policy associations with it.',
  fix: 'Keep the entry, or re-create it with the same username, groups and access policies; if the removal is meant (someone left), accept this finding deliberately.',
  evaluate({ current: a, previous: b, change, monitorPrincipalArn }) {
    if (change?.kind !== 'delete-access-entry' || !b || b.snapshot.accessEntries.status !== 'ok') return [];
    const key = principalKey(change.principalArn);
    const entry = b.snapshot.accessEntries.data.find((e) => principalKey(e.principalArn) === key);
    if (entry === undefined || entry.type !== 'STANDARD') return [];
    // An entry EKS owns is no person's or tool's: access-entry/eks-owned-removed says what breaks.
    if (eksOwnershipOf(entry, b.snapshot, b.roles)) return [];
    if (b.consumers.byRole.has(key)) return [];
    if (monitorPrincipalArn !== undefined && principalKey(monitorPrincipalArn) === key) return [];
    if (b.resolve(change.principalArn).state !== 'resolved') return [];
    if (a.resolve(change.principalArn).state !== 'unmapped') return [];
    const arn = entry.principalArn;
    const policies = entry.accessPolicies.map((p) => p.policyArn.split('/').pop() ?? p.policyArn);
    const held = [
      entry.username === undefined ? undefined : `username "${entry.username}"`,
      entry.kubernetesGroups.length === 0 ? undefined : `groups ${entry.kubernetesGroups.join(', ')}`,
      policies.length === 0 ? undefined : `access policies ${policies.join(', ')}`,
    ].filter((x) => x !== undefined);
    const arnFlag = principalArnFlag(arn);
    return [
      {
        severity: 'critical',
        subject: arn,
        title: `Deleting the access entry for ${arn} leaves it with no access to ${a.cluster.name}`,
        detail: `Afterwards nothing authorizes ${arn} in ${a.mode} mode${held.length > 0 ? `; the entry's ${held.join('; ')} go with it` : ''}.`,
        evidence: {
          mode: a.mode,
          entry: {
            type: entry.type,
            username: entry.username ?? null,
            kubernetesGroups: entry.kubernetesGroups,
            accessPolicies: entry.accessPolicies,
          },
        },
        remediation: {
          summary:
            'Keep the entry. If it is already gone, re-create it as it was; if the removal is meant, accept this finding deliberately.',
          cli: [
            eksCommand(
              a,
              'create-access-entry',
              arnFlag,
              { flag: '--type', value: 'STANDARD' },
              ...(entry.username === undefined ? [] : [{ flag: '--username', value: entry.username }]),
              ...(entry.kubernetesGroups.length === 0
                ? []
                : [{ flag: '--kubernetes-groups', values: entry.kubernetesGroups }]),
            ),
            ...entry.accessPolicies.map((p) =>
              eksCommand(
                a,
                'associate-access-policy',
                arnFlag,
                { flag: '--policy-arn', value: p.policyArn },
                { flag: '--access-scope', value: jsonText(p.accessScope) },
              ),
            ),
          ],
        },
      },
    ];
  },
};
