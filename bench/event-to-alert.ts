/**
 * Event to alert: from invoking the onEksEvent bundle with a DeleteNodegroup CloudTrail record
 * (as EventBridge delivers it) to the Slack sink receiving the message. Sandbox account seeded
 * with scenario a, 20 ms of latency on every AWS call — the sandbox's (EKS, SNS, SSM, STS,
 * Kubernetes) and the state services' (DynamoDB, S3, SQS: scripts/demo/local-state.ts) — and
 * the function in its own `node` process as Lambda runs it (scripts/demo/lambda.ts).
 *
 *   cold: a fresh process — module init (import) + the first invocation, to the Slack message;
 *         also given from the process spawn (node's own start included).
 *   warm: the next invocations in the same process, each with a new eventID (the alert state
 *         is reset in between, so that each one alerts), median. Each starts once the Slack
 *         sender's pacing (1 message/s per channel, shared/adapters/slack.ts) is idle again: the
 *         event path, not the pacing, is what this row measures.
 *   paced: alerts back to back (a new one as soon as the previous reached Slack), median: what
 *         the pacing adds when several alerts leave one process within a second.
 * Sequential AWS round trips on the warm path: the longest chain of calls in which each starts
 * after the previous one ended (calls from the sandbox's `calls` and the state proxies), up to
 * the Slack message — the number the latency multiplies. Goals: warm ≤ 4 round trips and
 * < 300 ms; cold < 1 s. `BENCH_DEBUG=1` prints every call of each run on stderr.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DeleteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteNodegroupCommand, EKSClient } from '@aws-sdk/client-eks';
import { startSandbox } from '../infra/sandbox/index.ts';
import { lambdaEnvironment, startFunction } from '../scripts/demo/lambda.ts';
import { sqsEvent, startLocalState } from '../scripts/demo/local-state.ts';
import { ALERTS_SK, alertStatePk } from '../shared/adapters/dynamodb-alert-store.ts';
import { parseSnapshotJson } from '../shared/core/snapshot/snapshot-schema.ts';
import { buildBundles, median } from './cold-start.ts';

export const LATENCY_MS = 20;
const WARM_RUNS = Number(process.env.BENCH_WARM_RUNS ?? 7);
const PACED_RUNS = 3;
/** The Slack sender's least interval between two messages to one channel (its default). */
const SLACK_INTERVAL_MS = 1000;
const ROOT = join(import.meta.dirname, '..');

interface Interval {
  what: string;
  start: number;
  end: number;
}

export interface EventToAlertResult {
  cold: { fromSpawnMs: number; initMs: number; importPlusInvokeMs: number; invokeToSlackMs: number };
  warmMs: number[];
  warmMedianMs: number;
  /** Back to back: each alert invoked as soon as the previous one reached Slack. */
  pacedMs: number[];
  pacedMedianMs: number;
  /** Between the Slack messages of the back-to-back alerts (the pacing's interval, and a POST). */
  pacedSpacingMs: number[];
  roundTrips: number[];
  roundTripsMedian: number;
  /** The chain of the median warm run, e.g. `dynamodb ‖ s3 ‖ eks:DescribeCluster → …`. */
  chain: string;
}

/** The longest chain of calls each starting after the previous ended (greedy by end time). */
function sequentialChain(calls: Interval[]): Interval[] {
  const sorted = [...calls].sort((a, b) => a.end - b.end);
  const chain: Interval[] = [];
  let last = Number.NEGATIVE_INFINITY;
  for (const c of sorted) {
    if (c.start >= last - 1) {
      chain.push(c);
      last = c.end;
    }
  }
  return chain;
}

export async function benchEventToAlert(functionsDir?: string): Promise<EventToAlertResult> {
  const dir = functionsDir ?? (await buildBundles());
  const file = 'a-karpenter-shares-last-nodegroup-role.json';
  const parsed = parseSnapshotJson(readFileSync(join(ROOT, 'scenarios', file), 'utf8'), file);
  if (!parsed.ok) throw new Error(`scenarios/${file} is not a valid snapshot`);
  const snapshot = parsed.snapshot;
  const { accountId, region, clusterName } = snapshot;
  // EKS's own side effect never comes during the bench: every run predicts the same deletion.
  const sandbox = await startSandbox({
    clusters: [{ snapshot }],
    latencyMs: LATENCY_MS,
    sideEffectDelayMs: 600_000,
    notReadyDelayMs: 600_000,
  });
  const state = await startLocalState({
    accountId,
    region,
    credentials: sandbox.credentials,
    latencyMs: LATENCY_MS,
  });
  const env = lambdaEnvironment(sandbox, state, { accountId, region });
  const closers: Array<() => void> = [];
  try {
    // The baseline snapshot, stored by the worker.
    const worker = await startFunction(dir, 'snapshotWorker', env, { accountId, region });
    closers.push(() => worker.close());
    const item = { accountId, region, clusterName, reason: 'schedule' };
    await worker.invoke(
      sqsEvent(
        [{ messageId: randomUUID(), body: JSON.stringify(item), delaySeconds: 0, sentAt: Date.now() }],
        'arn:aws:sqs:local',
        region,
      ),
    );
    const baselineSlack = sandbox.slack.length;

    const eks = new EKSClient({
      region,
      endpoint: sandbox.env.AWS_ENDPOINT_URL_EKS,
      credentials: sandbox.outsiderCredentials,
    });
    await eks.send(new DeleteNodegroupCommand({ clusterName, nodegroupName: 'general' }));
    eks.destroy();
    const record = sandbox.cloudTrail.at(-1) as { id: string; detail: { eventID: string } };
    const withNewEventId = () => ({
      ...record,
      id: randomUUID(),
      detail: { ...record.detail, eventID: randomUUID() },
    });
    const slackAfter = async (count: number): Promise<number> => {
      for (let i = 0; i < 200 && sandbox.slack.length <= count; i++)
        await new Promise((r) => setTimeout(r, 10));
      const m = sandbox.slack[count];
      if (m === undefined) throw new Error('the Slack sink received nothing');
      return m.at;
    };

    // Cold: a fresh process.
    const spawned = Date.now();
    const fn = await startFunction(dir, 'onEksEvent', env, { accountId, region });
    closers.push(() => fn.close());
    const invoked = Date.now();
    await fn.invoke(record);
    const coldSlack = await slackAfter(baselineSlack);
    if (process.env.BENCH_DEBUG) {
      const rows = [
        ...sandbox.calls
          .filter((c) => c.at >= invoked)
          .map((c) => ({ what: `${c.service}:${c.operation}`, end: c.at })),
        ...state.calls
          .filter((c) => c.end >= invoked)
          .map((c) => ({ what: c.service, end: c.end, start: c.start })),
      ].sort((a, b) => a.end - b.end);
      process.stderr.write(
        `cold invoke→slack ${coldSlack - invoked} ms: ${rows.map((r) => `${r.what} …${r.end - invoked}`).join(', ')}\n`,
      );
    }
    const cold = {
      fromSpawnMs: coldSlack - spawned,
      initMs: fn.initMs,
      importPlusInvokeMs: fn.initMs + (coldSlack - invoked),
      invokeToSlackMs: coldSlack - invoked,
    };

    // Warm: the same process, a new eventID each time, the alert state reset so that it alerts again.
    const dynamodb = new DynamoDBClient({
      region,
      endpoint: env.AWS_ENDPOINT_URL_DYNAMODB as string,
      credentials: sandbox.credentials,
    });
    const pk = alertStatePk({ accountId, region, clusterName });
    const warmMs: number[] = [];
    const roundTrips: number[] = [];
    const chains: string[] = [];
    const resetAlertState = () =>
      dynamodb.send(
        new DeleteItemCommand({ TableName: state.tableName, Key: { pk: { S: pk }, sk: { S: ALERTS_SK } } }),
      );
    /** Until the sender's pacing is idle: its interval after the last answer (which follows the sink's copy). */
    const pacingIdle = async () => {
      const lastAt = sandbox.slack.at(-1)?.at ?? 0;
      const wait = lastAt + SLACK_INTERVAL_MS + 200 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    };
    for (let i = 0; i < WARM_RUNS; i++) {
      await resetAlertState();
      await pacingIdle();
      const slackBefore = sandbox.slack.length;
      const start = Date.now();
      await fn.invoke(withNewEventId());
      const slackAt = await slackAfter(slackBefore);
      warmMs.push(slackAt - start);
      const calls: Interval[] = [
        ...sandbox.calls
          .filter((c) => c.service !== 'slack' && c.at - LATENCY_MS >= start - 1 && c.at <= slackAt)
          .map((c) => ({ what: `${c.service}:${c.operation}`, start: c.at - LATENCY_MS, end: c.at })),
        ...state.calls
          .filter((c) => c.start >= start - 1 && c.end <= slackAt)
          .map((c) => ({ what: c.service, start: c.start, end: c.end })),
      ];
      const chain = sequentialChain(calls);
      if (process.env.BENCH_DEBUG) {
        const rows = calls
          .sort((a, b) => a.start - b.start)
          .map((c) => `${c.what} ${c.start - start}–${c.end - start}`);
        process.stderr.write(`warm ${slackAt - start} ms: ${rows.join(', ')}\n`);
      }
      roundTrips.push(chain.length);
      // Calls overlapping each chain link, for the record.
      chains.push(
        chain
          .map((link) =>
            [
              ...new Set(calls.filter((c) => c.start < link.end && c.end > link.start).map((c) => c.what)),
            ].join(' ‖ '),
          )
          .join(' → '),
      );
    }
    // Paced: back to back, the pacing busy.
    const pacedMs: number[] = [];
    await resetAlertState();
    await pacingIdle();
    let previous = sandbox.slack.length;
    await fn.invoke(withNewEventId());
    let previousAt = await slackAfter(previous);
    const pacedSpacingMs: number[] = [];
    for (let i = 0; i < PACED_RUNS; i++) {
      await resetAlertState();
      previous = sandbox.slack.length;
      const start = Date.now();
      await fn.invoke(withNewEventId());
      const at = await slackAfter(previous);
      pacedMs.push(at - start);
      pacedSpacingMs.push(at - previousAt);
      previousAt = at;
    }
    dynamodb.destroy();
    const warmMedianMs = median(warmMs);
    const medianIndex = warmMs.indexOf(
      [...warmMs].sort((a, b) => a - b)[warmMs.length >> 1] ?? warmMs[0] ?? 0,
    );
    return {
      cold,
      warmMs,
      warmMedianMs,
      pacedMs,
      pacedMedianMs: median(pacedMs),
      pacedSpacingMs,
      roundTrips,
      roundTripsMedian: median(roundTrips),
      chain: chains[medianIndex] ?? '',
    };
  } finally {
    for (const close of closers) close();
    await state.close();
    await sandbox.close();
  }
}

export function eventToAlertMarkdown(r: EventToAlertResult): string {
  const met = (ok: boolean) => (ok ? 'met' : 'missed');
  return [
    `onEksEvent bundle in its own \`node\` (${process.version}) process, invoked with the DeleteNodegroup record of scenario a as EventBridge delivers it; every AWS call (sandbox EKS/SNS/SSM/Kubernetes, local DynamoDB/S3/SQS) ${LATENCY_MS} ms; time until the Slack sink has the message.`,
    '',
    '| | time to the Slack message | sequential AWS round trips |',
    '|---|---:|---:|',
    `| cold: import + first invocation | ${r.cold.importPlusInvokeMs.toFixed(0)} ms (init ${r.cold.initMs.toFixed(0)} + invocation ${r.cold.invokeToSlackMs} ms); ${r.cold.fromSpawnMs} ms from the process spawn | |`,
    `| warm (median of ${r.warmMs.length}, a new eventID each, the Slack pacing idle) | ${r.warmMedianMs.toFixed(0)} ms (${r.warmMs.join(', ')}) | ${r.roundTripsMedian} (${r.roundTrips.join(', ')}); ${(r.warmMedianMs / LATENCY_MS).toFixed(1)} × ${LATENCY_MS} ms |`,
    `| paced: alerts back to back (median of ${r.pacedMs.length}), the sender keeping Slack's 1 message/s per channel | ${r.pacedMedianMs.toFixed(0)} ms (${r.pacedMs.join(', ')}); the messages ${r.pacedSpacingMs.join(', ')} ms apart | |`,
    '',
    `Warm chain (calls in flight at each step): ${r.chain}, then the Slack POST.`,
    '',
    `Goals: warm ≤ 4 round trips — **${met(r.roundTripsMedian <= 4)}**; warm < 300 ms — **${met(r.warmMedianMs < 300)}**; cold < 1 s — **${met(r.cold.importPlusInvokeMs < 1000)}** (import + first invocation).`,
  ].join('\n');
}

/** `npx tsx bench/event-to-alert.ts`: this section alone. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${eventToAlertMarkdown(await benchEventToAlert())}\n`);
}
