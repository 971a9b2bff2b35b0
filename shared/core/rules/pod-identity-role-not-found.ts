import { eksCommand } from '../fixes/remediation.ts';
import { groupBy, okData, roleOf, serviceAccountBlastRadius } from '../workload-identity/identity.ts';
import type { FindingDraft, Rule } from './types.ts';

export const podIdentityRoleNotFound: Rule = {
  id: 'pod-identity/role-not-found',
  severity: 'high',
  kinds: ['state'],
  title: 'A Pod Identity association names a role that does not exist',
  meaning:
    'The association outlives its IAM role (or targetRoleArn): the role was deleted. Pods using the service account get no AWS credentials. Re-creating a role under the same name works for Pod Identity, but only once it trusts pods.eks.amazonaws.com again.',
  fix: 'Re-create the role (with the Pod Identity trust statement), or point the association at an existing role.',
  evaluate({ current: a }) {
    const associations = okData(a.snapshot.podIdentityAssociations);
    if (!associations || a.snapshot.iamRoles.status !== 'ok') return [];
    const uses = associations.flatMap((x) =>
      [x.roleArn, ...(x.targetRoleArn ? [x.targetRoleArn] : [])].map((arn) => ({ arn, x })),
    );
    const out: FindingDraft[] = [];
    for (const [, group] of groupBy(uses, (u) => u.arn.toLowerCase())) {
      const first = group[0];
      if (!first || roleOf(a, first.arn)?.state !== 'missing') continue;
      const users = group.map((u) => ({ namespace: u.x.namespace, name: u.x.serviceAccount }));
      out.push({
        severity: 'high',
        subject: first.arn,
        title: `IAM role ${first.arn} does not exist: ${users.length} Pod Identity service account(s) get no credentials`,
        detail: `Used by the association(s) ${group
          .map((u) => u.x.associationId)
          .sort()
          .join(', ')}. IAM has no role of that name (GetRole answers NoSuchEntity).`,
        evidence: { role: first.arn, associations: group.map((u) => u.x.associationId).sort() },
        blastRadius: serviceAccountBlastRadius(users),
        remediation: {
          summary: `Re-create ${first.arn} with a trust statement for pods.eks.amazonaws.com, or update the association to an existing role.`,
          cli: group.map((u) =>
            eksCommand(
              a,
              'update-pod-identity-association',
              { flag: '--association-id', value: u.x.associationId },
              { flag: '--role-arn', value: '<existing role ARN>' },
            ),
          ),
        },
      });
    }
    return out;
  },
};
