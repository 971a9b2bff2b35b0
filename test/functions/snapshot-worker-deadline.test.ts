/**
 * Issue 8: the snapshot worker's one deadline per invocation (`context.getRemainingTimeInMillis()`).
 * The real worker (`createWork`, the wiring of the Lambda) runs in process against the sandbox
 * account (EKS, EC2, IAM, SNS, Kubernetes), dynalite (alert state) and s3rver (snapshots). IAM
 * throttles GetRole without end: the capture stops at the item's deadline, the run still alerts
 * `monitor/source-unavailable` for IAM roles and stores the partial snapshot; the next item,
 * left without time, is a batch item failure. Without a context, nothing changes.
 * A 6 s invocation: the worker keeps a quarter of it (1.5 s) after the capture and starts an item
 * only with three eighths (2.25 s) left, so the test takes seconds.
 */
import { createRequire } from 'node:module';
import type { Context, SQSEvent } from 'aws-lambda';
import S3rver from 's3rver';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../functions/lib/runtime.ts';
import { work } from '../../functions/snapshot-worker.ts';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createS3Client, createS3SnapshotStore } from '../../shared/adapters/s3-snapshot-store.ts';
import type { ClusterId } from '../../shared/core/model.ts';
import { createStateTable, startDynalite } from '../support/dynamodb-helpers.ts';
import { loadScenario } from '../support/snapshot-builder.ts';

const TABLE = 'sentinel-state';
const BUCKET = 'sentinel-snapshots';

let sandbox: Sandbox;
let dynamo: Awaited<ReturnType<typeof startDynalite>>;
let s3: S3rver;
let s3Endpoint: string;
let key: ClusterId;
const saved = { ...process.env };

function batch(...messageIds: string[]): SQSEvent {
  const body = JSON.stringify({ ...key, reason: 'schedule' });
  return { Records: messageIds.map((messageId) => ({ messageId, body })) } as unknown as SQSEvent;
}

/** A Lambda context whose remaining time counts down from `ms`. */
function contextWith(ms: number): Context {
  const started = Date.now();
  return { getRemainingTimeInMillis: () => ms - (Date.now() - started) } as unknown as Context;
}

async function stored() {
  const client = createS3Client(sandbox.env.AWS_REGION, {
    endpoint: s3Endpoint,
    forcePathStyle: true,
    credentials: sandbox.credentials,
  });
  try {
    return await createS3SnapshotStore({ s3: client, bucket: BUCKET }).latest(key);
  } finally {
    client.client.destroy();
  }
}

beforeAll(async () => {
  sandbox = await startSandbox({
    clusters: [{ snapshot: loadScenario('a-karpenter-shares-role-api-and-config-map-with-entry') }],
  });
  key = { accountId: sandbox.accountId, region: sandbox.env.AWS_REGION, clusterName: 'prod' };
  dynamo = await startDynalite();
  await createStateTable(dynamo.dynamodb, TABLE);
  // s3rver checks signatures: register the sandbox monitor's keys with it.
  const require = createRequire(import.meta.url);
  const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account.js') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  };
  DUMMY_ACCOUNT.createKeyPair(sandbox.credentials.accessKeyId, sandbox.credentials.secretAccessKey);
  s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, configureBuckets: [{ name: BUCKET }] });
  s3Endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
  logger.setLogLevel('SILENT');
  // The worker's wiring reads the environment once, at its first invocation.
  Object.assign(process.env, {
    ...sandbox.env,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_S3: s3Endpoint,
    SENTINEL_REGIONS: sandbox.env.AWS_REGION,
    SENTINEL_TABLE_NAME: TABLE,
    SENTINEL_BUCKET_NAME: BUCKET,
    // Schedule items never enqueue a follow-up: the queue is not called.
    SENTINEL_QUEUE_URL: `https://sqs.${sandbox.env.AWS_REGION}.amazonaws.com/${sandbox.accountId}/unused`,
    SENTINEL_TOPIC_ARN: `arn:aws:sns:${sandbox.env.AWS_REGION}:${sandbox.accountId}:eks-auth-sentinel-alerts`,
    SENTINEL_SLACK_WEBHOOK_PARAMETER: 'disabled',
    SENTINEL_MONITOR_PRINCIPAL_ARN: sandbox.principals.monitor,
    SENTINEL_MIN_SEVERITY_SNS: 'low',
  });
}, 60_000);

afterAll(async () => {
  process.env = saved;
  await s3?.close();
  await dynamo?.close();
  await sandbox?.close();
});

beforeEach(() => {
  sandbox.faults.clear();
  vi.restoreAllMocks();
});

describe('snapshotWorker: one deadline per invocation', () => {
  it('without a context, captures every item of the batch in full, as before', async () => {
    const result = await work(batch('first', 'second'));
    expect(result).toEqual({ batchItemFailures: [] });
    const snapshot = await stored();
    expect(snapshot?.iamRoles.status).toBe('ok');
    expect(snapshot?.accessEntries.status).toBe('ok');
  });

  it('with ample time (a 30 s invocation), captures every item of the batch in full', async () => {
    const info = vi.spyOn(logger, 'info');
    // 29,999 ms: a quarter of it is no whole millisecond, which AbortSignal.timeout refuses.
    const result = await work(batch('first', 'second', 'third'), contextWith(29_999));
    expect(result).toEqual({ batchItemFailures: [] });
    const summaries = info.mock.calls.filter(([message]) => message === 'snapshot evaluated');
    expect(summaries.map(([, fields]) => fields)).toEqual(
      Array(3).fill(expect.objectContaining({ outcome: 'evaluated', sourceUnavailable: 0 })),
    );
  });

  it('IAM throttled past the deadline: a partial result that alerts IAM roles unreadable and is stored; the next item, left without time, is a batch item failure', async () => {
    // IAM throttles with HTTP 400 `Throttling` (the query protocol), until cleared.
    sandbox.faults.inject({ service: 'iam', operation: 'GetRole', status: 400, code: 'Throttling' });
    const warn = vi.spyOn(logger, 'warn');
    const snsBefore = sandbox.sns.length;

    // 6 s: the first item starts and its capture stops at 4.5 s; then < 1.5 s is left (< 2.25 s).
    const result = await work(batch('first', 'second'), contextWith(6_000));

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'second' }] });
    const notStarted = warn.mock.calls.filter(([message]) =>
      String(message).startsWith('snapshot not started'),
    );
    expect(notStarted).toHaveLength(1);
    expect(notStarted[0]?.[1]).toMatchObject({ messageId: 'second' });

    // Stored, never empty: IAM roles are an error naming the operation; the rest was read.
    const snapshot = await stored();
    expect(snapshot?.iamRoles).toEqual({
      status: 'error',
      error: expect.stringMatching(/GetRole .*deadline reached/),
    });
    expect(snapshot?.accessEntries.status).toBe('ok');
    expect(snapshot?.awsAuth.status).toBe('ok');

    // Alerted: monitor/source-unavailable for the IAM roles.
    const alerts = JSON.stringify(sandbox.sns.slice(snsBefore));
    expect(alerts).toContain('monitor/source-unavailable');
    expect(alerts).toContain('IAM roles');
  }, 30_000);
});
