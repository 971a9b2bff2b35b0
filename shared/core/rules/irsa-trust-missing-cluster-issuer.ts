import type { ServiceAccount } from '../model.ts';
import {
  checkTrust,
  findOidcProvider,
  groupBy,
  irsaAccounts,
  irsaRequest,
  irsaStatement,
  oidcProviderArn,
  okData,
  roleOf,
  saLabel,
  serviceAccountBlastRadius,
  trustFix,
  trustVerdict,
  WEB_IDENTITY_ACTION,
} from '../workload-identity/identity.ts';
import type { FindingDraft, Rule } from './types.ts';

const account = (sa: ServiceAccount) => ({ namespace: sa.namespace, name: sa.name });

export const irsaTrustMissingClusterIssuer: Rule = {
  id: 'irsa/trust-missing-cluster-issuer',
  severity: 'high',
  kinds: ['state'],
  title: "A service account's IRSA role does not trust this cluster's OIDC provider",
  meaning:
    "IRSA binds a role's trust policy to one cluster's OIDC issuer (Federated principal, sts:AssumeRoleWithWebIdentity, a `sub` of system:serviceaccount:<namespace>:<name>). A new cluster (blue/green upgrade) has a new issuer: every role whose trust names only the old one fails there. Where a condition cannot be evaluated from the snapshot, the finding says so instead of asserting.",
  fix: "Add a statement for this cluster's OIDC provider with the service account's `sub` to the role's trust, or move the service account to Pod Identity (no cluster in the trust).",
  evaluate({ current: a }) {
    const s = a.snapshot;
    const issuer = s.cluster.oidcIssuer;
    const accounts = irsaAccounts(s);
    if (!accounts || !issuer || s.iamRoles.status !== 'ok') return [];
    const providers = okData(s.oidcProviders);
    const providerArn = (providers && findOidcProvider(providers, issuer)?.arn) ?? oidcProviderArn(s, issuer);
    const out: FindingDraft[] = [];
    for (const [, group] of groupBy(accounts, (sa) => (sa.roleArnAnnotation ?? '').trim().toLowerCase())) {
      const roleArn = (group[0]?.roleArnAnnotation ?? '').trim();
      const role = roleOf(a, roleArn);
      if (role?.state !== 'exists' || role.trustPolicy === undefined) continue;
      const trust = role.trustPolicy;
      const judged = group.map((sa) => ({
        sa,
        verdict: trustVerdict(checkTrust(trust, [irsaRequest(providerArn, issuer, account(sa))])),
      }));
      const broken = judged.filter((j) => j.verdict.verdict === 'broken');
      const unknown = judged.filter((j) => j.verdict.verdict === 'unknown');
      const failing = broken.length > 0 ? broken : unknown;
      const firstFailing = failing[0];
      if (!firstFailing) continue;
      const certain = broken.length > 0;
      const names = failing.map((j) => saLabel(j.sa.namespace, j.sa.name)).sort();
      const why = firstFailing.verdict.verdict === 'ok' ? '' : firstFailing.verdict.why;
      out.push({
        severity: certain ? 'high' : 'medium',
        subject: role.arn,
        title: certain
          ? `${role.arn} does not trust this cluster's OIDC provider for ${names.length} IRSA service account(s): ${names.slice(0, 3).join(', ')}${names.length > 3 ? ' …' : ''}`
          : `Could not evaluate whether ${role.arn} trusts this cluster's OIDC provider: a trust condition cannot be decided from the snapshot`,
        detail: certain
          ? `For ${WEB_IDENTITY_ACTION} from ${providerArn}: ${why}. Pods with these service accounts get no AWS credentials on this cluster (typical after a blue/green move: the trust names the old cluster's issuer).${unknown.length > 0 ? ` For ${unknown.length} more service account(s) a condition could not be evaluated.` : ''}`
          : `Not asserted either way: ${why}.`,
        evidence: {
          role: role.arn,
          oidcProvider: providerArn,
          issuer,
          verdict: certain ? 'broken' : 'unknown',
          serviceAccounts: names,
        },
        blastRadius: serviceAccountBlastRadius(failing.map((j) => account(j.sa))),
        remediation: {
          ...trustFix(
            role,
            [
              irsaStatement(
                providerArn,
                issuer,
                failing.map((j) => account(j.sa)),
              ),
            ],
            `Add a trust statement for ${providerArn} with the service accounts' sub to ${role.arn}, or move them to Pod Identity.`,
          ),
          notes: [
            'Pod Identity needs no cluster-specific trust: see the IRSA → Pod Identity plan of `compare` and `report`.',
          ],
        },
      });
    }
    return out;
  },
};
