/**
 * AWS Signature Version 4, verification side: recompute the signature of a received request (header
 * or query authentication) with the sandbox's secret and compare. Canonicalisation follows
 * @smithy/signature-v4 (the signer every SDK v3 client uses): non-S3 services double-encode the path,
 * the canonical query is sorted and RFC 3986-encoded, header values are trimmed and space-collapsed.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export function escapeUri(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Canonical URI as @smithy/signature-v4 builds it with `uriEscapePath` (every service but S3). */
export function canonicalPath(rawPath: string): string {
  const segments: string[] = [];
  for (const segment of rawPath.split('/')) {
    if (segment.length === 0 || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normalized = `${rawPath.startsWith('/') ? '/' : ''}${segments.join('/')}${
    segments.length > 0 && rawPath.endsWith('/') ? '/' : ''
  }`;
  return escapeUri(normalized).replace(/%2F/g, '/');
}

/** Decoded query parameters, repeated keys kept in order. */
export type QueryParams = Map<string, string[]>;

export function parseQuery(rawQuery: string): QueryParams {
  const params: QueryParams = new Map();
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    const list = params.get(key);
    if (list) list.push(value);
    else params.set(key, [value]);
  }
  return params;
}

export function canonicalQuery(query: QueryParams): string {
  const parts: Array<[string, string]> = [];
  for (const [key, values] of query) {
    if (key.toLowerCase() === 'x-amz-signature') continue;
    const encodedKey = escapeUri(key);
    const encoded = values.map((v) => `${encodedKey}=${escapeUri(v)}`).sort();
    parts.push([encodedKey, encoded.join('&')]);
  }
  parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return parts.map((p) => p[1]).join('&');
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

export interface CanonicalInput {
  method: string;
  rawPath: string;
  query: QueryParams;
  /** Lower-cased header names → value. Only the signed ones are used. */
  headers: Record<string, string>;
  signedHeaders: string[];
  payloadHash: string;
}

export function canonicalRequest(input: CanonicalInput): string {
  const names = [...input.signedHeaders].sort();
  const lines = names.map((n) => `${n}:${(input.headers[n] ?? '').trim().replace(/\s+/g, ' ')}`);
  return [
    input.method,
    canonicalPath(input.rawPath),
    canonicalQuery(input.query),
    `${lines.join('\n')}\n`,
    names.join(';'),
    input.payloadHash,
  ].join('\n');
}

export function computeSignature(
  secretAccessKey: string,
  longDate: string,
  scope: { date: string; region: string; service: string },
  canonical: string,
): string {
  const scopeString = `${scope.date}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = [ALGORITHM, longDate, scopeString, sha256Hex(canonical)].join('\n');
  const kDate = hmac(`AWS4${secretAccessKey}`, scope.date);
  const kRegion = hmac(kDate, scope.region);
  const kService = hmac(kRegion, scope.service);
  const kSigning = hmac(kService, 'aws4_request');
  return createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
}

export function signaturesEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

export interface CredentialScope {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
}

export function parseCredential(value: string): CredentialScope | undefined {
  const parts = value.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request') return undefined;
  const [accessKeyId, date, region, service] = parts as [string, string, string, string, string];
  if (!/^\d{8}$/.test(date) || accessKeyId === '' || region === '' || service === '') return undefined;
  return { accessKeyId, date, region, service };
}

/** Parses `X-Amz-Date` / `x-amz-date` (`YYYYMMDDTHHMMSSZ`) to epoch milliseconds. */
export function parseAmzDate(value: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isNaN(ms) ? undefined : ms;
}

export interface ReceivedRequest {
  method: string;
  rawPath: string;
  query: QueryParams;
  headers: Record<string, string>;
  body: Buffer;
}

export type VerifyResult =
  | { ok: true; scope: CredentialScope }
  | { ok: false; code: 'missing' | 'malformed' | 'unknown-key' | 'signature' | 'expired'; message: string };

/**
 * Verifies a header-signed (`Authorization: AWS4-HMAC-SHA256 …`) or query-signed (presigned)
 * request. `lookupSecret` returns the secret of an access key ID, or undefined when unknown.
 */
export function verifyRequest(
  req: ReceivedRequest,
  lookupSecret: (accessKeyId: string) => string | undefined,
  now: number,
): VerifyResult {
  const auth = req.headers.authorization;
  let credential: string;
  let signedHeaders: string[];
  let signature: string;
  let longDate: string;
  let payloadHash: string;
  let query = req.query;
  if (auth !== undefined) {
    const m =
      /^AWS4-HMAC-SHA256\s+Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})\s*$/.exec(
        auth,
      );
    if (!m) return { ok: false, code: 'malformed', message: 'Authorization header is malformed.' };
    credential = m[1] as string;
    signedHeaders = (m[2] as string).split(';');
    signature = m[3] as string;
    longDate = req.headers['x-amz-date'] ?? '';
    payloadHash = req.headers['x-amz-content-sha256'] ?? sha256Hex(req.body);
  } else {
    const one = (k: string): string | undefined => {
      const v = req.query.get(k);
      return v && v.length === 1 ? v[0] : undefined;
    };
    if (one('X-Amz-Signature') === undefined) {
      return { ok: false, code: 'missing', message: 'Request is missing Authentication Token' };
    }
    if (one('X-Amz-Algorithm') !== ALGORITHM) {
      return { ok: false, code: 'malformed', message: 'Unsupported X-Amz-Algorithm.' };
    }
    credential = one('X-Amz-Credential') ?? '';
    signedHeaders = (one('X-Amz-SignedHeaders') ?? '').split(';');
    signature = one('X-Amz-Signature') ?? '';
    longDate = one('X-Amz-Date') ?? '';
    payloadHash = req.body.length === 0 ? EMPTY_SHA256 : sha256Hex(req.body);
    const expires = Number(one('X-Amz-Expires') ?? 'NaN');
    const signedAt = parseAmzDate(longDate);
    if (!Number.isInteger(expires) || expires < 0 || signedAt === undefined) {
      return { ok: false, code: 'malformed', message: 'X-Amz-Expires or X-Amz-Date is malformed.' };
    }
    if (now > signedAt + expires * 1000) {
      return { ok: false, code: 'expired', message: 'Request has expired.' };
    }
    query = req.query;
  }
  const scope = parseCredential(credential);
  if (!scope) return { ok: false, code: 'malformed', message: 'Credential is malformed.' };
  if (!longDate.startsWith(scope.date)) {
    return { ok: false, code: 'malformed', message: 'Credential date does not match X-Amz-Date.' };
  }
  const signedAt = parseAmzDate(longDate);
  if (signedAt === undefined) return { ok: false, code: 'malformed', message: 'X-Amz-Date is malformed.' };
  if (auth !== undefined && Math.abs(now - signedAt) > 15 * 60_000) {
    return {
      ok: false,
      code: 'expired',
      message: 'Signature expired: the request time is more than 15 minutes from the server time.',
    };
  }
  if (!signedHeaders.includes('host')) {
    return { ok: false, code: 'malformed', message: "Signed headers must include 'host'." };
  }
  const secret = lookupSecret(scope.accessKeyId);
  if (secret === undefined) {
    return {
      ok: false,
      code: 'unknown-key',
      message: 'The security token included in the request is invalid.',
    };
  }
  const canonical = canonicalRequest({
    method: req.method,
    rawPath: req.rawPath,
    query,
    headers: req.headers,
    signedHeaders,
    payloadHash,
  });
  const expected = computeSignature(secret, longDate, scope, canonical);
  if (!signaturesEqual(expected, signature)) {
    return {
      ok: false,
      code: 'signature',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  }
  return { ok: true, scope };
}
