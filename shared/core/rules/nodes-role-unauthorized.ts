import { nodeCountOf } from '../access/consumers.ts';
import { blastRadiusOf, nodesTimeToImpact } from '../access/impact.ts';
import { checkIdentity } from '../access/resolve.ts';
import { deletedRoleRemediation, nodeAccessRemediation, ROLE_DELETED_PROBLEM } from '../fixes/remediation.ts';
import type { FindingDraft, Rule } from './types.ts';

export const nodesRoleUnauthorized: Rule = {
  id: 'nodes/role-unauthorized',
  severity: 'critical',
  kinds: ['state'],
  title: 'A role used by nodes resolves to no working node identity',
  meaning:
    'Nodes (managed, Karpenter, self-managed, Auto Mode, hybrid) run with an IAM role that neither an access entry nor aws-auth maps to a node identity: new nodes cannot join, running ones go NotReady.',
  fix: 'Create an EC2_LINUX (EC2_WINDOWS) access entry for the role, or map it in aws-auth with username system:node:{{EC2PrivateDNSName}} and groups system:bootstrappers, system:nodes.',
  evaluate({ current: a }) {
    const out: FindingDraft[] = [];
    for (const c of a.consumers.byRole.values()) {
      const reqs = [...c.requirements].filter((r) => r !== 'fargate').sort();
      if (reqs.length === 0) continue;
      const res = a.resolve(c.roleArn);
      const deleted = a.roles?.get(c.key)?.state === 'missing';
      if (res.state === 'unknown' && !deleted) continue;
      const identity = res.state === 'resolved' ? res.identity : undefined;
      const failing = reqs
        .map((req) => ({
          req,
          check: deleted
            ? { works: false, problems: [ROLE_DELETED_PROBLEM], degraded: [] }
            : checkIdentity(identity, req),
        }))
        .filter((f) => !f.check.works);
      const first = failing[0];
      if (!first) continue;
      const nodeConsumer = { ...c, nodes: c.nodes.filter((n) => n.kind !== 'fargate'), fargateProfiles: [] };
      const count = nodeCountOf(nodeConsumer);
      const why = failing.flatMap((f) => f.check.problems);
      out.push({
        severity: count > 0 ? 'critical' : 'high',
        subject: c.roleArn,
        title:
          count > 0
            ? `${count} node(s) run with ${c.roleArn}, which cannot authenticate as a node`
            : `Compute configured with ${c.roleArn} cannot authenticate as a node`,
        detail: [
          deleted
            ? `The IAM role ${c.roleArn} does not exist: no node can get its credentials, whatever aws-auth or access entries say.`
            : `In ${a.mode} mode the role ${res.state === 'resolved' ? `resolves through ${res.identity.source} (${res.identity.matchedBy})` : 'is mapped nowhere'}: ${why.join('; ')}.`,
          count > 0
            ? 'Running nodes lose access to the API server and new nodes cannot register.'
            : 'New nodes launched with it cannot register.',
        ].join(' '),
        evidence: {
          mode: a.mode,
          resolution: res.state === 'resolved' ? res.identity : null,
          problems: why,
          requirements: reqs,
        },
        blastRadius: blastRadiusOf([nodeConsumer], nodesTimeToImpact([nodeConsumer])),
        remediation: deleted
          ? deletedRoleRemediation(a, c.roleArn, first.req)
          : nodeAccessRemediation(a, c.roleArn, first.req),
      });
    }
    return out;
  },
};
