import { principalKey } from '../access/principal.ts';
import { nodeAccessRemediation } from '../fixes/remediation.ts';
import { accessGrants, grantFix } from '../parity/access-parity.ts';
import type { FindingDraft, Rule } from './types.ts';

export const parityAccessMissing: Rule = {
  id: 'parity/access-missing',
  severity: 'critical',
  kinds: ['parity'],
  title: 'A principal with access to the source cluster has none on the target',
  meaning:
    'Before traffic moves to a new cluster (blue/green), every principal that reaches the old one — people, CI and Argo CD roles, through access entries or aws-auth — must reach the new one. Node and Fargate identities count only where the target runs compute with that role.',
  fix: 'Create the access entries (or aws-auth mappings) shown on the target; the whole list is one block in the compare output.',
  evaluate({ current: to, previous: from }) {
    if (!from) return [];
    const out: FindingDraft[] = [];
    for (const grant of accessGrants(from)) {
      const res = to.resolve(grant.arn);
      if (res.state !== 'unmapped') continue;
      const consumer = to.consumers.byRole.get(principalKey(grant.arn));
      if (grant.node && !consumer) continue;
      const req = consumer ? [...consumer.requirements].sort()[0] : undefined;
      out.push({
        severity: 'critical',
        subject: grant.arn,
        title: `${grant.arn} reaches ${from.cluster.name} but not ${to.cluster.name}`,
        detail: `On ${from.cluster.name} it authenticates through ${grant.identity.source} as ${grant.identity.username}${grant.identity.groups.length ? ` (groups ${grant.identity.groups.join(', ')})` : ''}; on ${to.cluster.name} (${to.mode}) nothing maps it.`,
        evidence: {
          from: from.cluster,
          source: grant.identity.source,
          username: grant.identity.username,
          groups: grant.identity.groups,
          accessPolicies: grant.identity.accessPolicies,
          node: grant.node,
        },
        remediation:
          grant.node && req
            ? nodeAccessRemediation(to, grant.arn, req, { knownIn: [from] })
            : grantFix(to, grant, grant.identity.accessPolicies, from),
      });
    }
    return out;
  },
};
