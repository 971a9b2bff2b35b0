import { nodeCountOf } from '../access/consumers.ts';
import { blastRadiusOf, nodesTimeToImpact } from '../access/impact.ts';
import { principalKey } from '../access/principal.ts';
import { checkIdentity } from '../access/resolve.ts';
import { nodeAccessRemediation } from '../fixes/remediation.ts';
import { otherManagedNodegroupsUsing } from '../predict/simulate.ts';
import type { FindingDraft, Rule } from './types.ts';

export const nodegroupDeletionOrphansRole: Rule = {
  id: 'nodegroup/deletion-orphans-role',
  severity: 'critical',
  kinds: ['change'],
  confirmedBy: ['nodes/role-unauthorized'],
  title: 'Deleting a node group removes a role from aws-auth that other compute still needs',
  meaning:
    'When a managed node group is deleted, EKS removes its node role from aws-auth unless another MANAGED node group uses it. Karpenter, self-managed and Fargate users of the role are not considered: their nodes can no longer authenticate.',
  fix: 'Before deleting, create an EC2_LINUX access entry for the role (API_AND_CONFIG_MAP/API), or re-add the aws-auth mapping right after EKS removes it and keep it in IaC.',
  evaluate({ current: a, previous: b, change }) {
    if (change?.kind !== 'delete-nodegroup' || !b) return [];
    const ng =
      b.snapshot.nodegroups.status === 'ok'
        ? b.snapshot.nodegroups.data.find((n) => n.name === change.nodegroupName)
        : undefined;
    const roleArn = ng?.nodeRole ?? change.nodeRole;
    if (!roleArn) return [];
    if (otherManagedNodegroupsUsing(b.snapshot, change.nodegroupName, roleArn).length > 0) return [];
    const key = principalKey(roleArn);
    const left = a.consumers.byRole.get(key);
    if (!left) return [];
    const reqs = [...left.requirements].filter((r) => r !== 'fargate').sort();
    if (
      reqs.length === 0 ||
      (left.nodes.length === 0 && left.nodeClasses.length === 0 && left.nodegroups.length === 0)
    )
      return [];
    const before = b.resolve(roleArn);
    const after = a.resolve(roleArn);
    if (after.state === 'unknown' || before.state === 'unknown') return [];
    const beforeIdentity = before.state === 'resolved' ? before.identity : undefined;
    const afterIdentity = after.state === 'resolved' ? after.identity : undefined;
    const failing = reqs.filter(
      (r) => checkIdentity(beforeIdentity, r).works && !checkIdentity(afterIdentity, r).works,
    );
    const wasMappedInAwsAuth = !!b.awsAuth?.roles.some((r) => r.rolearn?.toLowerCase() === key);
    const ec2Nodes = { ...left, nodes: left.nodes.filter((n) => n.kind !== 'fargate') };
    const radius = blastRadiusOf([ec2Nodes], nodesTimeToImpact([ec2Nodes]));
    const who = [
      ...left.nodeClasses.map((n) => `Karpenter EC2NodeClass ${n}`),
      ...left.nodegroups.map((n) => `node group ${n}`),
    ];
    const firstReq = failing[0];
    if (firstReq) {
      const count = nodeCountOf(left);
      return [
        {
          severity: 'critical',
          subject: roleArn,
          fingerprintKey: change.nodegroupName,
          title: `Deleting node group ${change.nodegroupName} removes ${roleArn} from aws-auth: ${count} other node(s) lose access`,
          detail: [
            `No other managed node group uses ${roleArn}, so EKS removes every aws-auth entry for it.`,
            `Still depending on it: ${[...who, `${count} running node(s)`].join(', ')}.`,
            after.state === 'resolved'
              ? `Afterwards the role resolves only through ${after.identity.source}, which is not a node identity.`
              : 'Afterwards no access entry or mapping authorizes it.',
            'The moment of removal during the deletion is undocumented: assume it can happen any time from now.',
          ].join(' '),
          evidence: {
            nodegroup: change.nodegroupName,
            nodeRole: roleArn,
            mode: a.mode,
            before: beforeIdentity ?? null,
            after: afterIdentity ?? null,
          },
          blastRadius: radius,
          remediation: nodeAccessRemediation(b, roleArn, firstReq, {
            eksRemoves:
              b.snapshot.awsAuth.status === 'ok' && b.snapshot.awsAuth.data.data.mapRoles !== undefined
                ? { mapRolesBefore: b.snapshot.awsAuth.data.data.mapRoles }
                : {},
          }),
        } satisfies FindingDraft,
      ];
    }
    if (!wasMappedInAwsAuth || afterIdentity?.source !== 'access-entry') return [];
    return [
      {
        severity: 'info',
        subject: roleArn,
        fingerprintKey: change.nodegroupName,
        title: `Deleting node group ${change.nodegroupName} removes ${roleArn} from aws-auth; its ${afterIdentity.accessEntryType} access entry keeps ${nodeCountOf(left)} node(s) working`,
        detail: `In ${a.mode} mode the access entry takes precedence, and EKS does not delete it with the node group. Do not delete that entry while ${who.join(', ') || 'nodes'} use the role.`,
        evidence: {
          nodegroup: change.nodegroupName,
          nodeRole: roleArn,
          accessEntryType: afterIdentity.accessEntryType,
        },
        blastRadius: { ...radius, timeToImpact: 'none while the access entry exists' },
      },
    ];
  },
};
