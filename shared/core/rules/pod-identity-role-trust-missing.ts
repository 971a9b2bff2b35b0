import { roleAccount } from '../compute.ts';
import type { ClusterSnapshot, PodIdentityAssociation } from '../model.ts';
import { terraformName } from '../remediation.ts';
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
  trustDocument,
  trustFix,
  trustHcl,
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
    "EKS Auth assumes the association's role as the service principal pods.eks.amazonaws.com with sts:AssumeRole and sts:TagSession (TagSession not when session tags are disabled); a targetRoleArn must trust the association's role. A trust policy rewritten by IaC without that statement leaves the pods without credentials. Where a condition cannot be evaluated from the snapshot, the finding says so instead of asserting; a targetRoleArn in another account is never read (the monitor's credentials cannot read it) and is reported as not evaluated.",
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
      const tagless = group.every((h) => h.x.disableSessionTags === true);
      const actions = podIdentityActions({ disableSessionTags: tagless });
      const account = roleAccount(first.roleArn);
      if (role === undefined && first.via !== undefined && account !== undefined && account !== s.accountId) {
        out.push(outsideAccount(s, first.roleArn, account, first.via, actions, group));
        continue;
      }
      if (role?.state !== 'exists' || role.trustPolicy === undefined) continue;
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

/**
 * A targetRoleArn in another account: not read (GetRole with the monitor's credentials would look
 * in the wrong account, and a NoSuchEntity there would read as "deleted"), so its trust is not
 * evaluated — said as such, at medium, never as role-not-found. The fix is the statement the
 * EKS user guide gives, to apply in that account (no CLI: the current trust there is unknown, and
 * update-assume-role-policy replaces the whole document).
 */
function outsideAccount(
  s: ClusterSnapshot,
  target: string,
  account: string,
  via: string,
  actions: readonly string[],
  group: ReadonlyArray<{ x: PodIdentityAssociation }>,
): FindingDraft {
  const users = accountsOf(group.map((h) => h.x));
  const spec = roleChainStatement(via, actions);
  return {
    severity: 'medium',
    subject: target,
    fingerprintKey: via,
    title: `Could not evaluate whether ${target} trusts ${via}: the role is in account ${account}, outside this monitor's account ${s.accountId}`,
    detail: `Not asserted either way: the target role of ${users.length} Pod Identity service account(s) is in account ${account}; the monitor reads roles of ${s.accountId} only, so its trust policy (which must let ${via} call ${actions.join(' and ')}) and its existence are not checked. ${via} is checked here: it must trust pods.eks.amazonaws.com, and its permission policy must allow ${actions.join(' and ')} on ${target}.`,
    evidence: {
      role: target,
      roleAccount: account,
      monitorAccount: s.accountId,
      principal: via,
      actions: [...actions],
      verdict: 'unknown',
      why: 'role in another account: not read',
      associations: group.map((h) => h.x.associationId).sort(),
    },
    blastRadius: serviceAccountBlastRadius(users),
    remediation: {
      summary: `In account ${account}, make sure the trust policy of ${target} lets ${via} call ${spec.actions.join(' and ')}.`,
      terraform: { hcl: trustHcl(`${terraformName(target)}_trust`, [spec]) },
      trustPolicy: trustDocument([spec]),
      notes: [`Apply in account ${account} (the target role's), merged into its current trust policy.`],
    },
  };
}
