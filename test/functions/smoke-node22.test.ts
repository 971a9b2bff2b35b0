/**
 * Smoke test of the Lambda bundles on a REAL Node 22 (the nodejs22.x runtime; tests themselves
 * run on the machine's Node 20): each bundle is imported and its `handler(event, context)` called
 * with the event shape Lambda gives it — schedule, SQS batch, EventBridge CloudTrail record,
 * direct invoke — against the sandbox account (EKS, EC2, IAM, STS, SNS, Slack, Kubernetes),
 * dynalite (DynamoDB), s3rver (S3) and a local SQS/SSM endpoint.
 *
 * Node 22 comes from tools/node22 (`npm ci --prefix tools/node22`); without it the test is
 * skipped with a loud reason.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DeleteNodegroupCommand, EKSClient } from '@aws-sdk/client-eks';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createStateTable, startDynalite } from '../support/dynamodb-helpers.ts';
import {
  type LocalQueueAndParameters,
  startLocalQueueAndParameters,
} from '../support/local-queue-and-parameters.ts';
import { loadScenario, ROOT } from '../support/snapshot-builder.ts';

const run = promisify(execFile);
const NODE22 = join(ROOT, 'tools', 'node22', 'node_modules', '.bin', 'node');
const HAVE_NODE22 = existsSync(join(ROOT, 'tools', 'node22', 'node_modules'));
if (!HAVE_NODE22) {
  console.warn(
    '\n*** SKIPPED test/functions/smoke-node22.test.ts: tools/node22/node_modules is missing — run `npm ci --prefix tools/node22` to smoke-test the bundles on Node 22 ***\n',
  );
}

const TABLE = 'sentinel-state';
const BUCKET = 'sentinel-snapshots';
const SLACK_PARAMETER = '/eks-auth-sentinel/slack-webhook';
const FUNCTIONS = ['scheduler', 'snapshotWorker', 'onEksEvent', 'report'] as const;
type FunctionName = (typeof FUNCTIONS)[number];

let sandbox: Sandbox;
let dynamo: Awaited<ReturnType<typeof startDynalite>>;
let s3: S3rver;
let local: LocalQueueAndParameters;
let work: string;
let env: Record<string, string>;

beforeAll(async () => {
  if (!HAVE_NODE22) return;
  work = mkdtempSync(join(tmpdir(), 'smoke-node22-'));
  await run(
    process.execPath,
    [join(ROOT, 'scripts', 'bundle-functions.mjs'), '--outdir', join(work, 'bundles')],
    {
      cwd: ROOT,
    },
  );
  sandbox = await startSandbox({
    clusters: [{ snapshot: loadScenario('a-karpenter-shares-last-nodegroup-role') }],
    // EKS edits aws-auth a while after the call, as in AWS: the event path must be faster.
    sideEffectDelayMs: 3_000,
    notReadyDelayMs: 60_000,
  });
  dynamo = await startDynalite();
  await createStateTable(dynamo.dynamodb, TABLE);
  // s3rver checks signatures: register the sandbox monitor's keys with it.
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
  const { port: s3Port } = await s3.run();
  local = await startLocalQueueAndParameters();
  local.parameters.set(SLACK_PARAMETER, sandbox.env.SLACK_WEBHOOK_URL);
  env = {
    PATH: process.env.PATH ?? '',
    HOME: work,
    ...sandbox.env,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${s3Port}`,
    AWS_ENDPOINT_URL_SQS: local.endpoint,
    AWS_ENDPOINT_URL_SSM: local.endpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    SMOKE_ACCOUNT_ID: sandbox.accountId,
    SENTINEL_REGIONS: sandbox.env.AWS_REGION,
    SENTINEL_TABLE_NAME: TABLE,
    SENTINEL_BUCKET_NAME: BUCKET,
    SENTINEL_QUEUE_URL: `${local.endpoint}/${sandbox.accountId}/eks-auth-sentinel-work`,
    SENTINEL_TOPIC_ARN: `arn:aws:sns:${sandbox.env.AWS_REGION}:${sandbox.accountId}:eks-auth-sentinel-alerts`,
    SENTINEL_SLACK_WEBHOOK_PARAMETER: SLACK_PARAMETER,
    SENTINEL_MONITOR_PRINCIPAL_ARN: sandbox.principals.monitor,
    SENTINEL_MIN_SEVERITY_SNS: 'low',
  };
}, 120_000);

afterAll(async () => {
  if (!HAVE_NODE22) return;
  await local?.close();
  await s3?.close();
  await dynamo?.close();
  await sandbox?.close();
  rmSync(work, { recursive: true, force: true });
});

interface Invocation {
  ok: boolean;
  result?: unknown;
  error?: { name: string; constructorName: string; message: string };
  node: string;
  logs: Array<Record<string, unknown>>;
}

let invocations = 0;
async function invoke(fn: FunctionName, event: unknown): Promise<Invocation> {
  const n = ++invocations;
  const eventFile = join(work, `event-${n}.json`);
  const resultFile = join(work, `result-${n}.json`);
  writeFileSync(eventFile, JSON.stringify(event));
  const { stdout } = await run(
    NODE22,
    [
      join(ROOT, 'test', 'support', 'invoke-bundle.mjs'),
      join(work, 'bundles', fn, 'index.js'),
      eventFile,
      resultFile,
      `eks-auth-sentinel-smoke-${fn}`,
    ],
    { env, cwd: work, timeout: 60_000 },
  );
  const logs = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ...(JSON.parse(readFileSync(resultFile, 'utf8')) as Omit<Invocation, 'logs'>), logs };
}

const sqsRecord = (body: string, messageId: string) => ({
  messageId,
  receiptHandle: `rh-${messageId}`,
  body,
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: String(Date.now()),
    SenderId: 'AROAEXAMPLE',
    ApproximateFirstReceiveTimestamp: String(Date.now()),
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: `arn:aws:sqs:${env.AWS_REGION}:${sandbox.accountId}:eks-auth-sentinel-work`,
  awsRegion: env.AWS_REGION,
});

describe.skipIf(!HAVE_NODE22)('Lambda bundles on Node 22', () => {
  it('scheduler: a schedule event queues one work item per cluster', async () => {
    const out = await invoke('scheduler', {
      version: '0',
      id: 'c5f1f1c6-0a7d-4a3e-9a5e-0a0000000001',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: sandbox.accountId,
      time: new Date().toISOString(),
      region: env.AWS_REGION,
      resources: [`arn:aws:events:${env.AWS_REGION}:${sandbox.accountId}:rule/eks-auth-sentinel-smoke`],
      detail: {},
    });
    expect(out.node).toMatch(/^v22\./);
    expect(out.ok, JSON.stringify(out.error)).toBe(true);
    expect(out.result).toMatchObject({ enqueued: 1, clusters: [`${env.AWS_REGION}/prod`] });
    expect(local.messages).toHaveLength(1);
    expect(JSON.parse(local.messages[0]?.body ?? '{}')).toMatchObject({
      clusterName: 'prod',
      reason: 'schedule',
    });
    expect(out.logs.some((l) => l.message === 'clusters scheduled' && l.level === 'INFO')).toBe(true);
  });

  it('snapshotWorker: an SQS batch is captured, alerted and stored; a bad message is a partial batch failure', async () => {
    const body = local.messages[0]?.body ?? '';
    const out = await invoke('snapshotWorker', {
      Records: [sqsRecord(body, 'good-1'), sqsRecord('{"not":"an item"}', 'bad-1')],
    });
    expect(out.ok, JSON.stringify(out.error)).toBe(true);
    expect(out.result).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad-1' }] });
    const summary = out.logs.find((l) => l.message === 'snapshot evaluated');
    expect(summary).toMatchObject({
      outcome: 'evaluated',
      cluster: `${env.AWS_REGION}/prod`,
      sourceUnavailable: 0,
    });
    expect(sandbox.sns.length).toBeGreaterThan(0); // the open low finding (CONFIG_MAP only)
    expect(sandbox.calls.some((c) => c.service === 'ec2')).toBe(true);
  });

  it('onEksEvent: the DeleteNodegroup CloudTrail record alerts Slack and SNS before EKS edits aws-auth, once per eventID, without EC2/IAM', async () => {
    const eks = new EKSClient({
      region: sandbox.env.AWS_REGION,
      endpoint: sandbox.env.AWS_ENDPOINT_URL_EKS,
      credentials: sandbox.credentials,
    });
    const trailBefore = sandbox.cloudTrail.length;
    await eks.send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'general' }));
    eks.destroy();
    const record = sandbox.cloudTrail[trailBefore] as { detail: { eventID: string } };
    expect(record).toBeDefined();
    const callsBefore = sandbox.calls.length;
    const slackBefore = sandbox.slack.length;
    const snsBefore = sandbox.sns.length;

    const out = await invoke('onEksEvent', record);
    expect(out.ok, JSON.stringify(out.error)).toBe(true);
    expect(out.result).toMatchObject({ outcome: 'alerted', basis: 'stored-snapshot' });
    expect(JSON.stringify(sandbox.slack.slice(slackBefore))).toContain('nodegroup/deletion-orphans-role');
    expect(sandbox.sns.length).toBeGreaterThan(snsBefore);
    // Before EKS's own edit of aws-auth (and long before the nodes go NotReady).
    expect(sandbox.timeline.some((t) => /EKS removed .*aws-auth/.test(t.what))).toBe(false);
    const services = new Set(sandbox.calls.slice(callsBefore).map((c) => c.service));
    expect(services.has('ec2')).toBe(false);
    expect(services.has('iam')).toBe(false);
    const logged = out.logs.find((l) => l.message === 'eks event handled');
    expect(logged).toMatchObject({ eventId: record.detail.eventID, cluster: `${env.AWS_REGION}/prod` });
    const followUp = local.messages.at(-1);
    expect(followUp?.delaySeconds).toBe(60);
    expect(JSON.parse(followUp?.body ?? '{}')).toMatchObject({ reason: 'follow-up' });

    const slackAfterFirst = sandbox.slack.length;
    const again = await invoke('onEksEvent', record);
    expect(again.result).toMatchObject({ outcome: 'duplicate' });
    expect(sandbox.slack.length).toBe(slackAfterFirst);
  });

  it('report: a direct invoke returns the report as JSON with Markdown inside', async () => {
    const out = await invoke('report', { cluster: 'prod', region: env.AWS_REGION });
    expect(out.ok, JSON.stringify(out.error)).toBe(true);
    const report = out.result as { clusters: Array<{ cluster: string }>; markdown: string };
    expect(report.clusters.map((c) => c.cluster)).toEqual(['prod']);
    expect(report.markdown).toContain('prod');
    const invalid = await invoke('report', { cluster: 'prod', colour: 'blue' });
    expect(invalid.ok).toBe(false);
    expect(invalid.error?.name).toBe('ReportRequestError');
  });

  it('a thrown error keeps its class name through minification (errorType in Lambda and in `serverless invoke local`)', async () => {
    const invalid = await invoke('report', { cluster: 'prod', colour: 'blue' });
    expect(invalid.error).toMatchObject({
      name: 'ReportRequestError',
      constructorName: 'ReportRequestError',
    });
    // A cold start without configuration: every function throws the same ConfigError.
    const saved = env;
    env = { PATH: saved.PATH ?? '', HOME: work, AWS_REGION: saved.AWS_REGION ?? 'eu-west-1' };
    try {
      for (const fn of FUNCTIONS) {
        const out = await invoke(fn, {});
        expect(out.error, fn).toMatchObject({ name: 'ConfigError', constructorName: 'ConfigError' });
        expect(out.error?.message, fn).toContain('SENTINEL_REGIONS');
      }
    } finally {
      env = saved;
    }
  });
});
