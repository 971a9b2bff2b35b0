import type { AwsAuthEntry } from '../quote/yaml.ts';
import { firstOf } from './listing.ts';
import type { FindingDraft, Rule } from './types.ts';

/** A group name with white space is a YAML slip: `system:bootstrappers - system:nodes`. */
export function looksMalformed(group: string): boolean {
  return /\s/.test(group) || group.startsWith('-') || group === '';
}

/** Malformed groups a title names; an entry with thousands of them (hostile) names the first few and counts the rest. */
const MAX_TITLE_GROUPS = 3;

export const awsAuthGroupLooksMalformed: Rule = {
  id: 'aws-auth/group-looks-malformed',
  severity: 'high',
  kinds: ['state'],
  title: 'An aws-auth group is a YAML slip',
  meaning:
    'A mis-indented list item merges two groups into one string (e.g. "system:bootstrappers - system:nodes"): it parses, and the principal silently loses both groups.',
  fix: 'Put each group on its own list item at the same indentation.',
  evaluate({ current: a }) {
    if (!a.awsAuth || a.mode === 'API') return [];
    const out: FindingDraft[] = [];
    for (const m of [...a.awsAuth.roles, ...a.awsAuth.users]) {
      const bad = m.groups.filter(looksMalformed);
      if (bad.length === 0) continue;
      const arn = 'userarn' in m ? m.userarn : (m.rolearn ?? `sso:${m.sso?.permissionSetName}`);
      const groups = m.groups.flatMap((g) =>
        looksMalformed(g) ? g.split(/\s+-\s+|\s+/).filter(Boolean) : [g],
      );
      const { location: _, ...mapping } = m;
      const fixed: AwsAuthEntry =
        'userarn' in mapping ? { user: { ...mapping, groups } } : { role: { ...mapping, groups } };
      const named = firstOf(bad, MAX_TITLE_GROUPS);
      out.push({
        severity: 'high',
        subject: arn,
        title: `aws-auth ${m.location.dataKey} entry for ${arn} has malformed group(s): ${named.listed.map((g) => JSON.stringify(g)).join(', ')}${named.unlisted > 0 ? ` and ${named.unlisted} more` : ''}`,
        detail: `Entry ${m.location.index}${m.location.line ? ` (line ${m.location.line})` : ''} carries group(s) no RBAC binding names; the principal has none of the groups that were meant.`,
        evidence: { groups: m.groups, malformed: bad, location: m.location },
        remediation: {
          summary: `Split the groups into separate list items: replace ${m.location.dataKey} entry ${m.location.index} with the entry shown.`,
          awsAuth: fixed,
        },
      });
    }
    return out;
  },
};
