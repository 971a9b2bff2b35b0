import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEksToken, createEksTokenProvider, TOKEN_PREFIX } from '../../shared/adapters/kube-token.ts';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const signingDate = new Date('2026-11-29T20:00:00Z');

function decode(token: string): URL {
  expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
  const body = token.slice(TOKEN_PREFIX.length);
  expect(body).toMatch(/^[A-Za-z0-9_-]+$/); // base64url alphabet, no '=' padding
  return new URL(Buffer.from(body, 'base64url').toString('utf8'));
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const enc = (v: string) =>
  encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** An independent SigV4 check of the presigned URL (what STS does), with the cluster header. */
function expectedSignature(url: URL, clusterName: string, secret: string): string {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== 'X-Amz-Signature');
  const canonicalQuery = params
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    'GET',
    '/',
    canonicalQuery,
    `host:${url.host}\nx-k8s-aws-id:${clusterName}\n`,
    'host;x-k8s-aws-id',
    createHash('sha256').update('').digest('hex'),
  ].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date') ?? '';
  const scope = (url.searchParams.get('X-Amz-Credential') ?? '').split('/').slice(1).join('/');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const [day, region, service] = scope.split('/');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day ?? ''), region ?? ''), service ?? ''), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

describe('createEksToken', () => {
  it('is k8s-aws-v1. + unpadded base64url of a presigned STS GetCallerIdentity URL for the Region', async () => {
    const url = decode(await createEksToken('prod', 'eu-west-1', credentials, signingDate));
    expect(url.protocol).toBe('https:');
    expect(url.hostname).toBe('sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(url.searchParams.get('Version')).toBe('2011-06-15');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261129T200000Z');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20261129/eu-west-1/sts/aws4_request');
  });

  it('signs the x-k8s-aws-id header (it travels as a header, not in the query)', async () => {
    const url = decode(await createEksToken('prod', 'eu-west-1', credentials, signingDate));
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(url.searchParams.has('x-k8s-aws-id')).toBe(false);
  });

  it('carries a signature that verifies for the cluster name and not for another', async () => {
    const url = decode(await createEksToken('prod', 'eu-west-1', credentials, signingDate));
    const signature = url.searchParams.get('X-Amz-Signature');
    expect(signature).toBe(expectedSignature(url, 'prod', credentials.secretAccessKey));
    expect(signature).not.toBe(expectedSignature(url, 'staging', credentials.secretAccessKey));
  });

  it('includes the session token of temporary credentials', async () => {
    const url = decode(
      await createEksToken(
        'prod',
        'us-east-1',
        { ...credentials, sessionToken: 'FwoGZXIvYXdzE+/=' },
        signingDate,
      ),
    );
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('FwoGZXIvYXdzE+/=');
    expect(url.searchParams.get('X-Amz-Signature')).toBe(
      expectedSignature(url, 'prod', credentials.secretAccessKey),
    );
  });

  it('stays under the authenticator’s 4 KiB token limit', async () => {
    const token = await createEksToken('a'.repeat(100), 'ap-southeast-2', {
      ...credentials,
      sessionToken: 'x'.repeat(1000),
    });
    expect(token.length).toBeLessThan(4096);
  });
});

describe('createEksTokenProvider', () => {
  it('reuses a token for 13 minutes per cluster, Region and access key, then makes a new one', async () => {
    let now = signingDate.getTime();
    const provider = createEksTokenProvider({ credentials, now: () => new Date(now) });
    const first = await provider.token('prod', 'eu-west-1');
    now += 12 * 60_000;
    expect(await provider.token('prod', 'eu-west-1')).toBe(first);
    expect(await provider.token('staging', 'eu-west-1')).not.toBe(first);
    expect(await provider.token('prod', 'us-east-1')).not.toBe(first);
    now += 60_000 + 1;
    const later = await provider.token('prod', 'eu-west-1');
    expect(later).not.toBe(first);
    expect(decode(later).searchParams.get('X-Amz-Date')).toBe('20261129T201300Z');
  });

  it('does not reuse a token beyond the credentials’ expiry', async () => {
    let now = signingDate.getTime();
    const expiring = { ...credentials, sessionToken: 't', expiration: new Date(now + 5 * 60_000) };
    const provider = createEksTokenProvider({ credentials: async () => expiring, now: () => new Date(now) });
    const first = await provider.token('prod', 'eu-west-1');
    now += 4 * 60_000 + 1;
    expect(await provider.token('prod', 'eu-west-1')).not.toBe(first);
  });

  it('fails with a TokenError naming no secret when there are no credentials', async () => {
    const provider = createEksTokenProvider({
      credentials: async () => {
        throw new Error('Could not load credentials from any providers');
      },
    });
    await expect(provider.token('prod', 'eu-west-1')).rejects.toMatchObject({
      name: 'TokenError',
      code: 'unauthorized',
    });
  });
});
