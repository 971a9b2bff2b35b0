/**
 * checkAwsAuth (default mode) and followAwsAuth (continuous mode) over the sandbox's EKS and
 * Kubernetes APIs (ListClusters, DescribeCluster, GET and watch of aws-auth) and real DynamoDB
 * claims (dynalite); the alert lifecycle is the real one over an in-memory channel.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createDynamoDbIdempotencyStore } from '../../shared/adapters/dynamodb-idempotency.ts';
import { createEksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createAwsAuthReader } from '../../shared/adapters/kubernetes-aws-auth.ts';
import { createAwsAuthWatcher } from '../../shared/adapters/kubernetes-aws-auth-watch.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import { checkAwsAuth, type FollowAwsAuthDeps, followAwsAuth } from '../../shared/app/follow-aws-auth.ts';
import { kubeClusterRef } from '../../shared/app/read-sources.ts';
import { createStateTable, startDynalite } from '../support/dynamodb-helpers.ts';
import { createFakeAlertStore, createFakeSender, createFakeSnapshotStore } from '../support/monitor.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';
import { ACCOUNT, baseSnapshot, MAP_ROLES, REGION, SOLO_ROLE } from '../support/sandbox-seed.ts';

let tables = 0;
let db: Awaited<ReturnType<typeof startDynalite>>;
let sandbox: Sandbox | undefined;

beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db?.close();
});
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const WITHOUT_SOLO = MAP_ROLES.split(/\n(?=- )/)
  .filter((entry) => !entry.includes(SOLO_ROLE))
  .join('\n');

async function setUp() {
  const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
  sandbox = s;
  tables += 1;
  const table = `sentinel-follow-claims-${tables}`;
  await createStateTable(db.dynamodb, table);
  const capture = sandboxDeps(s);
  const snapshots = createFakeSnapshotStore();
  await snapshots.put(await captureSnapshot(capture, { region: REGION, clusterName: 'prod' }));
  const tokens = createEksTokenProvider({ credentials: s.credentials });
  const sns = createFakeSender('sns');
  const alerts = createFakeAlertStore();
  const clock = { now: () => new Date() };
  let gets = 0;
  const reader = createAwsAuthReader({ tokens, maxAttempts: 1 });
  const deps: FollowAwsAuthDeps = {
    snapshots,
    deliver: (key, findings, scope) =>
      deliverAlerts({ alerts, senders: [sns], clock }, key, findings, scope, { sns: { minSeverity: 'low' } }),
    clock,
    monitorPrincipalArn: `arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel`,
    idempotency: createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: table }),
    idempotencyTtlSeconds: 3_600,
    eks: capture.eks,
    kube: {
      awsAuth: (ref) => {
        gets += 1;
        return reader.awsAuth(ref);
      },
    },
    regions: [REGION],
    seen: new Map(),
    cluster: async (t) =>
      kubeClusterRef(await capture.eks(t.region).describeCluster(t.clusterName), {
        accountId: ACCOUNT,
        region: t.region,
      }),
  };
  const removals = () => sns.delivered.filter((n) => n.finding.ruleId === 'aws-auth/entry-removed');
  return {
    s,
    deps,
    sns,
    removals,
    gets: () => gets,
    watcher: createAwsAuthWatcher({ tokens, baseDelayMs: 10 }),
  };
}

describe('checkAwsAuth', () => {
  it('one GET per cluster: unchanged, then a write is assessed and alerted once, then seen', async () => {
    const t = await setUp();
    expect((await checkAwsAuth(t.deps)).clusters).toEqual([
      expect.objectContaining({ cluster: 'prod', outcome: 'unchanged' }),
    ]);
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'kubectl-edit' });
    expect((await checkAwsAuth(t.deps)).clusters[0]).toMatchObject({ outcome: 'evaluated' });
    expect(t.removals().map((n) => n.finding.subject)).toEqual([SOLO_ROLE]);
    const before = t.gets();
    expect((await checkAwsAuth(t.deps)).clusters[0]).toMatchObject({ outcome: 'seen' });
    expect(t.gets() - before).toBe(1);
    expect(t.removals()).toHaveLength(1);
  });

  it('a cluster it cannot read is reported, not taken as an empty aws-auth', async () => {
    const t = await setUp();
    const result = await checkAwsAuth({
      ...t.deps,
      kube: { awsAuth: async () => Promise.reject(new Error('connect ECONNREFUSED')) },
    });
    expect(result.clusters[0]).toMatchObject({ outcome: 'unreadable' });
    expect(t.sns.delivered).toEqual([]);
  });
});

describe('followAwsAuth', () => {
  it('alerts a write made during the window, and a second window does not alert it again', async () => {
    const t = await setUp();
    const controller = new AbortController();
    const run = followAwsAuth({ ...t.deps, watcher: t.watcher }, controller.signal);
    for (let i = 0; i < 200 && t.s.kube('prod').openWatches === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(t.s.kube('prod').openWatches).toBeGreaterThan(0);
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'kubectl-edit' });
    for (let i = 0; i < 200 && t.removals().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const result = await run;
    expect(result.events).toEqual([expect.objectContaining({ type: 'MODIFIED', outcome: 'evaluated' })]);
    expect(t.removals()).toHaveLength(1);
    // The next invocation's window starts on the same state: nothing new.
    const second = new AbortController();
    const again = followAwsAuth({ ...t.deps, seen: new Map(), watcher: t.watcher }, second.signal);
    setTimeout(() => second.abort(), 100);
    expect((await again).clusters[0]).toMatchObject({ outcome: 'unchanged' });
    expect(t.removals()).toHaveLength(1);
  });
});
