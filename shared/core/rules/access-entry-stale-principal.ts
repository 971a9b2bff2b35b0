import { eksOwnershipOf } from '../access/eks-owned.ts';
import { entryArnOf } from '../access/role-arn.ts';
import { eksCommand, principalArnFlag } from '../fixes/remediation.ts';
import { staleEntryTerraform, staleEntryTerraformNote } from '../fixes/stale-entry-terraform.ts';
import type { AccessScope } from '../model.ts';
import { jsonText } from '../quote/json.ts';
import type { FindingDraft, Rule } from './types.ts';

const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;

/**
 * `--access-scope` in the AWS CLI shorthand when every value is a plain name (`type=namespace,
 * namespaces=a,b`), else as JSON, which carries any namespace name exactly.
 */
export function accessScopeArg(scope: AccessScope): string {
  const namespaces = scope.namespaces ?? [];
  if (DNS_LABEL.test(scope.type) && namespaces.every((n) => DNS_LABEL.test(n)))
    return `type=${scope.type}${namespaces.length ? `,namespaces=${namespaces.join(',')}` : ''}`;
  return jsonText({ type: scope.type, ...(namespaces.length ? { namespaces } : {}) });
}

export const accessEntryStalePrincipal: Rule = {
  id: 'access-entry/stale-principal',
  severity: 'high',
  kinds: ['state'],
  title: 'An access entry is bound to a role that was deleted or re-created',
  meaning:
    'An access entry stores the IAM role ID. If the role is deleted and re-created under the same name, the entry silently stops working; deleting the role does not delete the entry.',
  fix: 'Delete and re-create the access entry (and its policy associations) for the current role.',
  evaluate({ current: a }) {
    const out: FindingDraft[] = [];
    if (a.mode === 'CONFIG_MAP') return out;
    for (const dead of [...a.deadEntries.values()].sort((x, y) =>
      x.entry.principalArn.localeCompare(y.entry.principalArn),
    )) {
      const { entry, role } = dead;
      // EKS manages its own entries (eks-owned.ts): their loss is access-entry/eks-owned-removed.
      if (eksOwnershipOf(entry, a.snapshot, a.roles)) continue;
      const arn = entry.principalArn;
      const arnFlag = principalArnFlag(arn);
      // The role was re-created, perhaps under another IAM path: the new entry takes IAM's ARN.
      const current = entryArnOf(a, arn);
      const newFlag = principalArnFlag(current.known ? current.arn : arn);
      const standard = entry.type === 'STANDARD';
      const del = eksCommand(a, 'delete-access-entry', arnFlag);
      const create = eksCommand(
        a,
        'create-access-entry',
        newFlag,
        { flag: '--type', value: entry.type },
        ...(standard && entry.kubernetesGroups.length > 0
          ? [{ flag: '--kubernetes-groups', values: entry.kubernetesGroups }]
          : []),
        ...(standard && entry.username ? [{ flag: '--username', value: entry.username }] : []),
      );
      const associate = entry.accessPolicies.map((p) =>
        eksCommand(
          a,
          'associate-access-policy',
          newFlag,
          { flag: '--policy-arn', value: p.policyArn },
          { flag: '--access-scope', value: accessScopeArg(p.accessScope) },
        ),
      );
      out.push({
        severity: 'high',
        subject: arn,
        fingerprintKey: dead.reason,
        title:
          dead.reason === 'role-missing'
            ? `Access entry for ${arn}: the IAM role no longer exists`
            : `Access entry for ${arn} predates its role (re-created ${role.createDate}): it no longer works`,
        detail:
          dead.reason === 'role-missing'
            ? 'The entry outlived its role. If the role is re-created, the entry will not apply to it.'
            : `The entry was created ${entry.createdAt}; the role with that name was created ${role.createDate}${role.roleId ? ` (role ID ${role.roleId})` : ''}. The entry is bound to the old role ID and matches nothing.`,
        evidence: { entryCreatedAt: entry.createdAt ?? null, role, type: entry.type },
        remediation:
          dead.reason === 'role-missing'
            ? { summary: 'Delete the orphaned entry.', cli: [del] }
            : {
                summary: 'Re-create the access entry so it binds to the current role.',
                cli: [del, create, ...associate],
                terraform: { hcl: staleEntryTerraform(a.cluster.name, entry) },
                notes: [staleEntryTerraformNote(entry.principalArn)],
              },
      });
    }
    return out;
  },
};
