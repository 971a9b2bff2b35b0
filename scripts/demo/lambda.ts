/**
 * Invoking the function bundles (`dist/functions/<fn>/index.js` or `.mjs`) as Lambda does: one process per
 * function, the module imported once (the cold start), then `handler(event, context)` with the
 * event shapes Lambda delivers and a context object with Lambda's fields.
 */
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { Sandbox } from '../../infra/sandbox/index.ts';
import { SLACK_WEBHOOK_PARAMETER } from '../../infra/sandbox/ssm-service.ts';
import type { LocalState } from './local-state.ts';

export const FUNCTION_NAMES = [
  'scheduler',
  'snapshotWorker',
  'onEksEvent',
  'report',
  'awsAuthCheck',
  'awsAuthWatch',
  'onAuditEvent',
] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

/**
 * The bundle of `fn` under `dir` (default dist/functions): `<fn>/index.js` (ESM, with a
 * `{"type":"module"}` package.json beside it) or `<fn>/index.mjs`, whichever the bundler wrote.
 */
export function bundlePath(dir: string, fn: FunctionName): string {
  const js = join(dir, fn, 'index.js');
  const mjs = join(dir, fn, 'index.mjs');
  return existsSync(js) || !existsSync(mjs) ? js : mjs;
}

export interface LocalFunction {
  fn: FunctionName;
  /** Module init (the bundle's import) in the fresh process, ms. */
  initMs: number;
  /** `handler(event, context)`; rejects with the handler's error (name and message). */
  invoke(event: unknown): Promise<{ result: unknown; durationMs: number }>;
  close(): void;
}

export class InvocationError extends Error {
  override readonly name = 'InvocationError';
}

type RuntimeMessage =
  | { type: 'ready'; initMs: number }
  | { id: number; ok: true; result: unknown; durationMs: number }
  | { id: number; ok: false; error: { name: string; message: string }; durationMs: number };

/**
 * Starts one function as Lambda does: a fresh `node` process (scripts/demo/lambda-runtime.mjs,
 * without the tsx loader) that imports the bundle once; every `invoke` is one warm invocation.
 * `env` is the function's whole environment (nothing is inherited).
 */
export async function startFunction(
  functionsDir: string,
  fn: FunctionName,
  env: Record<string, string>,
  options: { accountId: string; region: string; showLogs?: boolean; timeoutMs?: number },
): Promise<LocalFunction> {
  const file = bundlePath(functionsDir, fn);
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: run \`node scripts/bundle-functions.mjs\` (npm start does)`);
  }
  const child = fork(join(import.meta.dirname, 'lambda-runtime.mjs'), [file], {
    execArgv: [],
    env: {
      ...env,
      AWS_LAMBDA_FUNCTION_NAME: lambdaContext(fn, options.accountId, options.region).functionName,
    },
    stdio: ['ignore', options.showLogs ? 'inherit' : 'ignore', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (m: RuntimeMessage) => void>();
  let nextId = 1;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${fn}: the runtime process exited (${code})`))),
  );
  exited.catch(() => undefined);
  const ready = new Promise<number>((resolve) => {
    child.on('message', (m: RuntimeMessage) => {
      if ('type' in m) resolve(m.initMs);
      else pending.get(m.id)?.(m);
    });
  });
  const initMs = await Promise.race([ready, exited]);
  return {
    fn,
    initMs,
    async invoke(event) {
      const id = nextId++;
      const timeoutMs = options.timeoutMs ?? 30_000;
      const answer = new Promise<RuntimeMessage>((resolve) => pending.set(id, resolve));
      child.send({
        type: 'invoke',
        id,
        event,
        timeoutMs,
        context: lambdaContext(fn, options.accountId, options.region, 'dev', timeoutMs),
      });
      const m = await Promise.race([answer, exited]);
      pending.delete(id);
      if ('type' in m) throw new Error('unexpected runtime message');
      if (!m.ok) throw new InvocationError(`${fn}: ${m.error.name}: ${m.error.message}`);
      return { result: m.result, durationMs: m.durationMs };
    },
    close() {
      child.removeAllListeners('exit');
      child.kill();
    },
  };
}

/** A context object as the Lambda runtime passes it (timeout 30 s unless given). */
export function lambdaContext(
  fn: FunctionName,
  accountId: string,
  region: string,
  stage = 'dev',
  timeoutMs = 30_000,
): Context {
  const functionName = `eks-auth-sentinel-${stage}-${fn}`;
  const deadline = Date.now() + timeoutMs;
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${accountId}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The EventBridge schedule's event (`rate(5 minutes)`). */
export function scheduledEvent(accountId: string, region: string, stage = 'dev'): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: accountId,
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [
      `arn:aws:events:${region}:${accountId}:rule/eks-auth-sentinel-${stage}-SchedulerEventsRuleSchedule1`,
    ],
    detail: {},
  };
}

/** The functions' environment as serverless.yml sets it, with the local endpoints and keys. */
export function lambdaEnvironment(
  sandbox: Sandbox,
  state: LocalState,
  o: { accountId: string; region: string; verbose?: boolean; followUpDelaySeconds?: number },
): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'TZ', 'LANG']) {
    const value = process.env[key];
    if (value !== undefined) inherited[key] = value;
  }
  return {
    ...inherited,
    ...sandbox.env,
    ...state.env,
    AWS_DEFAULT_REGION: o.region,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    NODE_OPTIONS: '--enable-source-maps',
    POWERTOOLS_SERVICE_NAME: 'eks-auth-sentinel',
    POWERTOOLS_LOG_LEVEL: o.verbose === true ? 'INFO' : 'ERROR',
    SENTINEL_REGIONS: o.region,
    SENTINEL_TABLE_NAME: state.tableName,
    SENTINEL_BUCKET_NAME: state.bucketName,
    SENTINEL_QUEUE_URL: state.queueUrl,
    SENTINEL_TOPIC_ARN: `arn:aws:sns:${o.region}:${o.accountId}:eks-auth-sentinel-dev-alerts`,
    SENTINEL_SLACK_WEBHOOK_PARAMETER: SLACK_WEBHOOK_PARAMETER,
    SENTINEL_MONITOR_PRINCIPAL_ARN: sandbox.principals.monitor,
    SENTINEL_FOLLOW_UP_DELAY_SECONDS: String(o.followUpDelaySeconds ?? 60),
  };
}
