/**
 * The EKS bearer token (docs/eks-auth-semantics.md#the-eks-bearer-token, trap 19 of
 * docs/eks-auth-semantics.md#traps), as aws-cli `customizations/eks/get_token.py` and
 * aws-iam-authenticator `pkg/token/token.go` make it:
 *   `'k8s-aws-v1.' + base64url-without-padding(presigned STS GetCallerIdentity GET URL)`
 * with host `sts.<region>.amazonaws.com`, path `/`, query `Action=GetCallerIdentity&
 * Version=2011-06-15`, the header `x-k8s-aws-id: <cluster name>` signed, `X-Amz-Expires=60`.
 * The token is valid 15 minutes after X-Amz-Date; it is cached per cluster + Region + access key
 * for 13 minutes (below aws-cli's 14), and never beyond the credentials' own expiry.
 * A token is a credential: it is never logged nor put in an error message.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { TokenError } from '../errors.ts';
import type { CredentialsInput, StaticCredentials } from './aws-clients.ts';

export const TOKEN_PREFIX = 'k8s-aws-v1.';
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
export const PRESIGN_EXPIRES_SECONDS = 60;
/** How long a token is reused: below aws-cli's 14 minutes, so a request never carries one about to expire. */
export const TOKEN_CACHE_MS = 13 * 60_000;

export interface EksTokenProvider {
  token(clusterName: string, region: string): Promise<string>;
}

export interface EksTokenOptions {
  /** Credentials or a provider; default: `defaultProvider()` of `@aws-sdk/credential-provider-node`. */
  credentials?: CredentialsInput;
  now?: () => Date;
}

export function stsHostname(region: string): string {
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `sts.${region}.${suffix}`;
}

/** RFC 3986 encoding as SigV4 expects it. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function base64UrlNoPadding(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url').replace(/=+$/, '');
}

/** Presigns the STS GetCallerIdentity URL for `clusterName` and returns the bearer token. */
export async function createEksToken(
  clusterName: string,
  region: string,
  credentials: StaticCredentials,
  signingDate: Date = new Date(),
): Promise<string> {
  const hostname = stsHostname(region);
  const signer = new SignatureV4({ credentials, region, service: 'sts', sha256: Sha256 });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: clusterName },
    },
    { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate },
  );
  const query = Object.entries(signed.query ?? {})
    .flatMap(([key, value]) =>
      (Array.isArray(value) ? value : [value ?? '']).map((v) => `${encodeRfc3986(key)}=${encodeRfc3986(v)}`),
    )
    .join('&');
  const url = `https://${hostname}/?${query}`;
  return TOKEN_PREFIX + base64UrlNoPadding(url);
}

export function createEksTokenProvider(options: EksTokenOptions = {}): EksTokenProvider {
  const credentialsInput = options.credentials ?? defaultProvider();
  const now = options.now ?? (() => new Date());
  const cache = new Map<string, { token: string; expiresAt: number }>();

  async function resolveCredentials(): Promise<StaticCredentials> {
    try {
      return typeof credentialsInput === 'function' ? await credentialsInput() : credentialsInput;
    } catch (error) {
      throw new TokenError('no AWS credentials to sign the EKS token with', {
        code: 'unauthorized',
        service: 'sts',
        operation: 'GetCallerIdentity (presign)',
        cause: error,
      });
    }
  }

  return {
    async token(clusterName, region) {
      const credentials = await resolveCredentials();
      const key = `${region}\u0000${clusterName}\u0000${credentials.accessKeyId}`;
      const at = now();
      const cached = cache.get(key);
      if (cached !== undefined && at.getTime() < cached.expiresAt) return cached.token;
      let token: string;
      try {
        token = await createEksToken(clusterName, region, credentials, at);
      } catch (error) {
        throw new TokenError(`could not sign the EKS token for cluster ${clusterName}`, {
          code: 'invalid-response',
          service: 'sts',
          operation: 'GetCallerIdentity (presign)',
          cluster: clusterName,
          cause: error,
        });
      }
      const credentialLimit = credentials.expiration?.getTime() ?? Number.POSITIVE_INFINITY;
      cache.set(key, { token, expiresAt: Math.min(at.getTime() + TOKEN_CACHE_MS, credentialLimit - 60_000) });
      return token;
    },
  };
}
