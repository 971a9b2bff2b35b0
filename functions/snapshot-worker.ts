/**
 * snapshotWorker — SQS (one work item per message): capture, compare, evaluate, alert, store.
 * Answers with `batchItemFailures` (ReportBatchItemFailures): a failed item is retried alone and
 * reaches the DLQ after the queue's maxReceiveCount; the others are deleted.
 * Logs one summary line per item; `sourceUnavailable` is the metric of the blindness alarm.
 *
 * One deadline per invocation (`context.getRemainingTimeInMillis()` on the injected clock, the
 * `deadline` middleware of lib/deadline.ts): each item's capture stops
 * retrying `AFTER_CAPTURE_MS` before it, so the run still evaluates, alerts and stores a partial
 * snapshot (the sources not read are `error` "deadline reached", alerted `monitor/source-unavailable`)
 * instead of being killed by the Lambda timeout with nothing said. An item not started while
 * less than `AFTER_CAPTURE_MS + MIN_CAPTURE_MS` remains is a batch item failure (retried alone later).
 * Without a context (tests, `invoke local`) there is no deadline.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { IN_PROGRESS_MARGIN_MS, runSnapshot } from '../shared/app/run-snapshot.ts';
import { deadline, type InvocationDeadline, invocationDeadline } from './lib/deadline.ts';
import { parseWorkItem } from './lib/handler-inputs.ts';
import { logOutcome } from './lib/outcome-log.ts';
import { coldStartConfig, logger, once } from './lib/runtime.ts';
import { createWorkerWiring } from './wiring/worker.ts';

const deps = once(() => createWorkerWiring(coldStartConfig(), process.env));

/**
 * Kept from the invocation's deadline for what follows each capture: 40 s, at most a quarter of
 * the invocation. One state call (DynamoDB alert records, SNS, Slack, SQS, the S3 put) may use its
 * whole 20 s call budget (`clientOptions().callBudgetMs`) while the others answer at their usual
 * pace, plus the evaluation of a large aws-auth. The quarter keeps a shorter timeout workable
 * (the demo and smoke harnesses give 30 s).
 */
export const AFTER_CAPTURE_MS = 40_000;
/**
 * An item starts only with this much time for its capture: 20 s, at most an eighth of the
 * invocation. A typical cluster is read in a few seconds; with less, the item would mostly be
 * "deadline reached", better retried alone. With the 300 s timeout and 5 items a batch, ample
 * time is never cut.
 */
export const MIN_CAPTURE_MS = 20_000;

interface ItemBudget {
  deadline: InvocationDeadline;
  afterCaptureMs: number;
  minCaptureMs: number;
}

function budgetOf(deadline: InvocationDeadline | undefined): ItemBudget | undefined {
  if (deadline === undefined) return undefined;
  return {
    deadline,
    afterCaptureMs: Math.min(AFTER_CAPTURE_MS, deadline.totalMs / 4),
    minCaptureMs: Math.min(MIN_CAPTURE_MS, deadline.totalMs / 8),
  };
}

/**
 * The batch, by the invocation's deadline: `context.deadline` from the `deadline` middleware, or
 * (called directly, as tests do) from the context's remaining time now.
 */
export async function work(
  event: SQSEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'> & { deadline?: InvocationDeadline },
): Promise<SQSBatchResponse> {
  const wiring = deps();
  const until =
    context === undefined ? undefined : (context.deadline ?? invocationDeadline(context, wiring.clock));
  return workUntil(event, budgetOf(until));
}

async function workUntil(event: SQSEvent, budget: ItemBudget | undefined): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  const wiring = deps();
  // Items of one batch run one after another: the queue's maximumConcurrency bounds the fleet.
  for (const record of event.Records) {
    const leftMs = budget === undefined ? Number.POSITIVE_INFINITY : budget.deadline.leftMs();
    if (budget !== undefined && leftMs < budget.afterCaptureMs + budget.minCaptureMs) {
      logger.warn('snapshot not started: too little time left in the invocation, retried later', {
        messageId: record.messageId,
        remainingMs: leftMs,
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    const options =
      budget === undefined
        ? {}
        : {
            deadline: budget.deadline.at - budget.afterCaptureMs,
            claimUntil: budget.deadline.at + IN_PROGRESS_MARGIN_MS,
          };
    try {
      await logOutcome(
        { done: 'snapshot evaluated', failed: 'snapshot failed', fields: (fields) => fields },
        async () => {
          const item = parseWorkItem(record);
          const cluster = `${item.region}/${item.clusterName}`;
          logger.appendKeys({ cluster, ...(item.followUp ? { eventId: item.followUp.eventId } : {}) });
          const { cluster: _name, region: _region, ...result } = await runSnapshot(wiring, item, options);
          // `cluster` stays the correlation key (`region/name`); `sourceUnavailable` feeds the alarm.
          return { reason: item.reason, ...result };
        },
        { messageId: record.messageId },
      );
    } catch {
      // Logged by logOutcome; the item alone is retried.
      batchItemFailures.push({ itemIdentifier: record.messageId });
    } finally {
      logger.removeKeys(['cluster', 'eventId']);
    }
  }
  return { batchItemFailures };
}

export const handler = middy(work)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(deadline(() => deps().clock));
