import {
  groupBy,
  irsaAccounts,
  roleOf,
  saLabel,
  serviceAccountBlastRadius,
} from '../workload-identity/identity.ts';
import type { FindingDraft, Rule } from './types.ts';

export const irsaRoleNotFound: Rule = {
  id: 'irsa/role-not-found',
  severity: 'high',
  kinds: ['state'],
  title: "A service account's eks.amazonaws.com/role-arn names a role that does not exist",
  meaning:
    'The IRSA annotation outlives its IAM role: pods with the service account get a web identity token for a role STS cannot find, so no AWS credentials.',
  fix: 'Re-create the role with the IRSA trust statement, or fix the annotation.',
  evaluate({ current: a }) {
    const accounts = irsaAccounts(a.snapshot);
    if (!accounts || a.snapshot.iamRoles.status !== 'ok') return [];
    const out: FindingDraft[] = [];
    for (const [, group] of groupBy(accounts, (sa) => (sa.roleArnAnnotation ?? '').trim().toLowerCase())) {
      const roleArn = (group[0]?.roleArnAnnotation ?? '').trim();
      if (roleOf(a, roleArn)?.state !== 'missing') continue;
      const names = group.map((sa) => saLabel(sa.namespace, sa.name)).sort();
      out.push({
        severity: 'high',
        subject: roleArn,
        title: `IAM role ${roleArn} does not exist: ${names.length} IRSA service account(s) get no credentials`,
        detail: `Annotated on ${names.join(', ')}. IAM has no role of that name (GetRole answers NoSuchEntity).`,
        evidence: { role: roleArn, serviceAccounts: names },
        blastRadius: serviceAccountBlastRadius(
          group.map((sa) => ({ namespace: sa.namespace, name: sa.name })),
        ),
        remediation: {
          summary: `Re-create ${roleArn} with a trust statement for this cluster's OIDC provider, or annotate the service accounts with an existing role.`,
        },
      });
    }
    return out;
  },
};
