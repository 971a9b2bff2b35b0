/**
 * Both Kubernetes readers against endpoints that cannot be reached — a closed port and a server
 * that accepts and never answers — say `could not reach the API server: …` with the failure, the
 * phrase monitor/source-unavailable reads back (test/core/endpoint-access.test.ts).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../infra/sandbox/index.ts';
import { startSandbox } from '../../infra/sandbox/index.ts';
import { createEksClient, createEksReader } from '../../shared/adapters/eks.ts';
import { createEksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createKubeReader } from '../../shared/adapters/kubernetes.ts';
import { createAwsAuthReader } from '../../shared/adapters/kubernetes-aws-auth.ts';
import type { KubeClusterRef } from '../../shared/ports.ts';
import { clientOptions, loadScenario } from '../support/sandbox-helpers.ts';

let sandbox: Sandbox;
let ca: string;
let closedPort: number;
let silent: Server;
const sockets: Socket[] = [];
const fast = { baseDelayMs: 5, budgetMs: 1_500, requestTimeoutMs: 300, maxAttempts: 2 };

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );

beforeAll(async () => {
  sandbox = await startSandbox({
    clusters: [{ snapshot: loadScenario('a-karpenter-shares-last-nodegroup-role') }],
  });
  const eks = createEksReader(createEksClient('eu-west-1', clientOptions(sandbox)));
  ca = (await eks.describeCluster('prod')).certificateAuthorityData ?? '';
  const closed = createServer();
  closedPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
  silent = createServer((socket) => sockets.push(socket)); // accepts, never answers
  await listen(silent);
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  await sandbox.close();
});

const ref = (port: number): KubeClusterRef => ({
  accountId: '111122223333',
  clusterName: 'prod',
  region: 'eu-west-1',
  endpoint: `https://127.0.0.1:${port}`,
  certificateAuthorityData: ca,
});

async function rejection(read: () => Promise<unknown>): Promise<{ message: string; code: string }> {
  try {
    await read();
  } catch (error) {
    return error as { message: string; code: string };
  }
  throw new Error('expected a rejection');
}

describe('Kubernetes readers on an unreachable endpoint', () => {
  const tokens = () => createEksTokenProvider({ credentials: sandbox.credentials });

  it('a closed port: connection refused (ECONNREFUSED), unavailable', async () => {
    const full = createKubeReader({ tokens: tokens(), ...fast });
    const lite = createAwsAuthReader({ tokens: tokens(), ...fast });
    for (const read of [
      () => full.awsAuth(ref(closedPort)),
      () => full.nodes(ref(closedPort)),
      () => lite.awsAuth(ref(closedPort)),
    ]) {
      const e = await rejection(read);
      expect(e.message).toMatch(
        /on cluster prod: could not reach the API server: connection refused \(ECONNREFUSED\)$/,
      );
      expect(e.code).toBe('unavailable');
    }
  });

  it('an endpoint that never answers: timed out, timeout', async () => {
    const port = (silent.address() as { port: number }).port;
    const full = createKubeReader({ tokens: tokens(), ...fast });
    const lite = createAwsAuthReader({ tokens: tokens(), ...fast });
    for (const read of [() => full.awsAuth(ref(port)), () => lite.awsAuth(ref(port))]) {
      const e = await rejection(read);
      expect(e.message).toContain(
        'on cluster prod: could not reach the API server: timed out (no answer from the endpoint)',
      );
      expect(e.code).toBe('timeout');
    }
  });
});
