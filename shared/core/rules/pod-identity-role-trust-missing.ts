import type { PodIdentityAssociation } from '../model.ts';
import {
  checkTrust,
  groupBy,
  okData,
  POD_IDENTITY_SERVICE,
  podIdentityActions,
  podIdentityRequest,
  podIdentityStatement,
  roleChainRequest,
  roleChainStatement,
  roleOf,
  serviceAccountBlastRadius,
  trustFix,
  trustVerdict,
} from '../workload-identity.ts';
import type { FindingDraft, Rule } from './types.ts';

const accountsOf = (list: readonly PodIdentityAssociation[]) =>
  list.map((x) => ({ namespace: x.namespace, name: x.serviceAccount }));

export const podIdentityRoleTrustMissing: Rule = {
  id: 'pod-identity/role-trust-missing',
  severity: 'high',
  kinds: ['state'],
  title: "A Pod Identity association's role does not trust pods.eks.amazonaws.com",
  meaning:
    "EKS Auth assumes the association's role as the service principal pods.eks.amazonaws.com with sts:AssumeRole and sts:TagSession (TagSession not when session tags are disabled); a cross-account targetRoleArn must trust the association's role. A trust policy rewritten by IaC without that statement leaves the pods without credentials. Where a condition cannot be evaluated from the snapshot, the finding says so instead of asserting.",
  fix: 'Add the trust statement shown (Principal Service pods.eks.amazonaws.com, Action sts:AssumeRole and sts:TagSession) to the role.',
  evaluate({ current: a }) {
    const s = a.snapshot;
    const associations = okData(s.podIdentityAssociations);
    if (!associations || s.iamRoles.status !== 'ok') return [];
    const out: FindingDraft[] = [];
    // One finding per role (and hop), naming every service account that uses it.
    const hops = associations.flatMap((x) => [
      { roleArn: x.roleArn, via: undefined as string | undefined, x },
      ...(x.targetRoleArn ? [{ roleArn: x.targetRoleArn, via: x.roleArn, x }] : []),
    ]);
    for (const [, group] of groupBy(
      hops,
      (h) => `${h.roleArn.toLowerCase()}\n${(h.via ?? '').toLowerCase()}`,
    )) {
      const first = group[0];
      if (!first) continue;
      const role = roleOf(a, first.roleArn);
      if (role?.state !== 'exists' || role.trustPolicy === undefined) continue;
      const tagless = group.every((h) => h.x.disableSessionTags === true);
      const actions = podIdentityActions({ disableSessionTags: tagless });
      const requests = actions.map((act) =>
        first.via === undefined ? podIdentityRequest(s, act) : roleChainRequest(first.via, act),
      );
      const verdict = trustVerdict(checkTrust(role.trustPolicy, requests));
      if (verdict.verdict === 'ok') continue;
      const users = accountsOf(group.map((h) => h.x));
      const who = first.via === undefined ? POD_IDENTITY_SERVICE : first.via;
      const spec =
        first.via === undefined
          ? podIdentityStatement(s, verdict.verdict === 'broken' ? verdict.denied : actions)
          : roleChainStatement(first.via, verdict.verdict === 'broken' ? verdict.denied : actions);
      const broken = verdict.verdict === 'broken';
      out.push({
        severity: broken ? 'high' : 'medium',
        subject: role.arn,
        fingerprintKey: first.via ?? '',
        title: broken
          ? `${role.arn} does not trust ${who} for ${verdict.denied.join(' and ')}: ${users.length} Pod Identity service account(s) get no credentials`
          : `Could not evaluate whether ${role.arn} trusts ${who}: a trust condition cannot be decided from the snapshot`,
        detail: broken
          ? `The role's trust policy: ${verdict.why}. ${first.via === undefined ? 'EKS Auth' : `The association's role ${first.via}`} cannot assume it, so pods using the service accounts get no AWS credentials.`
          : `Not asserted either way: ${verdict.why}. Check the condition against the request EKS Auth makes (principal ${who}, actions ${actions.join(', ')}).`,
        evidence: {
          role: role.arn,
          principal: who,
          actions,
          verdict: verdict.verdict,
          why: verdict.why,
          associations: group.map((h) => h.x.associationId).sort(),
        },
        blastRadius: serviceAccountBlastRadius(users),
        remediation: trustFix(
          role,
          [spec],
          `Add a trust statement letting ${who} call ${spec.actions.join(' and ')} on ${role.arn}.`,
        ),
      });
    }
    return out;
  },
};
