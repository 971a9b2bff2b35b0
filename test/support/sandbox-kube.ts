/** Test helpers: @kubernetes/client-node configured for a sandbox cluster and principal. */
import { KubeConfig } from '@kubernetes/client-node';
import type { Sandbox } from '../../infra/sandbox/index.ts';
import { eksToken } from './sandbox-https.ts';

export async function kubeConfig(
  s: Sandbox,
  cluster: string,
  credentials: { accessKeyId: string; secretAccessKey: string } = s.credentials,
): Promise<KubeConfig> {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: cluster,
        server: s.cluster(cluster).endpoint,
        caData: Buffer.from(s.caPem).toString('base64'),
        skipTLSVerify: false,
      },
    ],
    users: [{ name: 'u', token: await eksToken(cluster, credentials) }],
    contexts: [{ name: cluster, cluster, user: 'u' }],
    currentContext: cluster,
  });
  return kc;
}

/** The `Status` body of a failed client-node call. */
export function statusOf(err: unknown): Record<string, unknown> {
  const body = (err as { body?: unknown }).body;
  if (typeof body === 'string') return JSON.parse(body) as Record<string, unknown>;
  return (body ?? {}) as Record<string, unknown>;
}
