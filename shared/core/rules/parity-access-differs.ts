import { entryArnOf } from '../access/role-arn.ts';
import { eksCommand, principalArnFlag } from '../fixes/remediation.ts';
import { accessDifferences, accessGrants, grantFix } from '../parity/access-parity.ts';
import type { FindingDraft, Rule } from './types.ts';

export const parityAccessDiffers: Rule = {
  id: 'parity/access-differs',
  severity: 'high',
  kinds: ['parity'],
  title: 'A principal reaches both clusters with other groups, policies or scopes',
  meaning:
    'The principal authenticates to both clusters, but with other Kubernetes groups, access policies or namespace scopes on the target: a pipeline that deploys to the source may be refused on the target (or get more than it should).',
  fix: 'Align the target’s access entry (groups, access policies and scopes) with the source’s.',
  evaluate({ current: to, previous: from }) {
    if (!from) return [];
    const out: FindingDraft[] = [];
    for (const grant of accessGrants(from)) {
      if (grant.node) continue;
      const res = to.resolve(grant.arn);
      if (res.state !== 'resolved') continue;
      const diffs = accessDifferences(grant.identity, res.identity);
      if (diffs.length === 0) continue;
      const missing = grant.identity.accessPolicies.filter(
        (p) => !res.identity.accessPolicies.some((q) => q.policyArn === p.policyArn),
      );
      const fix = grantFix(to, grant, missing, from);
      const entry = entryArnOf(to, grant.arn, from);
      const groups = grant.identity.groups.filter((g) => !g.startsWith('system:'));
      out.push({
        severity: 'high',
        subject: grant.arn,
        title: `${grant.arn} has other access on ${to.cluster.name} than on ${from.cluster.name}`,
        detail: `${diffs.join('; ')}.`,
        evidence: {
          from: {
            source: grant.identity.source,
            groups: grant.identity.groups,
            accessPolicies: grant.identity.accessPolicies,
          },
          to: {
            source: res.identity.source,
            groups: res.identity.groups,
            accessPolicies: res.identity.accessPolicies,
          },
          differences: diffs,
        },
        remediation: {
          ...fix,
          summary: `Align ${grant.arn} on ${to.cluster.name} with ${from.cluster.name}: ${diffs[0]}.`,
          ...(fix.cli
            ? {
                cli: [
                  ...(groups.length > 0
                    ? [
                        eksCommand(
                          to,
                          'update-access-entry',
                          principalArnFlag(entry.known ? entry.arn : grant.arn),
                          {
                            flag: '--kubernetes-groups',
                            values: groups,
                          },
                        ),
                      ]
                    : []),
                  ...fix.cli.slice(1),
                ],
              }
            : {}),
        },
      });
    }
    return out;
  },
};
