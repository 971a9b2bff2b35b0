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
let ref: KubeClusterRef;
const fast = { baseDelayMs: 10, budgetMs: 3_000, requestTimeoutMs: 3_000 };

beforeAll(async () => {
  sandbox = await startSandbox({
    clusters: [{ snapshot: loadScenario('a-karpenter-shares-last-nodegroup-role') }],
  });
  const eks = createEksReader(createEksClient('eu-west-1', clientOptions(sandbox)));
  const cluster = await eks.describeCluster('prod');
  ref = {
    accountId: '111122223333',
    clusterName: 'prod',
    region: 'eu-west-1',
    endpoint: cluster.endpoint ?? '',
    certificateAuthorityData: cluster.certificateAuthorityData ?? '',
  };
});
afterAll(async () => {
  await sandbox.close();
});

const readers = (credentials = sandbox.credentials) => {
  const tokens = createEksTokenProvider({ credentials });
  return { lite: createAwsAuthReader({ tokens, ...fast }), full: createKubeReader({ tokens, ...fast }) };
};

async function failure(p: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (error) {
    const e = error as Record<string, unknown>;
    return {
      name: e.name,
      message: e.message,
      code: e.code,
      httpStatus: e.httpStatus,
      operation: e.operation,
    };
  }
  throw new Error('expected a rejection');
}

describe('createAwsAuthReader (the event path, without @kubernetes/client-node)', () => {
  it('reads aws-auth exactly as the full reader does: data, resourceVersion, managedFields', async () => {
    const { lite, full } = readers();
    const got = await lite.awsAuth(ref);
    expect(got.found).toBe(true);
    expect(got).toEqual(await full.awsAuth(ref));
  });

  it('answers found: false on 404 like the full reader', async () => {
    const { lite, full } = readers();
    const saved = sandbox.cluster('prod').awsAuth?.data ?? {};
    sandbox.cluster('prod').deleteAwsAuth();
    try {
      expect(await lite.awsAuth(ref)).toEqual(await full.awsAuth(ref));
      expect((await lite.awsAuth(ref)).found).toBe(false);
    } finally {
      sandbox.cluster('prod').putAwsAuth(saved, { manager: 'vpcLambda' });
    }
  });

  it('fails with the same error as the full reader for 401, 403 and a persistent 500 (after retries)', async () => {
    const outsider = readers(sandbox.outsiderCredentials);
    expect(await failure(outsider.lite.awsAuth(ref))).toEqual(await failure(outsider.full.awsAuth(ref)));
    expect((await failure(outsider.lite.awsAuth(ref))).code).toBe('unauthorized');

    sandbox.faults.inject({ service: 'kube', operation: 'GetConfigMap', status: 403 });
    const { lite, full } = readers();
    try {
      const e = await failure(lite.awsAuth(ref));
      expect(e).toEqual(await failure(full.awsAuth(ref)));
      expect(e.message).toMatch(
        /needs RBAC 'get' on 'configmaps' \(resourceName aws-auth\) in namespace kube-system/,
      );
    } finally {
      sandbox.faults.clear();
    }

    sandbox.faults.inject({ service: 'kube', operation: 'GetConfigMap', status: 500 });
    try {
      const before = sandbox.calls.length;
      const e = await failure(lite.awsAuth(ref));
      expect(e).toMatchObject({ code: 'unavailable', httpStatus: 500 });
      expect(sandbox.calls.slice(before).filter((c) => c.operation === 'GetConfigMap').length).toBe(4);
    } finally {
      sandbox.faults.clear();
    }
  });

  it('retries a transient 500 and then reads', async () => {
    sandbox.faults.inject({ service: 'kube', operation: 'GetConfigMap', status: 500, times: 1 });
    expect((await readers().lite.awsAuth(ref)).found).toBe(true);
  });

  it('refuses a server whose certificate does not verify against the cluster CA', async () => {
    const other = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString(
      'base64',
    );
    const e = await failure(readers().lite.awsAuth({ ...ref, certificateAuthorityData: other }));
    expect(e.code).toBe('unavailable');
  });

  it('reads aws-auth and nothing else (the worker reads nodes and node classes)', () => {
    // withDeadline gives the same reader bound to the invocation's deadline, not another source.
    expect(Object.keys(readers().lite)).toEqual(['awsAuth', 'withDeadline']);
    expect(Object.keys(readers().lite.withDeadline(Date.now() + 1_000))).toEqual(['awsAuth', 'withDeadline']);
  });
});
