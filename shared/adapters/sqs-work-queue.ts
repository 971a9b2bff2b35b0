/**
 * WorkQueue over SQS SendMessageBatch: at most 10 entries per batch, `DelaySeconds` clamped to
 * 0…900 (SQS's range), one JSON `ClusterWorkItem` per message. Entries SQS rejects raise a
 * `QueueSendError` listing them after every batch was attempted — a work item is never dropped
 * silently. IAM: sqs:SendMessage on the queue ARN.
 */
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import { QueueSendError } from '../errors.ts';
import type { ClusterWorkItem, WorkQueue } from '../ports.ts';
import { type AwsClient, budgetOptions, createAwsClient, type EndpointClientOptions } from './aws-clients.ts';
import { toMonitorIoError } from './errors.ts';

export const SQS_MAX_BATCH = 10;
export const SQS_MAX_DELAY_SECONDS = 900;

export type SqsClientOptions = EndpointClientOptions;

export function createSqsClient(region: string, options: SqsClientOptions = {}): AwsClient<SQSClient> {
  return createAwsClient(SQSClient, region, options, options.endpoint);
}

export interface SqsWorkQueueOptions {
  sqs: AwsClient<SQSClient>;
  queueUrl: string;
}

export function clampDelaySeconds(delaySeconds: number | undefined): number | undefined {
  if (delaySeconds === undefined || !Number.isFinite(delaySeconds)) return undefined;
  return Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.round(delaySeconds)));
}

export function createSqsWorkQueue(options: SqsWorkQueueOptions): WorkQueue {
  const { client, callBudgetMs } = options.sqs;
  const { queueUrl } = options;

  return {
    async enqueue(items, delaySeconds) {
      const delay = clampDelaySeconds(delaySeconds);
      const failed: Array<{ id: string; code: string; senderFault: boolean }> = [];
      const describe = new Map<string, string>();
      let firstError: unknown;
      for (let start = 0; start < items.length; start += SQS_MAX_BATCH) {
        const batch = items.slice(start, start + SQS_MAX_BATCH);
        const entries: SendMessageBatchRequestEntry[] = batch.map((item: ClusterWorkItem, i) => {
          const id = String(start + i);
          describe.set(id, `${item.clusterName} (${item.accountId}, ${item.region})`);
          return {
            Id: id,
            MessageBody: JSON.stringify(item),
            ...(delay === undefined ? {} : { DelaySeconds: delay }),
          };
        });
        try {
          const out = await client.send(
            new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }),
            budgetOptions(callBudgetMs),
          );
          for (const f of out.Failed ?? []) {
            failed.push({ id: f.Id ?? '?', code: f.Code ?? 'Unknown', senderFault: f.SenderFault === true });
          }
        } catch (error) {
          firstError ??= error;
          for (const e of entries)
            failed.push({ id: e.Id ?? '?', code: errorName(error), senderFault: false });
        }
      }
      if (failed.length === 0) return;
      const which = failed
        .slice(0, 5)
        .map((f) => `${describe.get(f.id) ?? f.id}: ${f.code}`)
        .join('; ');
      const cause =
        firstError === undefined
          ? undefined
          : toMonitorIoError(firstError, {
              service: 'sqs',
              operation: 'SendMessageBatch',
              resource: queueUrl,
            });
      throw new QueueSendError(
        `SendMessageBatch to ${queueUrl}: ${failed.length} of ${items.length} work items not queued (${which}${failed.length > 5 ? '; …' : ''})`,
        {
          code: cause?.code ?? 'partial-failure',
          service: 'sqs',
          operation: 'SendMessageBatch',
          resource: queueUrl,
          failed,
          ...(cause === undefined ? {} : { cause }),
        },
      );
    },
  };
}

function errorName(error: unknown): string {
  return typeof error === 'object' && error !== null && typeof (error as { name?: unknown }).name === 'string'
    ? (error as { name: string }).name
    : 'Error';
}
