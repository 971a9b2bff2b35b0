/**
 * snapshotWorker — SQS (one work item per message): capture, compare, evaluate, alert, store.
 * Answers with `batchItemFailures` (ReportBatchItemFailures): a failed item is retried alone and
 * reaches the DLQ after the queue's maxReceiveCount; the others are deleted.
 * Logs one summary line per item; `sourceUnavailable` is the metric of the blindness alarm.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { runSnapshot } from '../shared/app/run-snapshot.ts';
import { createStateWiring } from '../shared/app/wiring.ts';
import { createCaptureWiring } from '../shared/app/wiring-capture.ts';
import { SentinelError } from '../shared/errors.ts';
import type { ClusterWorkItem } from '../shared/ports.ts';
import { coldStartConfig, errorFields, logger, once } from './lib/runtime.ts';

const deps = once(() => {
  const config = coldStartConfig();
  const state = createStateWiring(config, process.env);
  return {
    capture: createCaptureWiring(),
    snapshots: state.snapshots,
    deliver: state.deliver,
    queue: state.queue,
    clock: state.clock,
    monitorPrincipalArn: config.monitorPrincipalArn,
    followUp: { delaySeconds: config.followUpDelaySeconds, maxAttempts: config.followUpMaxAttempts },
  };
});

export class WorkItemError extends SentinelError {
  override readonly name = 'WorkItemError';
  readonly code = 'invalid-work-item';
}

export function parseWorkItem(record: SQSRecord): ClusterWorkItem {
  let item: unknown;
  try {
    item = JSON.parse(record.body);
  } catch (error) {
    throw new WorkItemError(`message ${record.messageId} is not JSON`, { cause: error });
  }
  const i = item as Partial<ClusterWorkItem> | null;
  if (
    typeof i !== 'object' ||
    i === null ||
    typeof i.accountId !== 'string' ||
    typeof i.region !== 'string' ||
    typeof i.clusterName !== 'string' ||
    (i.reason !== 'schedule' && i.reason !== 'follow-up')
  ) {
    throw new WorkItemError(`message ${record.messageId} is not a cluster work item`);
  }
  return i as ClusterWorkItem;
}

export async function work(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  const wiring = deps();
  // Items of one batch run one after another: the queue's maximumConcurrency bounds the fleet.
  for (const record of event.Records) {
    const started = Date.now();
    let cluster: string | undefined;
    try {
      const item = parseWorkItem(record);
      cluster = `${item.region}/${item.clusterName}`;
      logger.appendKeys({ cluster, ...(item.followUp ? { eventId: item.followUp.eventId } : {}) });
      const { cluster: _name, region: _region, ...result } = await runSnapshot(wiring, item);
      // `cluster` stays the correlation key (`region/name`); `sourceUnavailable` feeds the alarm.
      logger.info('snapshot evaluated', { reason: item.reason, ...result, durationMs: Date.now() - started });
    } catch (error) {
      logger.error('snapshot failed', {
        messageId: record.messageId,
        ...errorFields(error),
        durationMs: Date.now() - started,
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    } finally {
      logger.removeKeys(['cluster', 'eventId']);
    }
  }
  return { batchItemFailures };
}

export const handler = middy(work).use(injectLambdaContext(logger, { resetKeys: true }));
