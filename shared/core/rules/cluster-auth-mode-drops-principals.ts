import { blastRadiusOf, nodesTimeToImpact } from '../access/impact.ts';
import {
  accessEntriesFix,
  awsAuthOnlyPrincipals,
  consumerOfPrincipal,
  principalListing,
} from '../migrate/unmigrated.ts';
import type { FindingDraft, Rule } from './types.ts';

export const clusterAuthModeDropsPrincipals: Rule = {
  id: 'cluster/auth-mode-drops-principals',
  severity: 'critical',
  kinds: ['change'],
  confirmedBy: ['cluster/api-mode-ignores-aws-auth'],
  title: 'Switching to API mode drops aws-auth principals that have no access entry',
  meaning:
    'In API mode aws-auth is ignored. Every role, user or account mapped only there loses access, nodes included. The switch is one-way.',
  fix: 'Create an access entry for every principal listed before switching (eksctl utils migrate-to-access-entry plans it).',
  evaluate({ current: a, previous: b, change }) {
    if (change?.kind !== 'set-auth-mode' || change.mode !== 'API' || !b || b.mode === 'API') return [];
    if (b.snapshot.awsAuth.status === 'error') return [];
    const dropped = awsAuthOnlyPrincipals(b);
    if (dropped.length === 0) return [];
    const consumers = dropped.map((d) => consumerOfPrincipal(b, d)).filter((c) => c !== undefined);
    const fix = accessEntriesFix(b, dropped);
    const listing = principalListing(b, dropped, 'Principals dropped');
    const draft: FindingDraft = {
      // Critical even for people alone: the switch is one-way, and whom it drops loses access for good.
      severity: 'critical',
      subject: a.snapshot.clusterArn,
      title: `Switching ${a.cluster.name} to API mode drops ${dropped.length} aws-auth principal(s)${consumers.length ? `, including node/Fargate roles of ${consumers.reduce((n, c) => n + c.nodes.length, 0)} node(s)` : ''}`,
      detail: listing.lines.join('\n'),
      evidence: {
        from: b.mode,
        to: 'API',
        dropped: listing.listed,
        ...(listing.unlisted > 0 ? { droppedCount: dropped.length } : {}),
      },
      remediation: {
        summary: 'Create these access entries first, confirm access, then switch. API mode cannot be undone.',
        cli: fix.cli,
        ...(fix.terraform ? { terraform: fix.terraform } : {}),
        notes: fix.notes,
      },
    };
    if (consumers.length > 0) draft.blastRadius = blastRadiusOf(consumers, nodesTimeToImpact(consumers));
    return [draft];
  },
};
