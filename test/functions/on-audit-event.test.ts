/**
 * The onAuditEvent handler (Middy, Powertools, its wiring) in a child process as Lambda runs it,
 * against the sandbox (EKS, Kubernetes, SNS, the Slack sink) and the local state services: a
 * subscription payload exactly as the sandbox's audit log delivers it alerts the removal with the
 * writer, a redelivery is `seen`, and an undecodable payload is ignored without a throw.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { lambdaEnvironment } from '../../scripts/demo/lambda.ts';
import { type LocalState, startLocalState } from '../../scripts/demo/local-state.ts';
import { createS3Client, createS3SnapshotStore } from '../../shared/adapters/s3-snapshot-store.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';
import { ACCOUNT, baseSnapshot, MAP_ROLES, REGION, SOLO_ROLE } from '../support/sandbox-seed.ts';
import { ROOT } from '../support/snapshot-builder.ts';

const HANDLER = join(ROOT, 'functions', 'on-audit-event.ts');
const INVOKER = join(ROOT, 'test', 'support', 'invoke-handler.mjs');
const WRITER = { arn: `arn:aws:iam::${ACCOUNT}:role/platform-admin`, sessionName: 'jane.doe' };

let sandbox: Sandbox;
let state: LocalState;
let work: string;
let env: Record<string, string>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'on-audit-event-'));
  sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP'), logging: ['audit'] }] });
  state = await startLocalState({ accountId: ACCOUNT, region: REGION, credentials: sandbox.credentials });
  env = {
    ...lambdaEnvironment(sandbox, state, { accountId: ACCOUNT, region: REGION }),
    TEST_ACCOUNT_ID: ACCOUNT,
  };
  const s3 = createS3Client(REGION, {
    endpoint: env.AWS_ENDPOINT_URL_S3 as string,
    forcePathStyle: true,
    credentials: sandbox.credentials,
  });
  await createS3SnapshotStore({ s3, bucket: state.bucketName }).put(
    await captureSnapshot(sandboxDeps(sandbox), { region: REGION, clusterName: 'prod' }),
  );
  s3.client.destroy();
  sandbox.audit.drain();
}, 60_000);

afterAll(async () => {
  await state?.close();
  await sandbox?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

let runs = 0;
async function invoke(event: unknown): Promise<{ ok: boolean; result?: Record<string, unknown> }> {
  runs += 1;
  const eventFile = join(work, `event-${runs}.json`);
  const resultFile = join(work, `result-${runs}.json`);
  writeFileSync(eventFile, JSON.stringify(event));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', INVOKER, HANDLER, eventFile, resultFile, '30000'],
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  await new Promise((resolve) => child.on('exit', resolve));
  return JSON.parse(readFileSync(resultFile, 'utf8'));
}

describe('onAuditEvent (handler)', () => {
  it('alerts an aws-auth write from its audit event with the writer; a redelivery is seen', async () => {
    const without = MAP_ROLES.split(/\n(?=- )/)
      .filter((e) => !e.includes(SOLO_ROLE))
      .join('\n');
    const slackBefore = sandbox.slack.length;
    sandbox.cluster('prod').putAwsAuth({ mapRoles: without }, { manager: 'kubectl-edit', by: WRITER });
    const [payload] = sandbox.audit.drain('prod');
    const first = await invoke(payload);
    expect(first.ok).toBe(true);
    expect(first.result).toMatchObject({ outcome: 'handled', cluster: 'prod' });
    const writes = (r: typeof first) => (r.result?.writes ?? []) as Array<{ outcome: string }>;
    expect(writes(first)[0]?.outcome).toBe('evaluated');
    const slack = JSON.stringify(sandbox.slack.slice(slackBefore));
    expect(slack).toContain('jane.doe');
    const again = await invoke(payload);
    expect(writes(again)[0]?.outcome).toBe('seen');
  }, 60_000);

  it('an undecodable payload is ignored with its reason, not retried', async () => {
    const r = await invoke({ awslogs: { data: 'bm90IGd6aXA=' } });
    expect(r).toEqual({ ok: true, result: { outcome: 'ignored', reason: 'awslogs.data is not gzip' } });
  }, 60_000);
});
