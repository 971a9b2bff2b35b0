import { eksCommand } from '../fixes/remediation.ts';
import { associationsWithAccounts } from '../workload-identity/identity.ts';
import type { FindingDraft, Rule } from './types.ts';

export const podIdentityServiceAccountMissing: Rule = {
  id: 'pod-identity/service-account-missing',
  severity: 'low',
  kinds: ['state'],
  title: 'A Pod Identity association names a service account that does not exist',
  meaning:
    'EKS does not check that the service account exists. An association for a missing (misspelt, renamed, deleted) service account gives no pod anything; the pods that should use it run without its role.',
  fix: 'Create the service account, fix the name, or delete the association.',
  evaluate({ current: a }) {
    const out: FindingDraft[] = [];
    for (const { x, label, account } of associationsWithAccounts(a.snapshot) ?? []) {
      if (account) continue;
      out.push({
        severity: 'low',
        subject: label,
        fingerprintKey: x.associationId,
        title: `Pod Identity association ${x.associationId} names service account ${label}, which does not exist`,
        detail: `The association maps ${label} to ${x.roleArn}; no service account of that name exists in namespace ${x.namespace}.`,
        evidence: {
          associationId: x.associationId,
          namespace: x.namespace,
          serviceAccount: x.serviceAccount,
          roleArn: x.roleArn,
        },
        // No blast radius: nobody loses credentials (the subject names the service account).
        remediation: {
          summary:
            'Create the service account (kubectl create serviceaccount), or delete the association if nothing uses it.',
          cli: [
            eksCommand(a, 'delete-pod-identity-association', {
              flag: '--association-id',
              value: x.associationId,
            }),
          ],
        },
      });
    }
    return out;
  },
};
