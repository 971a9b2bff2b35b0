/**
 * Issue 8 case 4: an alert is not lost to a crash. The real onEksEvent handler runs in a child
 * process against the sandbox (EKS, Kubernetes, SNS, the Slack sink), dynalite, s3rver and the
 * local SQS/SSM endpoint. The first invocation is SIGKILLed after its claim is written (its S3
 * endpoint never answers, so it is still reading); the same record delivered again after the
 * claim's in-progress expiry alerts — once — and a third delivery is a duplicate.
 * On the claim-for-24-h design the second delivery answered "duplicate" and nothing was sent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DeleteNodegroupCommand, EKSClient } from '@aws-sdk/client-eks';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createS3Client, createS3SnapshotStore } from '../../shared/adapters/s3-snapshot-store.ts';
import { createStateTable, startDynalite } from '../support/dynamodb-helpers.ts';
import {
  type LocalQueueAndParameters,
  startLocalQueueAndParameters,
} from '../support/local-queue-and-parameters.ts';
import { loadScenario, ROOT } from '../support/snapshot-builder.ts';

const TABLE = 'sentinel-state';
const BUCKET = 'sentinel-snapshots';
const SLACK_PARAMETER = '/eks-auth-sentinel/slack-webhook';
const HANDLER = join(ROOT, 'functions', 'on-eks-event.ts');
const INVOKER = join(ROOT, 'test', 'support', 'invoke-handler.mjs');

let sandbox: Sandbox;
let dynamo: Awaited<ReturnType<typeof startDynalite>>;
let s3: S3rver;
let blackHole: Server;
let local: LocalQueueAndParameters;
let work: string;
let env: Record<string, string>;
let s3Endpoint: string;
let blackHoleEndpoint: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'event-crash-'));
  const scenario = loadScenario('a-karpenter-shares-last-nodegroup-role');
  sandbox = await startSandbox({ clusters: [{ snapshot: scenario }], sideEffectDelayMs: 60_000 });
  dynamo = await startDynalite();
  await createStateTable(dynamo.dynamodb, TABLE);
  const require = createRequire(import.meta.url);
  const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account.js') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  };
  DUMMY_ACCOUNT.createKeyPair(sandbox.credentials.accessKeyId, sandbox.credentials.secretAccessKey);
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(work, 's3'),
    configureBuckets: [{ name: BUCKET }],
  });
  s3Endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
  // The worker's last snapshot, as the event path finds it.
  const client = createS3Client(sandbox.env.AWS_REGION, {
    endpoint: s3Endpoint,
    forcePathStyle: true,
    credentials: sandbox.credentials,
  });
  await createS3SnapshotStore({ s3: client, bucket: BUCKET }).put(scenario);
  client.client.destroy();
  // An S3 endpoint that accepts requests and never answers: the first invocation stays in its reads.
  blackHole = createServer(() => undefined);
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', () => resolve()));
  blackHoleEndpoint = `http://127.0.0.1:${(blackHole.address() as { port: number }).port}`;
  local = await startLocalQueueAndParameters();
  local.parameters.set(SLACK_PARAMETER, sandbox.env.SLACK_WEBHOOK_URL);
  env = {
    PATH: process.env.PATH ?? '',
    HOME: work,
    ...sandbox.env,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SQS: local.endpoint,
    AWS_ENDPOINT_URL_SSM: local.endpoint,
    POWERTOOLS_LOG_LEVEL: 'WARN',
    TEST_ACCOUNT_ID: sandbox.accountId,
    SENTINEL_REGIONS: sandbox.env.AWS_REGION,
    SENTINEL_TABLE_NAME: TABLE,
    SENTINEL_BUCKET_NAME: BUCKET,
    SENTINEL_QUEUE_URL: `${local.endpoint}/${sandbox.accountId}/eks-auth-sentinel-work`,
    SENTINEL_TOPIC_ARN: `arn:aws:sns:${sandbox.env.AWS_REGION}:${sandbox.accountId}:eks-auth-sentinel-alerts`,
    SENTINEL_SLACK_WEBHOOK_PARAMETER: SLACK_PARAMETER,
    SENTINEL_MONITOR_PRINCIPAL_ARN: sandbox.principals.monitor,
    SENTINEL_MIN_SEVERITY_SNS: 'high',
  };
}, 120_000);

afterAll(async () => {
  blackHole?.closeAllConnections();
  await new Promise((resolve) => blackHole?.close(resolve));
  await local?.close();
  await s3?.close();
  await dynamo?.close();
  await sandbox?.close();
  rmSync(work, { recursive: true, force: true });
});

let n = 0;
function start(record: unknown, s3At: string, remainingMs: number) {
  n += 1;
  const eventFile = join(work, `event-${n}.json`);
  const resultFile = join(work, `result-${n}.json`);
  writeFileSync(eventFile, JSON.stringify(record));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', INVOKER, HANDLER, eventFile, resultFile, String(remainingMs)],
    { cwd: ROOT, env: { ...env, AWS_ENDPOINT_URL_S3: s3At }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const result = async () => {
    await exited;
    return JSON.parse(readFileSync(resultFile, 'utf8')) as { ok: boolean; result?: unknown; error?: unknown };
  };
  return { child, exited, result };
}

async function claimItem(eventId: string) {
  const out = await dynamo.dynamodb.client.send(
    new GetItemCommand({
      TableName: TABLE,
      Key: { pk: { S: `event#cloudtrail:${eventId}` }, sk: { S: 'event' } },
      ConsistentRead: true,
    }),
  );
  return out.Item;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('onEksEvent killed mid-way (issue 8 case 4)', () => {
  it('the retry after the in-progress expiry alerts once; a later redelivery is a duplicate', async () => {
    const eks = new EKSClient({
      region: sandbox.env.AWS_REGION,
      endpoint: sandbox.env.AWS_ENDPOINT_URL_EKS,
      credentials: sandbox.credentials,
    });
    const before = sandbox.cloudTrail.length;
    await eks.send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'general' }));
    eks.destroy();
    const record = sandbox.cloudTrail[before] as { detail: { eventID: string } };
    const eventId = record.detail.eventID;

    // 1. The first invocation claims the event, then hangs on S3; it is killed (timeout, OOM, crash).
    const first = start(record, blackHoleEndpoint, 8_000);
    let claim: Awaited<ReturnType<typeof claimItem>>;
    for (let i = 0; i < 600 && claim === undefined; i++) {
      claim = await claimItem(eventId);
      if (claim === undefined) await sleep(50);
    }
    first.child.kill('SIGKILL');
    await first.exited;
    expect(claim?.status?.S).toBe('IN_PROGRESS');
    expect(sandbox.slack).toHaveLength(0);
    expect(sandbox.sns).toHaveLength(0);
    // The claim expires just past the invocation's own timeout, not after 24 h.
    const inProgressUntil = Number(claim?.inProgressExpiresAt?.N);
    expect(inProgressUntil - Date.parse(claim?.claimedAt?.S ?? '')).toBeLessThanOrEqual(8_000 + 5_000);

    // 2. The asynchronous retry, after that expiry: it takes the claim again and alerts.
    while (Date.now() <= inProgressUntil) await sleep(200);
    const retry = await start(record, s3Endpoint, 30_000).result();
    expect(retry.ok, JSON.stringify(retry.error)).toBe(true);
    expect(retry.result).toMatchObject({ outcome: 'alerted', basis: 'stored-snapshot' });
    const slack = sandbox.slack.length;
    const sns = sandbox.sns.length;
    expect(JSON.stringify(sandbox.slack)).toContain('nodegroup/deletion-orphans-role');
    expect(sns).toBeGreaterThan(0);
    expect((await claimItem(eventId))?.status?.S).toBe('COMPLETED');

    // 3. Another redelivery: completed, nothing sent again.
    const again = await start(record, s3Endpoint, 30_000).result();
    expect(again.result).toMatchObject({ outcome: 'duplicate' });
    expect(sandbox.slack.length).toBe(slack);
    expect(sandbox.sns.length).toBe(sns);
  }, 120_000);
});
