import { eksCommand } from '../fixes/remediation.ts';
import { associationsWithAccounts } from '../workload-identity/identity.ts';
import type { FindingDraft, Rule } from './types.ts';

export const workloadIdentityIrsaAndPodIdentity: Rule = {
  id: 'workload-identity/irsa-and-pod-identity',
  severity: 'low',
  kinds: ['state'],
  title: 'A service account has both an IRSA role and a Pod Identity association',
  meaning:
    'Pods get both a web identity token (IRSA) and the Pod Identity container credentials. Which one an SDK uses depends on its credential provider chain (most check web identity before container credentials), so two SDKs in one pod may act as different roles.',
  fix: 'Keep one: remove the eks.amazonaws.com/role-arn annotation once the association works, or delete the association.',
  evaluate({ current: a }) {
    const out: FindingDraft[] = [];
    for (const { x, label, account } of associationsWithAccounts(a.snapshot) ?? []) {
      const irsa = (account?.roleArnAnnotation ?? '').trim();
      if (irsa === '') continue;
      out.push({
        severity: 'low',
        subject: label,
        title: `Service account ${label} has both IRSA (${irsa}) and Pod Identity (${x.roleArn})`,
        detail:
          'Which credentials a pod uses depends on the SDK: most default chains try web identity (IRSA) before container credentials (Pod Identity). Pick one so the role is predictable.',
        evidence: {
          serviceAccount: label,
          irsaRole: irsa,
          podIdentityRole: x.roleArn,
          associationId: x.associationId,
        },
        // No blast radius: nobody loses credentials (the subject names the service account).
        remediation: {
          summary:
            'Remove the IRSA annotation once Pod Identity works for the service account (or delete the association to stay on IRSA).',
          cli: [
            { comment: 'to stay on IRSA (see the kubectl block to move to Pod Identity):' },
            eksCommand(a, 'delete-pod-identity-association', {
              flag: '--association-id',
              value: x.associationId,
            }),
          ],
          alternatives: [
            {
              label: 'kubectl: move to Pod Identity (remove the IRSA annotation)',
              script: [
                {
                  argv: [
                    'kubectl',
                    'annotate',
                    { flag: '--namespace', value: x.namespace },
                    `serviceaccount/${x.serviceAccount}`,
                    'eks.amazonaws.com/role-arn-',
                  ],
                },
              ],
            },
          ],
        },
      });
    }
    return out;
  },
};
