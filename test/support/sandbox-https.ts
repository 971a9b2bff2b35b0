/** Test helpers: an EKS bearer token made like aws-cli / the adapter, and an HTTPS GET against the sandbox. */
import { request } from 'node:https';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

export interface TokenOptions {
  region?: string;
  host?: string;
  signingDate?: Date;
  signHeader?: boolean;
  extraQuery?: Record<string, string>;
}

export async function eksToken(
  cluster: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  options: TokenOptions = {},
): Promise<string> {
  const region = options.region ?? 'eu-west-1';
  const host = options.host ?? `sts.${region}.amazonaws.com`;
  const signer = new SignatureV4({ service: 'sts', region, credentials, sha256: Sha256 });
  const headers: Record<string, string> = { host };
  if (options.signHeader !== false) headers['x-k8s-aws-id'] = cluster;
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname: host,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15', ...options.extraQuery },
      headers,
    },
    { expiresIn: 60, ...(options.signingDate ? { signingDate: options.signingDate } : {}) },
  );
  const query = new URLSearchParams(presigned.query as Record<string, string>).toString();
  const url = `https://${host}/?${query}`;
  return `k8s-aws-v1.${Buffer.from(url).toString('base64url')}`;
}

export function httpsGet(
  url: string,
  ca: string,
  token?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'GET', ca, headers: token ? { authorization: `Bearer ${token}` } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> });
          } catch {
            resolve({ status: res.statusCode ?? 0, body: { raw: text } });
          }
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
