import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createEksClient, createEksReader } from '../../shared/adapters/eks.ts';
import type { AccessEntry, ClusterSnapshot } from '../../shared/core/model.ts';
import { AwsApiError } from '../../shared/errors.ts';
import { callsOf, clientOptions, loadScenario } from '../support/sandbox-helpers.ts';

const REGION = 'eu-west-1';
const ACCT = '111122223333';

/** Scenario a in API_AND_CONFIG_MAP with 150 more STANDARD entries (pagination beyond 100). */
function manyEntries(count = 150): ClusterSnapshot {
  const seed = structuredClone(loadScenario('a-karpenter-shares-role-api-and-config-map-with-entry'));
  if (seed.accessEntries.status !== 'ok') throw new Error('seed has no access entries');
  const extra: AccessEntry[] = Array.from({ length: count }, (_, i) => ({
    principalArn: `arn:aws:iam::${ACCT}:role/team-${String(i).padStart(3, '0')}`,
    type: 'STANDARD',
    kubernetesGroups: ['viewers'],
    accessPolicies: [],
  }));
  seed.accessEntries.data.push(...extra);
  return seed;
}

describe('EksReader against the sandbox', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({
      clusters: [
        { snapshot: manyEntries() },
        { snapshot: loadScenario('a-karpenter-shares-last-nodegroup-role'), name: 'legacy' },
      ],
    });
  });
  afterAll(async () => sandbox.close());
  beforeEach(() => sandbox.faults.clear());

  const reader = (overrides = {}) =>
    createEksReader(createEksClient(REGION, clientOptions(sandbox, overrides)));

  it('describes the cluster: ARN, mode and CA', async () => {
    const cluster = await reader().describeCluster('prod');
    expect(cluster).toMatchObject({
      name: 'prod',
      arn: `arn:aws:eks:${REGION}:${ACCT}:cluster/prod`,
      status: 'ACTIVE',
      version: '1.31',
      authenticationMode: 'API_AND_CONFIG_MAP',
    });
    expect(Buffer.from(cluster.certificateAuthorityData ?? '', 'base64').toString()).toContain(
      'BEGIN CERTIFICATE',
    );
  });

  it('pages ListAccessEntries beyond 100 and returns every entry with its policies', async () => {
    const before = callsOf(sandbox, 'eks', 'ListAccessEntries').length;
    const entries = await reader().accessEntries('prod');
    expect(entries.found).toBe(true);
    if (!entries.found) return;
    expect(entries.value).toHaveLength(152);
    expect(new Set(entries.value.map((e) => e.principalArn)).size).toBe(152);
    expect(callsOf(sandbox, 'eks', 'ListAccessEntries').length - before).toBe(2);
    const admin = entries.value.find((e) => e.principalArn.endsWith(':role/platform-admin'));
    expect(admin?.accessPolicies).toEqual([
      expect.objectContaining({
        policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy',
        accessScope: { type: 'cluster' },
      }),
    ]);
    const node = entries.value.find((e) => e.type === 'EC2_LINUX');
    expect(node?.principalArn).toBe(`arn:aws:iam::${ACCT}:role/prod-node-role`);
  });

  it('answers absent, not error, for access entries of a CONFIG_MAP cluster', async () => {
    const entries = await reader().accessEntries('legacy');
    expect(entries).toEqual({ found: false, reason: expect.stringMatching(/CONFIG_MAP/) });
  });

  it('lists node groups and Fargate profiles with their roles', async () => {
    const r = reader();
    expect(await r.nodegroups('prod')).toEqual([
      expect.objectContaining({
        name: 'general',
        status: 'ACTIVE',
        nodeRole: `arn:aws:iam::${ACCT}:role/prod-node-role`,
      }),
    ]);
    expect(await r.fargateProfiles('prod')).toEqual([]);
  });

  it('retries throttling and then succeeds', async () => {
    sandbox.faults.inject({
      service: 'eks',
      operation: 'DescribeCluster',
      cluster: 'prod',
      status: 429,
      code: 'ThrottlingException',
      times: 2,
    });
    const before = callsOf(sandbox, 'eks', 'DescribeCluster').length;
    const cluster = await reader().describeCluster('prod');
    expect(cluster.name).toBe('prod');
    expect(
      callsOf(sandbox, 'eks', 'DescribeCluster')
        .slice(before)
        .map((c) => c.status),
    ).toEqual([429, 429, 200]);
  });

  it('gives up on a persistent 5xx with an `unavailable` error after maxAttempts', async () => {
    sandbox.faults.inject({
      service: 'eks',
      operation: 'ListNodegroups',
      cluster: 'prod',
      status: 500,
      code: 'ServerException',
    });
    const before = callsOf(sandbox, 'eks', 'ListNodegroups').length;
    const error = await reader({ maxAttempts: 3 })
      .nodegroups('prod')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwsApiError);
    expect(error).toMatchObject({ code: 'unavailable', cluster: 'prod', operation: 'ListNodegroups' });
    expect(callsOf(sandbox, 'eks', 'ListNodegroups').length - before).toBe(3);
  });

  it('names the missing IAM action on a 403', async () => {
    sandbox.faults.inject({
      service: 'eks',
      operation: 'ListAccessEntries',
      status: 403,
      code: 'AccessDeniedException',
      message: 'User is not authorized to perform: eks:ListAccessEntries',
    });
    const error = await reader()
      .accessEntries('prod')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'AwsApiError',
      code: 'forbidden',
      iamAction: 'eks:ListAccessEntries',
    });
    expect((error as Error).message).toMatch(
      /ListAccessEntries for cluster prod .*missing eks:ListAccessEntries/,
    );
  });

  it('reports a cluster that does not exist as not-found', async () => {
    const error = await reader()
      .describeCluster('nope')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'not-found', operation: 'DescribeCluster', cluster: 'nope' });
  });

  it('rejects unknown credentials as unauthorized', async () => {
    const r = createEksReader(
      createEksClient(
        REGION,
        clientOptions(sandbox, { credentials: { accessKeyId: 'AKIANOTKNOWN', secretAccessKey: 'x' } }),
      ),
    );
    await expect(r.describeCluster('prod')).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('lists the clusters of the Region', async () => {
    expect((await reader().listClusters()).sort()).toEqual(['legacy', 'prod']);
    expect(
      await createEksReader(createEksClient('us-west-2', clientOptions(sandbox))).listClusters(),
    ).toEqual([]);
  });
});

describe('EksReader under an EKS rate limit', () => {
  it('reads 32 access entries (≈ 65 calls) at 15 calls/s: throttled, retried, nothing lost', async () => {
    const sandbox = await startSandbox({ clusters: [{ snapshot: manyEntries(30) }], eksCallsPerSecond: 15 });
    try {
      const r = createEksReader(
        createEksClient(
          REGION,
          clientOptions(sandbox, { retryMode: 'adaptive', maxAttempts: 10, callBudgetMs: 60_000 }),
        ),
        { concurrency: 8 },
      );
      const entries = await r.accessEntries('prod');
      expect(entries.found && entries.value.length).toBe(32);
      expect(callsOf(sandbox, 'eks').some((c) => c.status === 429)).toBe(true);
    } finally {
      await sandbox.close();
    }
  });
});

describe('EksReader call budget', () => {
  it('aborts a call that exceeds its total time budget with a `timeout` error', async () => {
    const sandbox = await startSandbox({
      clusters: [{ snapshot: loadScenario('a-karpenter-shares-last-nodegroup-role') }],
      latencyMs: 1_000,
    });
    try {
      const r = createEksReader(createEksClient(REGION, clientOptions(sandbox, { callBudgetMs: 100 })));
      const error = await r.describeCluster('prod').catch((e: unknown) => e);
      expect(error).toMatchObject({
        name: 'AwsApiError',
        code: 'timeout',
        operation: 'DescribeCluster',
        cluster: 'prod',
      });
    } finally {
      await sandbox.close();
    }
  });
});

describe('EksReader access entries, bounded parallelism (issue 8 case 4)', () => {
  it('reads 16 entries at a time (DescribeAccessEntry ‖ ListAssociatedAccessPolicies each), never more', async () => {
    const sandbox = await startSandbox({ clusters: [{ snapshot: manyEntries(62) }], latencyMs: 40 });
    try {
      const entries = await createEksReader(createEksClient(REGION, clientOptions(sandbox))).accessEntries(
        'prod',
      );
      expect(entries.found && entries.value.length).toBe(64);
      // 64 entries, 40 ms a call: enough for every slot to fill, and the bound to show.
      expect(sandbox.peakInFlight.get('eks:DescribeAccessEntry')).toBe(16);
      expect(sandbox.peakInFlight.get('eks:ListAssociatedAccessPolicies')).toBe(16);
    } finally {
      await sandbox.close();
    }
  });
});
