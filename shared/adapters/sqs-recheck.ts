/**
 * The awsAuthCheck function's second look per minute: one SQS message with `DelaySeconds`, whose
 * delivery invokes the function again (the queue is its event source). EventBridge schedules
 * cannot run more often than once a minute.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type AwsClient, budgetOptions } from './aws-clients.ts';

export interface DelayedRecheck {
  /** Queues one re-check `delaySeconds` from now. */
  schedule(delaySeconds: number): Promise<void>;
}

export function createSqsRecheck(options: { sqs: AwsClient<SQSClient>; queueUrl: string }): DelayedRecheck {
  return {
    async schedule(delaySeconds) {
      await options.sqs.client.send(
        new SendMessageCommand({
          QueueUrl: options.queueUrl,
          MessageBody: JSON.stringify({ kind: 'aws-auth-recheck' }),
          DelaySeconds: Math.max(0, Math.min(900, Math.round(delaySeconds))),
        }),
        budgetOptions(options.sqs.callBudgetMs),
      );
    },
  };
}
