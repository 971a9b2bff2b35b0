import type { FindingDraft, Rule } from './types.ts';

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
      const arn = entry.principalArn;
      const cluster = a.cluster;
      const recreate = [
        `aws eks delete-access-entry --cluster-name ${cluster.name} --region ${cluster.region} --principal-arn ${arn}`,
        `aws eks create-access-entry --cluster-name ${cluster.name} --region ${cluster.region} --principal-arn ${arn} --type ${entry.type}` +
          (entry.type === 'STANDARD' && entry.kubernetesGroups.length > 0
            ? ` --kubernetes-groups ${entry.kubernetesGroups.join(' ')}`
            : '') +
          (entry.type === 'STANDARD' && entry.username ? ` --username ${entry.username}` : ''),
        ...entry.accessPolicies.map(
          (p) =>
            `aws eks associate-access-policy --cluster-name ${cluster.name} --region ${cluster.region} --principal-arn ${arn} --policy-arn ${p.policyArn} --access-scope type=${p.accessScope.type}${p.accessScope.namespaces?.length ? `,namespaces=${p.accessScope.namespaces.join(',')}` : ''}`,
        ),
      ].join('\n');
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
            ? { summary: 'Delete the orphaned entry.', awsCli: recreate.split('\n')[0] ?? '' }
            : {
                summary: 'Re-create the access entry so it binds to the current role.',
                awsCli: recreate,
                terraform: `terraform apply -replace='aws_eks_access_entry.<name>'   # the entry for ${arn}`,
              },
      });
    }
    return out;
  },
};
