import { nodeCountOf } from '../access/consumers.ts';
import { blastRadiusOf, nodesTimeToImpact, TIME_TO_IMPACT_FARGATE } from '../access/impact.ts';
import { principalKey } from '../access/principal.ts';
import { checkIdentity } from '../access/resolve.ts';
import { entryArnOf } from '../access/role-arn.ts';
import { eksCommand, nodeAccessRemediation, principalArnFlag } from '../fixes/remediation.ts';
import { SOURCE_UNAVAILABLE } from './monitor-source-unavailable.ts';
import type { FindingDraft, Rule } from './types.ts';

export const accessEntryDeletionUnauthorizes: Rule = {
  id: 'access-entry/deletion-unauthorizes',
  severity: 'critical',
  kinds: ['change'],
  confirmedBy: ['nodes/role-unauthorized', 'fargate/pod-execution-role-unauthorized'],
  title: 'Deleting an access entry leaves nodes, Fargate or the monitor without access',
  meaning:
    'The entry was what authorized a node role, a Fargate pod execution role or the monitor itself; nothing in aws-auth (or the mode) takes over.',
  fix: 'Re-create the access entry with the same type (and policies), or map the role in aws-auth where the mode still reads it.',
  evaluate({ current: a, previous: b, change, monitorPrincipalArn }) {
    if (change?.kind !== 'delete-access-entry' || !b) return [];
    const key = principalKey(change.principalArn);
    const before = b.resolve(change.principalArn);
    const after = a.resolve(change.principalArn);
    if (before.state !== 'resolved' || after.state === 'unknown') return [];
    const afterIdentity = after.state === 'resolved' ? after.identity : undefined;
    const out: FindingDraft[] = [];
    const consumer = b.consumers.byRole.get(key);
    if (consumer) {
      const reqs = [...consumer.requirements].sort();
      const failing = reqs.filter(
        (r) => checkIdentity(before.identity, r).works && !checkIdentity(afterIdentity, r).works,
      );
      const first = failing[0];
      if (first) {
        const fargate = failing.includes('fargate') && failing.length === 1;
        out.push({
          severity: 'critical',
          subject: change.principalArn,
          title: `Deleting the access entry for ${change.principalArn} leaves ${fargate ? `Fargate profile(s) ${consumer.fargateProfiles.join(', ')}` : `${nodeCountOf(consumer)} node(s)`} without access`,
          detail: afterIdentity
            ? `Afterwards the role resolves through ${afterIdentity.source} as "${afterIdentity.username}", which is not a working ${first} identity.`
            : `Afterwards nothing authorizes the role in ${a.mode} mode.`,
          evidence: { before: before.identity, after: afterIdentity ?? null, mode: a.mode },
          blastRadius: blastRadiusOf(
            [consumer],
            fargate ? TIME_TO_IMPACT_FARGATE : nodesTimeToImpact([consumer]),
          ),
          remediation: nodeAccessRemediation(b, change.principalArn, first, { entriesAfter: a }),
        });
      }
    }
    if (monitorPrincipalArn && principalKey(monitorPrincipalArn) === key && after.state !== 'resolved') {
      const entryArn = entryArnOf(b, change.principalArn, a);
      out.push({
        severity: 'critical',
        subject: change.principalArn,
        fingerprintKey: 'monitor',
        title: `Deleting the access entry for ${change.principalArn} blinds eks-auth-sentinel on ${a.cluster.name}`,
        detail: `The monitor can no longer read aws-auth or nodes in this cluster; every later check there reports ${SOURCE_UNAVAILABLE}.`,
        evidence: { monitorPrincipalArn },
        remediation: {
          summary: "Re-create the monitor's access entry (see infra/ for the grant).",
          cli: [
            eksCommand(
              a,
              'create-access-entry',
              principalArnFlag(entryArn.known ? entryArn.arn : change.principalArn),
              {
                flag: '--kubernetes-groups',
                values: ['eks-auth-sentinel:readers'],
              },
            ),
          ],
        },
      });
    }
    return out;
  },
};
