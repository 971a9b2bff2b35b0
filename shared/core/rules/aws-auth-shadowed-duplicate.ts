import type { RoleMapping, UserMapping } from '../aws-auth/index.ts';
import { firstOf } from './listing.ts';
import type { FindingDraft, Rule } from './types.ts';

export const awsAuthShadowedDuplicate: Rule = {
  id: 'aws-auth/shadowed-duplicate',
  severity: 'medium',
  kinds: ['state'],
  title: 'The same ARN is mapped twice in aws-auth; the last one wins',
  meaning:
    'The authenticator stores mappings by lower-cased ARN: a later entry for the same ARN replaces the earlier one, which is dead. An audit that reads the first entry is wrong.',
  fix: 'Keep one entry per ARN, with the union of what was meant.',
  evaluate({ current: a }) {
    if (!a.awsAuth || a.mode === 'API') return [];
    // The access index already keys every mapping once: equal counts mean no duplicate at all.
    const roleArns = a.awsAuth.roles.length - a.index.ssoRoles.length;
    if (a.index.roles.size === roleArns && a.index.usersByKey.size === a.awsAuth.users.length) return [];
    const groups = new Map<string, Array<RoleMapping | UserMapping>>();
    const add = (k: string, m: RoleMapping | UserMapping) => {
      const list = groups.get(k);
      if (list) list.push(m);
      else groups.set(k, [m]);
    };
    for (const r of a.awsAuth.roles) {
      if (!r.rolearn) continue;
      add(`role:${r.rolearn.toLowerCase()}`, r);
    }
    for (const u of a.awsAuth.users) add(`user:${u.userarn.toLowerCase()}`, u);
    const out: FindingDraft[] = [];
    for (const list of groups.values()) {
      if (list.length < 2) continue;
      const winner = list[list.length - 1] as RoleMapping | UserMapping;
      const arn = 'userarn' in winner ? winner.userarn : (winner.rolearn ?? '');
      const describe = (m: RoleMapping | UserMapping) =>
        `entry ${m.location.index}${m.location.line ? ` (line ${m.location.line})` : ''}: "${m.username}" ${JSON.stringify(m.groups)}`;
      const differs = list.some(
        (m) => m.username !== winner.username || m.groups.join('\u0000') !== winner.groups.join('\u0000'),
      );
      // The title has the count; a hostile aws-auth mapping one ARN thousands of times lists a few.
      const dead = firstOf(list.slice(0, -1));
      const shown = [...dead.listed, winner];
      out.push({
        severity: differs ? 'medium' : 'low',
        subject: arn,
        title: `${arn} is mapped ${list.length} times in ${winner.location.dataKey}; only the last applies`,
        detail: `Effective: ${describe(winner)}. Dead: ${dead.listed.map(describe).join('; ')}${dead.unlisted > 0 ? `; … and ${dead.unlisted} more` : ''}.${differs ? ' The entries differ: what the dead ones grant is not granted.' : ''}`,
        evidence: {
          entries: shown.map((m) => ({ location: m.location, username: m.username, groups: m.groups })),
          ...(dead.unlisted > 0 ? { entryCount: list.length } : {}),
        },
        remediation: {
          summary: `Remove the earlier entries for ${arn}, keeping what is meant in one entry.`,
        },
      });
    }
    return out;
  },
};
