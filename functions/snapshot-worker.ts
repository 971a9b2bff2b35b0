/**
 * snapshotWorker — SQS (one work item per message): capture, compare, evaluate, alert, store.
 * Answers with `batchItemFailures` (ReportBatchItemFailures): a failed item is retried alone and
 * reaches the DLQ after the queue's maxReceiveCount; the others are deleted.
 * Logs one summary line per item; `sourceUnavailable` is the metric of the blindness alarm.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { runSnapshot } from '../shared/app/run-snapshot.ts';
import { parseWorkItem } from './lib/inputs.ts';
import { logOutcome } from './lib/outcome-log.ts';
import { coldStartConfig, logger, once } from './lib/runtime.ts';
import { createWorkerWiring } from './wiring/worker.ts';

const deps = once(() => createWorkerWiring(coldStartConfig(), process.env));

export async function work(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  const wiring = deps();
  // Items of one batch run one after another: the queue's maximumConcurrency bounds the fleet.
  for (const record of event.Records) {
    try {
      await logOutcome(
        { done: 'snapshot evaluated', failed: 'snapshot failed', fields: (fields) => fields },
        async () => {
          const item = parseWorkItem(record);
          const cluster = `${item.region}/${item.clusterName}`;
          logger.appendKeys({ cluster, ...(item.followUp ? { eventId: item.followUp.eventId } : {}) });
          const { cluster: _name, region: _region, ...result } = await runSnapshot(wiring, item);
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

export const handler = middy(work).use(injectLambdaContext(logger, { resetKeys: true }));
