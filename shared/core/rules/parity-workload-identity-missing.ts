import { podIdentityPlan, workloadUses, workloadWorksOn } from '../parity/access-parity.ts';
import { saLabel, serviceAccountBlastRadius } from '../workload-identity/identity.ts';
import type { FindingDraft, Rule } from './types.ts';

export const parityWorkloadIdentityMissing: Rule = {
  id: 'parity/workload-identity-missing',
  severity: 'high',
  kinds: ['parity'],
  title: "A service account's role on the source has no working Pod Identity or IRSA path on the target",
  meaning:
    'On the source cluster the service account gets AWS credentials for a role (Pod Identity or IRSA). On the target it has no association, or its IRSA role does not trust the target’s OIDC issuer (the blue/green breakage), or the issuer is not an IAM OIDC provider.',
  fix: 'Create the Pod Identity association on the target (and the trust statement): no trust policy then names a cluster.',
  evaluate({ current: to, previous: from }) {
    if (!from) return [];
    const s = to.snapshot;
    // Blind on the target: say nothing (monitor/source-unavailable covers it there).
    if (s.podIdentityAssociations?.status !== 'ok' && s.serviceAccounts?.status !== 'ok') return [];
    if (s.podIdentityAssociations?.status === 'error' || s.serviceAccounts?.status === 'error') return [];
    const out: FindingDraft[] = [];
    const seen = new Set<string>();
    for (const use of workloadUses(from)) {
      const id = `${saLabel(use.namespace, use.name)}\n${use.roleArn.toLowerCase()}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const verdict = workloadWorksOn(to, from, use);
      if (verdict.verdict === 'ok') continue;
      // Already broken on the source: no parity difference (assess on the source reports it).
      if (workloadWorksOn(from, from, use).verdict === 'broken') continue;
      const label = saLabel(use.namespace, use.name);
      const plan = podIdentityPlan(to, [{ ...use, via: 'irsa' }], from);
      const certain = verdict.verdict === 'broken';
      out.push({
        severity: certain ? 'high' : 'medium',
        subject: label,
        fingerprintKey: use.roleArn.toLowerCase(),
        title: certain
          ? `${label} gets ${use.roleArn} on ${from.cluster.name} (${use.via === 'irsa' ? 'IRSA' : 'Pod Identity'}) but no credentials on ${to.cluster.name}`
          : `Could not evaluate whether ${label} gets ${use.roleArn} on ${to.cluster.name}: a trust condition cannot be decided`,
        detail: `${verdict.why}.`,
        evidence: { serviceAccount: label, roleArn: use.roleArn, via: use.via, verdict: verdict.verdict },
        // Before the move nothing runs there yet: the impact comes with the cut-over.
        blastRadius: serviceAccountBlastRadius(
          [{ namespace: use.namespace, name: use.name }],
          `its pods get no AWS credentials as soon as they run on ${to.cluster.name}`,
        ),
        ...(plan ? { remediation: plan.fix } : {}),
      });
    }
    return out;
  },
};
