/**
 * Verification of EKS bearer tokens the way aws-iam-authenticator `pkg/token/token.go` does, plus
 * what STS would check: `k8s-aws-v1.` + base64url (no padding) of a presigned STS
 * GetCallerIdentity URL, at most 4 KiB, an STS host, path `/`, only allow-listed query
 * parameters, `x-k8s-aws-id` signed, signed no more than 15 minutes ago — and the SigV4
 * signature recomputed with the sandbox's secret, with `x-k8s-aws-id` set to THIS cluster's name.
 */
import {
  canonicalRequest,
  computeSignature,
  parseAmzDate,
  parseCredential,
  type QueryParams,
  signaturesEqual,
} from './sigv4.ts';

export const TOKEN_PREFIX = 'k8s-aws-v1.';
const MAX_TOKEN_BYTES = 4 * 1024;
const TOKEN_LIFETIME_MS = 15 * 60_000;
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** pkg/token/token.go `parameterWhitelist`. */
const ALLOWED_PARAMS = new Set([
  'action',
  'version',
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-security-token',
  'x-amz-signature',
  'x-amz-signedheaders',
]);

const STS_HOST = /^sts(-fips)?(\.[a-z0-9-]+)?\.(amazonaws\.com(\.cn)?|api\.aws)$/;

export type TokenResult = { ok: true; accessKeyId: string } | { ok: false; reason: string };

export function verifyEksToken(
  token: string,
  clusterName: string,
  lookupSecret: (accessKeyId: string) => string | undefined,
  now: number,
): TokenResult {
  const bad = (reason: string): TokenResult => ({ ok: false, reason });
  if (Buffer.byteLength(token) > MAX_TOKEN_BYTES) return bad('token is too large');
  if (!token.startsWith(TOKEN_PREFIX)) return bad('token is missing the expected "k8s-aws-v1." prefix');
  const encoded = token.slice(TOKEN_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return bad('token is not base64url without padding');
  const decoded = Buffer.from(encoded, 'base64url').toString('utf8');
  let url: URL;
  try {
    url = new URL(decoded);
  } catch {
    return bad('token does not hold a URL');
  }
  if (url.protocol !== 'https:') return bad('unexpected scheme in pre-signed URL');
  if (url.port !== '' || !STS_HOST.test(url.hostname))
    return bad(`unexpected hostname ${url.hostname} in pre-signed URL`);
  if (url.pathname !== '/') return bad('unexpected path in pre-signed URL');
  if (url.username !== '' || url.password !== '' || url.hash !== '') return bad('unexpected URL parts');
  const rawQuery = decoded.includes('?') ? decoded.slice(decoded.indexOf('?') + 1) : '';
  const query: QueryParams = new Map();
  const lower = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(rawQuery)) {
    const lk = k.toLowerCase();
    if (!ALLOWED_PARAMS.has(lk)) return bad(`non-whitelisted query parameter ${k}`);
    if (lower.has(lk)) return bad(`query parameter ${k} given more than once`);
    lower.set(lk, v);
    query.set(k, [v]);
  }
  if (lower.get('action') !== 'GetCallerIdentity')
    return bad('unexpected action parameter in pre-signed URL');
  if (lower.get('version') !== '2011-06-15') return bad('unexpected version parameter in pre-signed URL');
  if (lower.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256') return bad('unexpected X-Amz-Algorithm');
  const signedHeaders = (lower.get('x-amz-signedheaders') ?? '').split(';');
  if (!signedHeaders.includes('x-k8s-aws-id'))
    return bad('client did not sign the x-k8s-aws-id header in the pre-signed URL');
  if (!signedHeaders.includes('host')) return bad('client did not sign the host header');
  if (signedHeaders.some((h) => h !== 'host' && h !== 'x-k8s-aws-id')) {
    return bad('pre-signed URL signs headers the server cannot reproduce');
  }
  const expires = lower.get('x-amz-expires');
  if (expires === undefined || !/^\d+$/.test(expires) || Number(expires) > 900)
    return bad('invalid X-Amz-Expires');
  const longDate = lower.get('x-amz-date') ?? '';
  const signedAt = parseAmzDate(longDate);
  if (signedAt === undefined) return bad('error parsing X-Amz-Date');
  if (now > signedAt + TOKEN_LIFETIME_MS)
    return bad('X-Amz-Date parameter is expired (15 minute expiration)');
  if (signedAt > now + 5 * 60_000) return bad('X-Amz-Date parameter is in the future');
  const scope = parseCredential(lower.get('x-amz-credential') ?? '');
  if (scope?.service !== 'sts' || !longDate.startsWith(scope.date)) return bad('invalid X-Amz-Credential');
  const signature = lower.get('x-amz-signature') ?? '';
  const secret = lookupSecret(scope.accessKeyId);
  if (secret === undefined) return bad('the security token included in the request is invalid');
  const canonical = canonicalRequest({
    method: 'GET',
    rawPath: '/',
    query,
    headers: { host: url.host, 'x-k8s-aws-id': clusterName },
    signedHeaders,
    payloadHash: EMPTY_SHA256,
  });
  const expected = computeSignature(secret, longDate, scope, canonical);
  if (!signaturesEqual(expected, signature))
    return bad('signature does not match (wrong secret, tampered URL or another cluster)');
  return { ok: true, accessKeyId: scope.accessKeyId };
}
