import { str } from '../fixes/remediation.ts';
import type { OidcProvider, ServiceAccount } from '../model.ts';
import type { Analysis } from '../predict/analysis.ts';
import type { HclItem } from '../quote/hcl.ts';
import { evaluateTrustPolicy } from '../workload-identity/iam-policy/evaluate.ts';
import {
  findOidcProvider,
  IRSA_AUDIENCE,
  irsaAccounts,
  irsaRequest,
  oidcProviderArn,
  okData,
  roleOf,
  saLabel,
  serviceAccountBlastRadius,
} from '../workload-identity/identity.ts';
import type { FindingDraft, Rule } from './types.ts';

const accountOf = (sa: ServiceAccount) => ({ namespace: sa.namespace, name: sa.name });

export const irsaOidcProviderMissing: Rule = {
  id: 'irsa/oidc-provider-missing',
  severity: 'high',
  kinds: ['state'],
  title: "Service accounts use IRSA but the cluster's OIDC issuer is not an IAM OIDC provider",
  meaning:
    "STS accepts a service account token only from an issuer the account registered as an IAM OIDC provider, and only for an audience in that provider's client IDs (the token's `aud`, sts.amazonaws.com unless the service account names another). A new cluster whose provider was never created (or one deleted), or a provider whose client IDs lost sts.amazonaws.com, leaves every IRSA pod without credentials (AssumeRoleWithWebIdentity fails).",
  fix: "Create the IAM OIDC provider for the cluster's issuer (client ID sts.amazonaws.com), or add the audience to the existing provider's client IDs.",
  evaluate({ current: a }) {
    const s = a.snapshot;
    const issuer = s.cluster.oidcIssuer;
    const accounts = irsaAccounts(s);
    const providers = okData(s.oidcProviders);
    if (!issuer || !accounts || accounts.length === 0 || !providers) return [];
    const provider = findOidcProvider(providers, issuer);
    if (provider) return audienceNotListed(a, provider, issuer, accounts);
    const arn = oidcProviderArn(s, issuer);
    const url = issuer.trim();
    return [
      {
        severity: 'high',
        subject: arn,
        title: `${accounts.length} IRSA service account(s) but no IAM OIDC provider for ${url}`,
        detail: `The account has ${providers.length} OIDC provider(s), none for this cluster's issuer: STS refuses every web identity token of the cluster.`,
        evidence: { issuer: url, providers: providers.map((p) => p.arn).sort() },
        blastRadius: serviceAccountBlastRadius(accounts.map(accountOf)),
        remediation: {
          summary: `Create the IAM OIDC provider for ${url}.`,
          cli: [
            {
              argv: [
                'aws',
                'iam',
                'create-open-id-connect-provider',
                { flag: '--url', value: url },
                { flag: '--client-id-list', value: IRSA_AUDIENCE },
              ],
            },
          ],
          terraform: providerTerraform(url, [IRSA_AUDIENCE]),
        },
      },
    ];
  },
};

type AudienceVerdict = 'ok' | 'broken' | 'unknown';

/**
 * The token's audience must be one of the provider's client IDs, and one the role's trust accepts.
 * Broken for certain when the trust accepts the default audience but no listed client ID; when a
 * listed client ID is accepted the service account may name it (`eks.amazonaws.com/audience`, not
 * captured): nothing is said. A trust denying the default audience too is
 * `irsa/trust-missing-cluster-issuer`'s finding, not this one.
 */
function audienceVerdict(
  trust: string,
  provider: OidcProvider,
  issuer: string,
  sa: ServiceAccount,
): AudienceVerdict {
  const decide = (audience: string) =>
    evaluateTrustPolicy(trust, irsaRequest(provider.arn, issuer, accountOf(sa), audience)).decision;
  const listed = (provider.clientIds ?? []).map(decide);
  if (listed.includes('allowed')) return 'ok';
  const byDefault = decide(IRSA_AUDIENCE);
  if (byDefault === 'denied' || byDefault === 'invalid') return 'ok';
  return listed.some((d) => d !== 'denied') || byDefault === 'unknown' ? 'unknown' : 'broken';
}

/** The provider exists, but does not list the audience the IRSA tokens carry (from GetOpenIDConnectProvider). */
function audienceNotListed(
  a: Analysis,
  provider: OidcProvider,
  issuer: string,
  accounts: readonly ServiceAccount[],
): FindingDraft[] {
  const clientIds = provider.clientIds;
  // Not read (a snapshot from before client IDs were captured), or the default audience is listed.
  if (clientIds === undefined || clientIds.includes(IRSA_AUDIENCE)) return [];
  const judged = accounts.flatMap((sa) => {
    const role = roleOf(a, (sa.roleArnAnnotation ?? '').trim());
    if (role?.state !== 'exists' || role.trustPolicy === undefined) return [];
    return [{ sa, verdict: audienceVerdict(role.trustPolicy, provider, issuer, sa) }];
  });
  const broken = judged.filter((j) => j.verdict === 'broken');
  const unknown = judged.filter((j) => j.verdict === 'unknown');
  const failing = broken.length > 0 ? broken : unknown;
  if (failing.length === 0) return [];
  const certain = broken.length > 0;
  const names = failing.map((j) => saLabel(j.sa.namespace, j.sa.name)).sort();
  // IAM allows 100 client IDs of 255 characters: the detail names the first few.
  const shown =
    clientIds.slice(0, 5).join(', ') + (clientIds.length > 5 ? ` and ${clientIds.length - 5} more` : '');
  const listed = clientIds.length === 0 ? 'no client ID' : `only ${shown}`;
  return [
    {
      severity: certain ? 'high' : 'medium',
      subject: provider.arn,
      fingerprintKey: 'audience',
      title: certain
        ? `The IAM OIDC provider of ${issuer.trim()} does not list ${IRSA_AUDIENCE}: ${names.length} IRSA service account(s) get no credentials`
        : `Could not evaluate whether the IRSA tokens' audience is among the client IDs of the IAM OIDC provider of ${issuer.trim()}`,
      detail: certain
        ? `GetOpenIDConnectProvider lists ${listed}. The service accounts' tokens carry aud ${IRSA_AUDIENCE} (their roles' trust accepts it, and no listed client ID): STS refuses AssumeRoleWithWebIdentity with InvalidIdentityToken.${unknown.length > 0 ? ` For ${unknown.length} more service account(s) a trust condition could not be evaluated.` : ''}`
        : `Not asserted either way: the provider lists ${listed}, and a trust condition on the audience cannot be decided from the snapshot.`,
      evidence: {
        provider: provider.arn,
        clientIds: [...clientIds],
        audience: IRSA_AUDIENCE,
        verdict: certain ? 'broken' : 'unknown',
        serviceAccounts: names,
      },
      blastRadius: serviceAccountBlastRadius(failing.map((j) => accountOf(j.sa))),
      remediation: {
        summary: `Add ${IRSA_AUDIENCE} to the client IDs of ${provider.arn}.`,
        cli: [
          {
            argv: [
              'aws',
              'iam',
              'add-client-id-to-open-id-connect-provider',
              { flag: '--open-id-connect-provider-arn', value: provider.arn },
              { flag: '--client-id', value: IRSA_AUDIENCE },
            ],
          },
        ],
        terraform: providerTerraform(issuer.trim(), [...new Set([...clientIds, IRSA_AUDIENCE])]),
      },
    },
  ];
}

/** The `aws_iam_openid_connect_provider` resource for the issuer with these client IDs. */
function providerTerraform(url: string, clientIds: readonly string[]): { hcl: HclItem[] } {
  return {
    hcl: [
      {
        block: 'resource',
        labels: ['aws_iam_openid_connect_provider', 'cluster'],
        body: [
          { name: 'url', value: str(url) },
          { name: 'client_id_list', value: { list: clientIds } },
        ],
      },
    ],
  };
}
