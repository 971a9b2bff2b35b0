import { blastRadiusOf, nodesTimeToImpact } from '../access/impact.ts';
import { roleNameOf } from '../access/principal.ts';
import {
  type AwsAuthOnlyPrincipal,
  accessEntriesFix,
  awsAuthOnlyPrincipals,
  consumerOfPrincipal,
  principalListing,
} from '../migrate/unmigrated.ts';
import type { FindingDraft, Rule } from './types.ts';

/** How many principals the title names before "and N more". */
const TITLE_NAMES = 3;

function principalLabel(p: AwsAuthOnlyPrincipal): string {
  switch (p.kind) {
    case 'role':
      return `role ${roleNameOf(p.arn) ?? p.arn}`;
    case 'user':
      return `user ${p.arn.split('/').pop() || p.arn}`;
    case 'account':
      return `account ${p.arn}`;
    default:
      return p.arn;
  }
}

export const clusterApiModeIgnoresAwsAuth: Rule = {
  id: 'cluster/api-mode-ignores-aws-auth',
  severity: 'critical',
  kinds: ['state'],
  title: 'The cluster runs in API mode: principals mapped only in aws-auth have lost access',
  meaning:
    'In API mode EKS ignores aws-auth. A role, user or account mapped there without an access entry cannot authenticate any more (nodes included); the mode cannot be switched back.',
  fix: 'Create an access entry for each principal listed, with the username and groups it had in aws-auth; then delete its aws-auth mapping.',
  evaluate({ current: a }) {
    if (a.mode !== 'API' || !a.awsAuth || a.snapshot.accessEntries.status !== 'ok') return [];
    const lost = awsAuthOnlyPrincipals(a);
    if (lost.length === 0) return [];
    const consumers = lost.map((p) => consumerOfPrincipal(a, p)).filter((c) => c !== undefined);
    const nodes = consumers.reduce((n, c) => n + c.nodes.length, 0);
    const names = lost.slice(0, TITLE_NAMES).map(principalLabel);
    const more = lost.length - names.length;
    const fix = accessEntriesFix(a, lost);
    const listing = principalListing(a, lost, 'Principals that lost access');
    const draft: FindingDraft = {
      // Critical even for people alone, like the prediction it confirms: the mode cannot go back.
      severity: 'critical',
      subject: a.snapshot.clusterArn,
      title: `${a.cluster.name} runs in API mode: ${lost.length} principal(s) mapped only in aws-auth have lost access (${names.join(', ')}${more > 0 ? ` and ${more} more` : ''})${consumers.length > 0 ? `, node/Fargate roles of ${nodes} node(s) among them` : ''}`,
      detail: [
        'EKS ignores aws-auth in API mode; these mappings no longer authenticate anyone:',
        ...listing.lines,
      ].join('\n'),
      evidence: {
        mode: a.mode,
        lost: listing.listed,
        ...(listing.unlisted > 0 ? { lostCount: lost.length } : {}),
      },
      remediation: {
        summary:
          'Create an access entry for each principal (the username and groups it had in aws-auth are kept below). API mode cannot be switched back.',
        cli: fix.cli,
        ...(fix.terraform ? { terraform: fix.terraform } : {}),
        notes: fix.notes,
      },
    };
    if (consumers.length > 0) draft.blastRadius = blastRadiusOf(consumers, nodesTimeToImpact(consumers));
    return [draft];
  },
};
