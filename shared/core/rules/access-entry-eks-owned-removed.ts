import { type EksOwnership, eksOwnedEntries } from '../access/eks-owned.ts';
import { principalKey } from '../access/principal.ts';
import { eksCommand, type FixPlan, principalArnFlag } from '../fixes/remediation.ts';
import type { AccessEntry } from '../model.ts';
import type { Analysis } from '../predict/analysis.ts';
import { CONTINUE, type ShellCommand } from '../quote/shell.ts';
import { accessScopeArg } from './access-entry-stale-principal.ts';
import type { FindingDraft, Rule } from './types.ts';

/**
 * An access entry EKS created for itself (eks-owned.ts: a Capability role, Auto Mode's cluster or
 * built-in node role, an entry with a username only AWS may set such as cluster insights') is gone:
 * in a snapshot diff, in a DeleteAccessEntry event, or in a what-if. EKS does not put it back.
 */
export const accessEntryEksOwnedRemoved: Rule = {
  id: 'access-entry/eks-owned-removed',
  severity: 'high',
  kinds: ['transition', 'change'],
  settledIsDamage: true,
  title: 'An access entry EKS created for itself was deleted',
  meaning:
    'EKS creates access entries for its own features — EKS Capabilities (ACK, Argo CD, kro), Auto Mode (cluster role, built-in node role), cluster insights — and does not re-create them. Without its entry the feature loses the cluster: a capability reports AccessDenied, built-in node pools cannot add nodes.',
  fix: 'Re-create the entry as it was (type and access policies); do not declare it in IaC, which would delete it again when the declaration goes.',
  evaluate({ current: a, previous: b, change }) {
    if (b?.snapshot.accessEntries.status !== 'ok') return [];
    // Could not read the entries now (or CONFIG_MAP): nothing is known to be gone.
    if (a.snapshot.accessEntries.status !== 'ok' && change === undefined) return [];
    if (change !== undefined && change.kind !== 'delete-access-entry') return [];
    const owned = eksOwnedEntries(b.snapshot, b.roles);
    const gone =
      change !== undefined
        ? [principalKey(change.principalArn)]
        : [...owned.keys()].filter((key) => !a.index.entries.has(key));
    const out: FindingDraft[] = [];
    for (const key of gone.sort()) {
      const was = owned.get(key);
      if (was === undefined || a.index.entries.has(key)) continue;
      out.push(findingFor(a, was.entry, was.ownership));
    }
    return out;
  },
};

function findingFor(a: Analysis, entry: AccessEntry, ownership: EksOwnership): FindingDraft {
  const arn = entry.principalArn;
  return {
    severity: 'high',
    subject: arn,
    title: `The access entry EKS created for ${arn} was deleted: ${ownership.loss}`,
    detail: `EKS owns this ${entry.type} entry (${ownership.why}) and does not re-create it. Without it ${ownership.loss}.`,
    evidence: {
      owner: ownership.kind,
      entry: {
        type: entry.type,
        username: entry.username ?? null,
        kubernetesGroups: entry.kubernetesGroups,
        accessPolicies: entry.accessPolicies,
        createdAt: entry.createdAt ?? null,
      },
    },
    remediation: restoreFix(a, entry, ownership),
  };
}

/**
 * The entry as it was, from the state before: type, groups and username where a caller may set
 * them (STANDARD, and not a username only AWS may give), then each access policy with its scope.
 */
function restoreFix(a: Analysis, entry: AccessEntry, ownership: EksOwnership): FixPlan {
  const arn = entry.principalArn;
  const standard = entry.type === 'STANDARD';
  const keepUsername = standard && entry.username !== undefined && ownership.kind !== 'eks-reserved';
  const create = eksCommand(
    a,
    'create-access-entry',
    CONTINUE,
    principalArnFlag(arn),
    { flag: '--type', value: entry.type },
    ...(standard && entry.kubernetesGroups.length > 0
      ? [{ flag: '--kubernetes-groups', values: entry.kubernetesGroups }]
      : []),
    ...(keepUsername && entry.username !== undefined ? [{ flag: '--username', value: entry.username }] : []),
  );
  const associate: ShellCommand[] = entry.accessPolicies.map((p) =>
    eksCommand(
      a,
      'associate-access-policy',
      CONTINUE,
      principalArnFlag(arn),
      { flag: '--policy-arn', value: p.policyArn },
      { flag: '--access-scope', value: accessScopeArg(p.accessScope) },
    ),
  );
  const notes = [
    'EKS owns this entry: do not declare it in Terraform or another IaC tool — removing the declaration later would delete it again.',
  ];
  if (ownership.kind === 'eks-reserved' && entry.username !== undefined) {
    notes.push(
      `EKS gave it the username "${entry.username}", which a caller cannot set: the re-created entry gets EKS's default username. If the feature still lacks access, AWS Support can restore the original.`,
    );
  }
  if (ownership.kind === 'capability') {
    notes.push("The capability's health clears its AccessDenied issue once the entry is back.");
  }
  return {
    summary: `Re-create the access entry for ${arn} as EKS had it (type ${entry.type}${entry.accessPolicies.length > 0 ? ' and its access policies' : ''}).`,
    cli: [create, ...associate],
    notes,
  };
}
