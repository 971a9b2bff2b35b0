import { checkIdentity } from '../access/resolve.ts';
import { nodeAccessRemediation } from '../fixes/remediation.ts';
import type { FindingDraft, Rule } from './types.ts';

export const awsAuthNodeRoleMissingGroups: Rule = {
  id: 'aws-auth/node-role-missing-groups',
  severity: 'high',
  kinds: ['state'],
  title: 'A node role is mapped without the groups EKS sets up',
  meaning:
    'Nodes authenticate, but the mapping lacks system:bootstrappers (or eks:kube-proxy-windows for Windows nodes) that EKS writes for node roles; bootstrap or kube-proxy on Windows breaks. A mapping that lacks the node username or system:nodes entirely is reported as nodes/role-unauthorized.',
  fix: 'Map the role with username system:node:{{EC2PrivateDNSName}} and groups system:bootstrappers, system:nodes (+ eks:kube-proxy-windows on Windows).',
  evaluate({ current: a }) {
    const out: FindingDraft[] = [];
    for (const c of a.consumers.byRole.values()) {
      const res = a.resolve(c.roleArn);
      if (res.state !== 'resolved' || res.identity.source !== 'aws-auth-role') continue;
      for (const req of [...c.requirements].sort()) {
        if (req === 'fargate') continue;
        const check = checkIdentity(res.identity, req);
        if (!check.works || check.degraded.length === 0) continue;
        out.push({
          severity: 'high',
          subject: c.roleArn,
          fingerprintKey: req,
          title: `Node role ${c.roleArn} is mapped without ${check.degraded.map((d) => d.split(' ')[1]).join(', ')}`,
          detail: `aws-auth ${res.identity.location?.dataKey ?? 'mapRoles'} entry ${res.identity.location?.index ?? '?'}: ${check.degraded.join('; ')}.`,
          evidence: {
            username: res.identity.username,
            groups: res.identity.groups,
            degraded: check.degraded,
          },
          remediation: nodeAccessRemediation(a, c.roleArn, req),
        });
      }
    }
    return out;
  },
};
