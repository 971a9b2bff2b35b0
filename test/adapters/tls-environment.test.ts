/**
 * Issue 8 case 8: TLS verification does not depend on the environment. With
 * NODE_TLS_REJECT_UNAUTHORIZED=0 set (as some debugging guides suggest), every client still
 * refuses a server whose certificate does not verify, before it sends anything — the EKS token
 * or a SigV4 signature never reaches it. (vitest runs each file in its own process: the variable
 * set here does not leak into other files.)
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTls } from '../../infra/sandbox/certs.ts';
import { createEc2Client, createEc2Reader } from '../../shared/adapters/ec2.ts';
import { createEksClient, createEksReader } from '../../shared/adapters/eks.ts';
import type { EksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createKubeReader } from '../../shared/adapters/kubernetes.ts';
import { createAwsAuthReader } from '../../shared/adapters/kubernetes-aws-auth.ts';
import { TlsVerificationError } from '../../shared/errors.ts';
import type { KubeClusterRef } from '../../shared/ports.ts';

const TOKEN = 'k8s-aws-v1.aHR0cHM6Ly9zdHMuYW1hem9uYXdzLmNvbS8_c2VjcmV0';
const tokens: EksTokenProvider = { token: async () => TOKEN };
const fast = { baseDelayMs: 10, budgetMs: 2_000, requestTimeoutMs: 2_000, maxAttempts: 1 };
const credentials = { accessKeyId: 'AKIAEXAMPLEEXAMPLE00', secretAccessKey: 'c2VjcmV0c2VjcmV0c2VjcmV0' };

/** An HTTPS server with a certificate of its own CA, recording what reached it. */
let server: Server;
let endpoint: string;
const seen: Array<{ url: string; authorization: string | undefined }> = [];
let trustedCa: string;
let previous: string | undefined;

beforeAll(async () => {
  previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const own = createTls();
  trustedCa = Buffer.from(createTls().caPem).toString('base64');
  server = createServer({ cert: own.certPem, key: own.keyPem }, (req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const ref = (): KubeClusterRef => ({
  accountId: '111122223333',
  clusterName: 'prod',
  region: 'eu-west-1',
  endpoint,
  certificateAuthorityData: trustedCa,
});

describe('with NODE_TLS_REJECT_UNAUTHORIZED=0, a server whose certificate does not verify', () => {
  it('is refused by the @kubernetes/client-node reader, which never sends it the token', async () => {
    const reader = createKubeReader({ tokens, ...fast });
    const before = seen.length;
    await expect(reader.awsAuth(ref())).rejects.toBeInstanceOf(TlsVerificationError);
    await expect(reader.nodes(ref())).rejects.toBeInstanceOf(TlsVerificationError);
    await expect(reader.ec2NodeClasses(ref())).rejects.toBeInstanceOf(TlsVerificationError);
    expect(seen.slice(before)).toEqual([]);
  });

  it("is refused by the event path's aws-auth reader, which never sends it the token", async () => {
    const reader = createAwsAuthReader({ tokens, ...fast });
    const before = seen.length;
    await expect(reader.awsAuth(ref())).rejects.toBeInstanceOf(TlsVerificationError);
    expect(seen.slice(before)).toEqual([]);
  });

  it('is refused by the AWS SDK clients (EKS, EC2), which never send it a signed request', async () => {
    const before = seen.length;
    const options = { credentials, endpoints: { eks: endpoint, ec2: endpoint }, maxAttempts: 1 };
    const eks = createEksReader(createEksClient('eu-west-1', options));
    const ec2 = createEc2Reader(createEc2Client('eu-west-1', options));
    const eksError = await eks.describeCluster('prod').catch((e: unknown) => e);
    const ec2Error = await ec2.instancesOfCluster('prod').catch((e: unknown) => e);
    for (const error of [eksError, ec2Error]) {
      expect(error).toMatchObject({ name: 'AwsApiError', code: 'unavailable' });
      expect(String((error as Error).message)).toMatch(/certificate|UNABLE_TO_VERIFY|self.signed/i);
    }
    expect(seen.slice(before)).toEqual([]);
  });
});
