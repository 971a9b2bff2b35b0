/**
 * `npx tsx scripts/local-monitor-env.ts [--scenarios DIR] [--side-effect-delay MS]`
 *
 * Everything the Lambda functions talk to, locally, for `serverless invoke local --stage local`:
 * the sandbox account (EKS, EC2, IAM, STS, SNS, Slack sink, Kubernetes; one cluster per scenario
 * file, named after it), dynalite with the state table, s3rver with the snapshot bucket, and a
 * local SQS/SSM endpoint (the work queue; the Slack webhook URL as an SSM parameter).
 * Prints `export …` lines (sandbox credentials + endpoints + every SENTINEL_* variable), logs
 * the sandbox timeline, queued work items and SNS/Slack deliveries to stderr, runs until Ctrl-C.
 * Ready-made Lambda events for `invoke local -p` land in `--out` (default .sentinel/local):
 * `schedule.json`; `cloudtrail-<n>-<EventName>.json` for each EKS write call made against the
 * sandbox (as EventBridge delivers it); `sqs-<n>.json` for each queued work item (as an SQS batch).
 *
 *   npx tsx scripts/local-monitor-env.ts > /tmp/sentinel.env &      # terminal 1 (or `&`)
 *   set -a; . /tmp/sentinel.env; set +a                             # terminal 2
 *   npm run bundle
 *   npx serverless invoke local --stage local --region "$AWS_REGION" -f report -d '{"cluster":"healthy-api-mode"}'
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import S3rver from 's3rver';
import { startSandbox } from '../infra/sandbox/index.ts';
import { loadScenarios } from '../infra/sandbox/scenarios.ts';
import { createStateTable, startDynalite } from '../test/support/dynamodb-helpers.ts';
import { startLocalQueueAndParameters } from '../test/support/local-queue-and-parameters.ts';

const TABLE = 'eks-auth-sentinel-local';
const BUCKET = 'eks-auth-sentinel-local';
const SLACK_PARAMETER = '/eks-auth-sentinel/slack-webhook';

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenarios: { type: 'string', default: 'scenarios' },
      'side-effect-delay': { type: 'string', default: '5000' },
      out: { type: 'string', default: join('.sentinel', 'local') },
    },
    strict: true,
  });
  const dir = resolve(values.scenarios ?? 'scenarios');
  const sandbox = await startSandbox({
    clusters: await loadScenarios(dir),
    sideEffectDelayMs: Number(values['side-effect-delay']),
  });
  const dynamo = await startDynalite();
  await createStateTable(dynamo.dynamodb, TABLE);
  const require = createRequire(import.meta.url);
  const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account.js') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  };
  DUMMY_ACCOUNT.createKeyPair(sandbox.credentials.accessKeyId, sandbox.credentials.secretAccessKey);
  const s3dir = mkdtempSync(join(tmpdir(), 'sentinel-s3-'));
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: s3dir,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await s3.run();
  const local = await startLocalQueueAndParameters();
  local.parameters.set(SLACK_PARAMETER, sandbox.env.SLACK_WEBHOOK_URL);
  const region = sandbox.env.AWS_REGION;
  const env: Record<string, string> = {
    ...sandbox.env,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
    AWS_ENDPOINT_URL_SQS: local.endpoint,
    AWS_ENDPOINT_URL_SSM: local.endpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    SENTINEL_REGIONS: region,
    SENTINEL_TABLE_NAME: TABLE,
    SENTINEL_BUCKET_NAME: BUCKET,
    SENTINEL_QUEUE_URL: `${local.endpoint}/${sandbox.accountId}/eks-auth-sentinel-work`,
    SENTINEL_TOPIC_ARN: `arn:aws:sns:${region}:${sandbox.accountId}:eks-auth-sentinel-alerts`,
    SENTINEL_SLACK_WEBHOOK_PARAMETER: SLACK_PARAMETER,
    SENTINEL_MONITOR_PRINCIPAL_ARN: sandbox.principals.monitor,
  };
  const out = resolve(values.out ?? join('.sentinel', 'local'));
  mkdirSync(out, { recursive: true });
  const write = (name: string, event: unknown): void => {
    writeFileSync(join(out, name), `${JSON.stringify(event, null, 2)}\n`);
    process.stderr.write(`# event: ${join(out, name)}\n`);
  };
  write('schedule.json', {
    version: '0',
    id: '00000000-0000-4000-8000-000000000000',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: sandbox.accountId,
    time: new Date().toISOString(),
    region,
    resources: [`arn:aws:events:${region}:${sandbox.accountId}:rule/eks-auth-sentinel-local-schedule`],
    detail: {},
  });
  for (const [k, v] of Object.entries(env)) process.stdout.write(`export ${k}=${quote(v)}\n`);
  process.stderr.write(
    `# local monitor: sandbox account ${sandbox.accountId} (${region}), dynalite, s3rver, SQS/SSM; Ctrl-C to stop\n`,
  );

  const seen = { timeline: 0, messages: 0, sns: 0, slack: 0, trail: 0 };
  const timer = setInterval(() => {
    for (; seen.timeline < sandbox.timeline.length; seen.timeline++) {
      const t = sandbox.timeline[seen.timeline];
      if (t) process.stderr.write(`# ${new Date(t.at).toISOString()} ${t.what}\n`);
    }
    for (; seen.messages < local.messages.length; seen.messages++) {
      const m = local.messages[seen.messages];
      if (!m) continue;
      process.stderr.write(`# queued (delay ${m.delaySeconds ?? 0} s): ${m.body}\n`);
      write(`sqs-${seen.messages + 1}.json`, {
        Records: [
          {
            messageId: `local-${seen.messages + 1}`,
            receiptHandle: `local-${seen.messages + 1}`,
            body: m.body,
            attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
            messageAttributes: {},
            md5OfBody: '',
            eventSource: 'aws:sqs',
            eventSourceARN: `arn:aws:sqs:${region}:${sandbox.accountId}:eks-auth-sentinel-work`,
            awsRegion: region,
          },
        ],
      });
    }
    for (; seen.trail < sandbox.cloudTrail.length; seen.trail++) {
      const record = sandbox.cloudTrail[seen.trail] as { detail?: { eventName?: string } };
      write(`cloudtrail-${seen.trail + 1}-${record.detail?.eventName ?? 'event'}.json`, record);
    }
    for (; seen.sns < sandbox.sns.length; seen.sns++)
      process.stderr.write(`# SNS: ${sandbox.sns[seen.sns]?.subject ?? ''}\n`);
    for (; seen.slack < sandbox.slack.length; seen.slack++)
      process.stderr.write('# Slack: message received\n');
  }, 500);
  const stop = (): void => {
    clearInterval(timer);
    void Promise.all([local.close(), s3.close(), dynamo.close(), sandbox.close()]).then(() => {
      rmSync(s3dir, { recursive: true, force: true });
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`local-monitor-env: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
