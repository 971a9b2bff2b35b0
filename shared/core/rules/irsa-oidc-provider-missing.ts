import { str } from '../remediation.ts';
import {
  findOidcProvider,
  IRSA_AUDIENCE,
  irsaAccounts,
  oidcProviderArn,
  okData,
  serviceAccountBlastRadius,
} from '../workload-identity.ts';
import type { Rule } from './types.ts';

export const irsaOidcProviderMissing: Rule = {
  id: 'irsa/oidc-provider-missing',
  severity: 'high',
  kinds: ['state'],
  title: "Service accounts use IRSA but the cluster's OIDC issuer is not an IAM OIDC provider",
  meaning:
    'STS accepts a service account token only from an issuer the account registered as an IAM OIDC provider. A new cluster whose provider was never created (or one deleted) leaves every IRSA pod without credentials.',
  fix: "Create the IAM OIDC provider for the cluster's issuer (client ID sts.amazonaws.com).",
  evaluate({ current: a }) {
    const s = a.snapshot;
    const issuer = s.cluster.oidcIssuer;
    const accounts = irsaAccounts(s);
    const providers = okData(s.oidcProviders);
    if (!issuer || !accounts || accounts.length === 0 || !providers) return [];
    if (findOidcProvider(providers, issuer)) return [];
    const arn = oidcProviderArn(s, issuer);
    const url = issuer.trim();
    return [
      {
        severity: 'high',
        subject: arn,
        title: `${accounts.length} IRSA service account(s) but no IAM OIDC provider for ${url}`,
        detail: `The account has ${providers.length} OIDC provider(s), none for this cluster's issuer: STS refuses every web identity token of the cluster.`,
        evidence: { issuer: url, providers: providers.map((p) => p.arn).sort() },
        blastRadius: serviceAccountBlastRadius(
          accounts.map((x) => ({ namespace: x.namespace, name: x.name })),
        ),
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
          terraform: {
            hcl: [
              {
                block: 'resource',
                labels: ['aws_iam_openid_connect_provider', 'cluster'],
                body: [
                  { name: 'url', value: str(url) },
                  { name: 'client_id_list', value: { list: [IRSA_AUDIENCE] } },
                ],
              },
            ],
          },
        },
      },
    ];
  },
};
