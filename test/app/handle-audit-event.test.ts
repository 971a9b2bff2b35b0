/**
 * handleAuditEvent on the sandbox's audit log (payloads exactly as a subscription delivers them,
 * decoded by the function's adapter), its Kubernetes API (fresh reads) and real DynamoDB claims
 * (dynalite); the alert lifecycle is the real one over an in-memory channel.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { subscriptionPayload } from '../../infra/sandbox/kube-audit.ts';
import { createDynamoDbIdempotencyStore } from '../../shared/adapters/dynamodb-idempotency.ts';
import { createEksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createAwsAuthReader } from '../../shared/adapters/kubernetes-aws-auth.ts';
import { toAwsAuth } from '../../shared/adapters/kubernetes-shapes.ts';
import { decodeSubscriptionEvent } from '../../shared/adapters/logs-subscription-payload.ts';
import { assessAwsAuthChange } from '../../shared/app/assess-aws-auth-change.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import { type HandleAuditEventDeps, handleAuditEvent } from '../../shared/app/handle-audit-event.ts';
import { awaitRead, kubeClusterRef } from '../../shared/app/read-sources.ts';
import type { KubeClusterRef } from '../../shared/ports.ts';
import { createStateTable, startDynalite } from '../support/dynamodb-helpers.ts';
import { createFakeAlertStore, createFakeSender, createFakeSnapshotStore } from '../support/monitor.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';
import { ACCOUNT, baseSnapshot, MAP_ROLES, REGION, SOLO_ROLE } from '../support/sandbox-seed.ts';

let tables = 0;
const MONITOR = `arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel`;
const WRITER = { arn: `arn:aws:iam::${ACCOUNT}:role/platform-admin`, sessionName: 'jane.doe' };
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
  const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP'), logging: ['audit'] }] });
  sandbox = s;
  tables += 1;
  const table = `sentinel-audit-claims-${tables}`;
  await createStateTable(db.dynamodb, table);
  const capture = sandboxDeps(s);
  const snapshots = createFakeSnapshotStore();
  await snapshots.put(await captureSnapshot(capture, { region: REGION, clusterName: 'prod' }));
  s.audit.drain();
  const ref: KubeClusterRef = kubeClusterRef(await capture.eks(REGION).describeCluster('prod'), {
    accountId: ACCOUNT,
    region: REGION,
  });
  const kube = createAwsAuthReader({
    tokens: createEksTokenProvider({ credentials: s.credentials }),
    maxAttempts: 1,
  });
  const sns = createFakeSender('sns');
  const alerts = createFakeAlertStore();
  const clock = { now: () => new Date() };
  const deps: HandleAuditEventDeps = {
    snapshots,
    alerts,
    kube,
    deliver: (key, findings, scope) =>
      deliverAlerts({ alerts, senders: [sns], clock }, key, findings, scope, { sns: { minSeverity: 'low' } }),
    clock,
    monitorPrincipalArn: MONITOR,
    idempotency: createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: table }),
    idempotencyTtlSeconds: 3_600,
    awsAuthOf: (configMap) => toAwsAuth(configMap.raw),
    cluster: async (name) => (name === 'prod' ? ref : undefined),
  };
  const deliverAudit = async () => {
    const payloads = s.audit.drain('prod');
    return Promise.all(payloads.map((p) => handleAuditEvent(deps, decodeSubscriptionEvent(p))));
  };
  const poll = async () =>
    assessAwsAuthChange(deps, { cluster: ref, awsAuth: await awaitRead(kube.awsAuth(ref)), source: 'poll' });
  return { s, deps, sns, deliverAudit, poll };
}

describe('handleAuditEvent', () => {
  it('assesses an update from the object the event carries and names the writer on the alert', async () => {
    const t = await setUp();
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'kubectl-edit', by: WRITER });
    const [result] = await t.deliverAudit();
    expect(result).toMatchObject({ outcome: 'handled', cluster: 'prod' });
    if (result?.outcome !== 'handled') return;
    expect(result.writes).toEqual([
      expect.objectContaining({ outcome: 'evaluated', observed: 'event', attributed: 0 }),
    ]);
    const removed = t.sns.delivered.find((n) => n.finding.ruleId === 'aws-auth/entry-removed');
    expect(removed?.finding.subject).toBe(SOLO_ROLE);
    expect(removed?.finding.actor).toMatchObject({
      source: 'audit',
      sessionName: 'jane.doe',
      roleName: 'platform-admin',
      canonicalArn: WRITER.arn,
    });
  });

  it('after the poll alerted the write, adds the writer to that alert once; a redelivery does nothing', async () => {
    const t = await setUp();
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'kubectl-edit', by: WRITER });
    const polled = await t.poll();
    expect(polled.outcome).toBe('evaluated');
    const alerted = new Set(t.sns.delivered.map((n) => n.finding.subject));
    const payloads = t.s.audit.drain('prod');
    const first = await handleAuditEvent(t.deps, decodeSubscriptionEvent(payloads[0]));
    const write = first.outcome === 'handled' ? first.writes[0] : undefined;
    expect(write).toMatchObject({ outcome: 'unchanged', observed: 'event' });
    const attribution = t.sns.delivered.filter((n) => n.finding.ruleId === 'aws-auth/write-attributed');
    // One per alert the write opened (the removed entry, the nodes it leaves unauthorized), same subject.
    expect(attribution.length).toBe(write?.attributed);
    expect(attribution.map((n) => n.finding.subject)).toContain(SOLO_ROLE);
    for (const n of attribution) {
      expect(alerted.has(n.finding.subject)).toBe(true);
      expect(n.finding.actor?.sessionName).toBe('jane.doe');
    }
    const again = await handleAuditEvent(t.deps, decodeSubscriptionEvent(payloads[0]));
    expect(again.outcome === 'handled' && again.writes[0]?.outcome).toBe('seen');
    expect(t.sns.delivered.filter((n) => n.finding.ruleId === 'aws-auth/write-attributed')).toHaveLength(
      attribution.length,
    );
    // Closed silently: no "resolved" notice for an attribution.
    expect(t.sns.delivered.filter((n) => n.kind === 'resolved')).toEqual([]);
  });

  it('a truncated event is read fresh and finds the removal, never guessing from the event', async () => {
    const t = await setUp();
    t.s.audit.truncateNext({ cluster: 'prod' });
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'kubectl-edit', by: WRITER });
    const [result] = await t.deliverAudit();
    expect(result?.outcome === 'handled' && result.writes[0]).toMatchObject({
      outcome: 'evaluated',
      observed: expect.stringContaining('truncated'),
    });
    expect(t.sns.delivered.some((n) => n.finding.ruleId === 'aws-auth/entry-removed')).toBe(true);
  });

  it('a superseded object is not assessed again (no false removal from an older copy)', async () => {
    const t = await setUp();
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'kubectl-edit', by: WRITER });
    t.s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES }, { manager: 'kubectl-edit', by: WRITER });
    expect((await t.poll()).outcome).toBe('evaluated');
    const before = t.sns.delivered.length;
    const [result] = await t.deliverAudit();
    expect(result?.outcome === 'handled' && result.writes.map((w) => w.outcome)).toEqual([
      'superseded',
      'unchanged',
    ]);
    expect(
      t.sns.delivered.slice(before).filter((n) => n.finding.ruleId === 'aws-auth/entry-removed'),
    ).toEqual([]);
  });

  it('a log group of an unknown cluster is ignored with a reason and alerts nothing', async () => {
    const t = await setUp();
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'kubectl-edit', by: WRITER });
    const [payload] = t.s.audit.drain('prod');
    const message = decodeSubscriptionEvent(payload) as Record<string, unknown>;
    const foreign = decodeSubscriptionEvent(
      subscriptionPayload({
        owner: ACCOUNT,
        logGroup: '/aws/eks/staging/cluster',
        logStream: String(message.logStream),
        subscriptionFilters: ['f'],
        logEvents: message.logEvents as never,
      }),
    );
    expect(await handleAuditEvent(t.deps, foreign)).toEqual({
      outcome: 'ignored',
      cluster: 'staging',
      reason: expect.stringContaining('not monitored'),
    });
    expect(t.sns.delivered).toEqual([]);
  });
});
