import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALERTS_SK,
  alertStatePk,
  createDynamoDbAlertStore,
  GZIP_ABOVE_BYTES,
} from '../../shared/adapters/dynamodb-alert-store.ts';
import { createDynamoDbIdempotencyStore } from '../../shared/adapters/dynamodb-idempotency.ts';
import { createDynamoDbRemediationLedger } from '../../shared/adapters/dynamodb-remediation-ledger.ts';
import { type AlertRecord, planAlerts } from '../../shared/core/alerts/lifecycle.ts';
import type { ClusterId } from '../../shared/core/model.ts';
import { ConcurrentUpdateError, MonitorIoError } from '../../shared/errors.ts';
import { createStateTable, startDynalite } from '../support/dynamodb-helpers.ts';
import { createFinding, createRemediation } from '../support/findings.ts';
import { createFakeClock } from '../support/monitor.ts';

const TABLE = 'sentinel-state';
const KEY: ClusterId = { accountId: '111122223333', region: 'eu-west-1', clusterName: 'prod' };

function recordsOf(n: number, now = '2026-11-29T12:00:00.000Z', big = false): AlertRecord[] {
  const findings = Array.from({ length: n }, (_, i) =>
    createFinding({
      fingerprint: `fp-store-${i}`,
      // One rule each: more than GROUP_ABOVE findings of one rule would be grouped into a digest.
      ruleId: `test/rule-${i}`,
      ...(big ? { remediation: createRemediation({ terraform: `# ${'x'.repeat(2000)}\n`.repeat(2) }) } : {}),
    }),
  );
  return planAlerts({
    records: [],
    findings,
    scope: { kind: 'state' },
    now,
    channels: { sns: { minSeverity: 'low' }, slack: { minSeverity: 'high' } },
  }).records;
}

let db: Awaited<ReturnType<typeof startDynalite>>;

beforeAll(async () => {
  db = await startDynalite();
  await createStateTable(db.dynamodb, TABLE);
});
afterAll(async () => {
  await db?.close();
});

describe('createDynamoDbAlertStore', () => {
  it('loads nothing for a cluster never saved, then what was saved, with a version', async () => {
    const store = createDynamoDbAlertStore({ dynamodb: db.dynamodb, tableName: TABLE });
    const key = { ...KEY, clusterName: 'fresh' };
    expect(await store.load(key)).toEqual({ records: [] });
    const records = recordsOf(2);
    await store.save(key, records);
    const loaded = await store.load(key);
    expect(loaded.records).toEqual(records);
    expect(loaded.version).toBe('1');
    await store.save(key, loaded.records, loaded.version);
    expect((await store.load(key)).version).toBe('2');
  });

  it('stores one item per cluster under pk cluster#<account>#<region>#<name>, sk alerts', async () => {
    const store = createDynamoDbAlertStore({ dynamodb: db.dynamodb, tableName: TABLE });
    const key = { ...KEY, clusterName: 'shape' };
    await store.save(key, recordsOf(1));
    const out = await db.dynamodb.client.send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: { S: alertStatePk(key) }, sk: { S: ALERTS_SK } } }),
    );
    expect(out.Item?.pk?.S).toBe('cluster#111122223333#eu-west-1#shape');
    expect(out.Item?.version?.N).toBe('1');
    expect(JSON.parse(out.Item?.records?.S ?? 'null')).toHaveLength(1);
  });

  it('lets one of two concurrent savers win; the other gets ConcurrentUpdateError', async () => {
    const store = createDynamoDbAlertStore({ dynamodb: db.dynamodb, tableName: TABLE });
    const key = { ...KEY, clusterName: 'race' };
    await store.save(key, recordsOf(1));
    const a = await store.load(key);
    const b = await store.load(key);
    const results = await Promise.allSettled([
      store.save(key, recordsOf(2), a.version),
      store.save(key, recordsOf(3), b.version),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const reason: unknown = lost[0]?.reason;
    expect(reason).toBeInstanceOf(ConcurrentUpdateError);
    expect((reason as ConcurrentUpdateError).code).toBe('conflict');
    expect((reason as Error).message).toContain('cluster#111122223333#eu-west-1#race');
    expect((await store.load(key)).version).toBe('2');
  });

  it('refuses a first save when another writer created the item meanwhile', async () => {
    const store = createDynamoDbAlertStore({ dynamodb: db.dynamodb, tableName: TABLE });
    const key = { ...KEY, clusterName: 'race-create' };
    await store.save(key, recordsOf(1));
    await expect(store.save(key, recordsOf(1))).rejects.toBeInstanceOf(ConcurrentUpdateError);
  });

  it('stores the records it is given, spent ones too: which to keep is for the caller to decide', async () => {
    const store = createDynamoDbAlertStore({ dynamodb: db.dynamodb, tableName: TABLE });
    const key = { ...KEY, clusterName: 'spent' };
    const [open, spent] = recordsOf(2);
    if (!open || !spent) throw new Error('two records expected');
    await store.save(key, [open, { ...spent, status: 'resolved', pending: {} }]);
    expect((await store.load(key)).records.map((r) => r.fingerprint)).toEqual([
      open.fingerprint,
      spent.fingerprint,
    ]);
  });

  it('compresses a large state so it stays under the 400 KB item limit, and reads it back', async () => {
    const store = createDynamoDbAlertStore({ dynamodb: db.dynamodb, tableName: TABLE });
    const key = { ...KEY, clusterName: 'large' };
    const records = recordsOf(60, undefined, true);
    expect(Buffer.byteLength(JSON.stringify(records))).toBeGreaterThan(GZIP_ABOVE_BYTES);
    await store.save(key, records);
    const out = await db.dynamodb.client.send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: { S: alertStatePk(key) }, sk: { S: ALERTS_SK } } }),
    );
    expect(out.Item?.recordsGz?.B?.byteLength).toBeLessThan(400_000);
    expect((await store.load(key)).records).toEqual(records);
  });

  it('reports a stored item that is not alert state as invalid-document, naming the item', async () => {
    const store = createDynamoDbAlertStore({ dynamodb: db.dynamodb, tableName: TABLE });
    const key = { ...KEY, clusterName: 'corrupt' };
    await db.dynamodb.client.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: {
          pk: { S: alertStatePk(key) },
          sk: { S: ALERTS_SK },
          version: { N: '3' },
          records: { S: '{"x":1}' },
        },
      }),
    );
    const error = await store.load(key).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MonitorIoError);
    expect((error as MonitorIoError).code).toBe('invalid-document');
    expect((error as Error).message).toContain('cluster#111122223333#eu-west-1#corrupt');
  });

  it('names table and operation when the table does not exist', async () => {
    const store = createDynamoDbAlertStore({ dynamodb: db.dynamodb, tableName: 'no-such-table' });
    const error = await store.load(KEY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MonitorIoError);
    expect((error as Error).message).toMatch(/GetItem on table no-such-table .*ResourceNotFoundException/);
    expect((error as MonitorIoError).code).toBe('not-found');
  });
});

describe('createDynamoDbIdempotencyStore (two states: IN_PROGRESS, then COMPLETED)', () => {
  const T0 = '2026-11-29T12:00:00.000Z';
  const lease = (clock: { now(): Date }, ms = 35_000) => ({
    inProgressUntil: clock.now().getTime() + ms,
    ttlSeconds: 86_400,
  });

  it('claims a new key once; a second claim finds it in progress, and completed once completed', async () => {
    const clock = createFakeClock(T0);
    const store = createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: TABLE, clock });
    expect(await store.claim('event-a', lease(clock))).toBe('claimed');
    expect(await store.claim('event-a', lease(clock))).toBe('in-progress');
    await store.complete('event-a', 86_400);
    expect(await store.claim('event-a', lease(clock))).toBe('completed');
  });

  it('lets exactly one of concurrent claims of the same key win', async () => {
    const clock = createFakeClock(T0);
    const store = createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: TABLE, clock });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => store.claim('event-race', lease(clock))),
    );
    expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
  });

  it('claims again after release; release never removes a completed claim', async () => {
    const clock = createFakeClock(T0);
    const store = createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: TABLE, clock });
    expect(await store.claim('event-b', lease(clock))).toBe('claimed');
    await store.release('event-b');
    expect(await store.claim('event-b', lease(clock))).toBe('claimed');
    await store.complete('event-b', 86_400);
    await store.release('event-b');
    expect(await store.claim('event-b', lease(clock))).toBe('completed');
  });

  it('an in-progress claim left by a crash is taken again once its in-progress expiry has passed (not after 24 h)', async () => {
    const clock = createFakeClock(T0);
    const store = createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: TABLE, clock });
    expect(await store.claim('event-c', lease(clock, 35_000))).toBe('claimed');
    clock.advance(34_000);
    expect(await store.claim('event-c', lease(clock))).toBe('in-progress');
    clock.advance(2_000);
    expect(await store.claim('event-c', lease(clock))).toBe('claimed');
  });

  it('a completed claim answers completed until its TTL, then the key is new again', async () => {
    const clock = createFakeClock(T0);
    const store = createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: TABLE, clock });
    await store.claim('event-e', lease(clock));
    await store.complete('event-e', 60);
    clock.advance(59_000);
    expect(await store.claim('event-e', lease(clock))).toBe('completed');
    clock.advance(2_000);
    expect(await store.claim('event-e', lease(clock))).toBe('claimed');
  });

  it('writes pk event#<key>, status, inProgressExpiresAt (ms) and expiresAt (s, the TTL)', async () => {
    const clock = createFakeClock(T0);
    const store = createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: TABLE, clock });
    await store.claim('event-d', lease(clock, 35_000));
    const read = async () =>
      (
        await db.dynamodb.client.send(
          new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'event#event-d' }, sk: { S: 'event' } } }),
        )
      ).Item;
    const claimed = await read();
    expect(claimed?.status?.S).toBe('IN_PROGRESS');
    expect(Number(claimed?.inProgressExpiresAt?.N)).toBe(Date.parse(T0) + 35_000);
    expect(Number(claimed?.expiresAt?.N)).toBe(Date.parse(T0) / 1000 + 86_400);
    await store.complete('event-d', 86_400);
    const done = await read();
    expect(done?.status?.S).toBe('COMPLETED');
    expect(Number(done?.expiresAt?.N)).toBe(Date.parse(T0) / 1000 + 86_400);
  });

  it('releasing a key never claimed is not an error', async () => {
    const store = createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: TABLE });
    await expect(store.release('never-claimed')).resolves.toBeUndefined();
  });
});

describe('createDynamoDbRemediationLedger', () => {
  const KEY_R: ClusterId = { accountId: '111122223333', region: 'eu-west-1', clusterName: 'ledger' };

  it('claims an action once, and keeps its recorded outcome', async () => {
    const ledger = createDynamoDbRemediationLedger({ dynamodb: db.dynamodb, tableName: TABLE });
    expect(await ledger.claim('t1#create-access-entry#role')).toBe(true);
    expect(await ledger.claim('t1#create-access-entry#role')).toBe(false);
    await ledger.record('t1#create-access-entry#role', {
      action: 'create-access-entry',
      principalArn: 'arn:aws:iam::111122223333:role/r',
      result: 'done',
      detail: 'created',
      dryRun: false,
      at: '2026-12-02T10:00:00.000Z',
      trigger: 'event:DeleteNodegroup t1',
    });
    const item = await db.dynamodb.client.send(
      new GetItemCommand({
        TableName: TABLE,
        Key: { pk: { S: 'remediation#t1#create-access-entry#role' }, sk: { S: 'action' } },
      }),
    );
    expect(item.Item?.result?.S).toBe('done');
    expect(await ledger.claim('t1#create-access-entry#role')).toBe(false);
  });

  it('gives at most `limit` slots per cluster and hour', async () => {
    const ledger = createDynamoDbRemediationLedger({ dynamodb: db.dynamodb, tableName: TABLE });
    const hour = '2026-12-02T10:00:00.000Z';
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(await ledger.takeSlot(KEY_R, hour, 3));
    expect(taken).toEqual([true, true, true, false]);
    expect(await ledger.takeSlot(KEY_R, '2026-12-02T11:00:00.000Z', 3)).toBe(true);
    expect(await ledger.takeSlot({ ...KEY_R, clusterName: 'other' }, hour, 3)).toBe(true);
  });
});
