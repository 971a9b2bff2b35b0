import { blastRadiusOf, nodesTimeToImpact, TIME_TO_IMPACT_FARGATE } from '../access/impact.ts';
import { checkIdentity } from '../access/resolve.ts';
import { deletedRoleRemediation, nodeAccessRemediation, ROLE_DELETED_PROBLEM } from '../fixes/remediation.ts';
import type { FindingDraft, Rule } from './types.ts';

export const fargatePodExecutionRoleUnauthorized: Rule = {
  id: 'fargate/pod-execution-role-unauthorized',
  severity: 'critical',
  kinds: ['state'],
  title: "A Fargate profile's pod execution role resolves to no working Fargate identity",
  meaning:
    'Fargate launches pods only when the pod execution role maps to system:node:{{SessionName}} with system:bootstrappers, system:nodes and system:node-proxier (or a FARGATE_LINUX access entry). Otherwise pods fail with "Misconfigured Fargate Profile … Pod execution role is not found in auth config".',
  fix: 'Create a FARGATE_LINUX access entry for the pod execution role, or re-add the aws-auth mapping EKS created, and declare it in the tool that owns aws-auth.',
  evaluate({ current: a }) {
    const out: FindingDraft[] = [];
    const profiles = a.snapshot.fargateProfiles.status === 'ok' ? a.snapshot.fargateProfiles.data : [];
    for (const c of a.consumers.byRole.values()) {
      if (!c.requirements.has('fargate')) continue;
      const live = profiles.filter(
        (p) =>
          c.fargateProfiles.includes(p.name) && !p.status.startsWith('DELET') && p.status !== 'CREATE_FAILED',
      );
      if (live.length === 0) continue;
      const res = a.resolve(c.roleArn);
      const deleted = a.roles?.get(c.key)?.state === 'missing';
      if (res.state === 'unknown' && !deleted) continue;
      const check = deleted
        ? { works: false, problems: [ROLE_DELETED_PROBLEM] }
        : checkIdentity(res.state === 'resolved' ? res.identity : undefined, 'fargate');
      if (check.works) continue;
      const fargateNodes = c.nodes.filter((n) => n.kind === 'fargate');
      const owners = (a.snapshot.awsAuth.status === 'ok' ? a.snapshot.awsAuth.data.managedFields : [])
        .filter((m) => m.dataKeys.includes('mapRoles'))
        .map((m) => ({ manager: m.manager, operation: m.operation, ...(m.time ? { time: m.time } : {}) }));
      out.push({
        severity: 'critical',
        subject: c.roleArn,
        title: `Fargate profile(s) ${live.map((p) => p.name).join(', ')}: pod execution role cannot authenticate`,
        detail:
          `In ${a.mode} mode ${c.roleArn} ${deleted ? 'is deleted' : res.state === 'resolved' ? `resolves through ${res.identity.source}` : 'is mapped nowhere'}: ${check.problems.join('; ')}. ${owners.length > 0 ? `mapRoles is written by ${owners.map((o) => o.manager).join(', ')}, which may have removed the entry EKS added.` : ''}`.trim(),
        evidence: { mode: a.mode, problems: check.problems, mapRolesManagers: owners },
        blastRadius: blastRadiusOf(
          [
            {
              ...c,
              nodes: fargateNodes,
              nodegroups: [],
              nodeClasses: [],
              fargateProfiles: live.map((p) => p.name),
            },
          ],
          nodesTimeToImpact(
            [{ nodes: fargateNodes }],
            TIME_TO_IMPACT_FARGATE,
            'new Fargate pods cannot be scheduled',
          ),
        ),
        remediation: deleted
          ? deletedRoleRemediation(a, c.roleArn, 'fargate')
          : nodeAccessRemediation(a, c.roleArn, 'fargate'),
      });
    }
    return out;
  },
};
