/**
 * NoticeSender for an SNS topic: `Publish` with `MessageStructure: 'json'` (rendering in
 * shared/core/render/sns.ts). One message per notice by default, so that subscription filter
 * policies on `severity`/`ruleId`/`kind` select exactly; `batch: true` sends one digest per
 * cluster (packed within 256 KiB). A failed Publish is reported in the DeliveryResult — the other
 * messages are still attempted. IAM: sns:Publish on the topic ARN (+ kms:GenerateDataKey and
 * kms:Decrypt on the topic's key when it is encrypted with a customer managed key).
 */

import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { PendingNotice } from '../core/alerts/index.ts';
import { mapLimit } from '../core/concurrency.ts';
import {
  renderSnsMessage,
  renderSnsMessages,
  type SnsMessage,
  type SnsRenderOptions,
} from '../core/render/index.ts';
import type { DeliveryResult, NoticeSender } from '../ports.ts';
import { type AwsClient, budgetOptions, createAwsClient, type EndpointClientOptions } from './aws-clients.ts';
import { toMonitorIoError } from './errors.ts';

export type SnsClientOptions = EndpointClientOptions;

export function createSnsClient(region: string, options: SnsClientOptions = {}): AwsClient<SNSClient> {
  return createAwsClient(SNSClient, region, options, options.endpoint);
}

export interface SnsSenderOptions {
  sns: AwsClient<SNSClient>;
  topicArn: string;
  /** One digest message for all notices of a send instead of one message per notice. */
  batch?: boolean;
  /** Publish calls in flight (default 4). */
  concurrency?: number;
  render?: SnsRenderOptions;
}

export function createSnsNoticeSender(options: SnsSenderOptions): NoticeSender {
  const { client, callBudgetMs } = options.sns;
  const { topicArn } = options;
  const concurrency = options.concurrency ?? 4;

  async function publish(message: SnsMessage): Promise<void> {
    await client.send(
      new PublishCommand({
        TopicArn: topicArn,
        Subject: message.subject,
        Message: message.message,
        MessageStructure: message.messageStructure,
        MessageAttributes: message.messageAttributes,
      }),
      budgetOptions(callBudgetMs),
    );
  }

  return {
    channel: 'sns',
    async send(notices: readonly PendingNotice[]): Promise<DeliveryResult> {
      const groups =
        options.batch === true
          ? renderSnsMessages(notices, options.render)
          : notices.map((n, i) => ({ message: renderSnsMessage([n], options.render), notices: [i] }));
      const delivered = new Set<PendingNotice>();
      const errors: string[] = [];
      let undelivered = 0;
      await mapLimit(groups, concurrency, async (group) => {
        try {
          await publish(group.message);
          for (const i of group.notices) {
            const n = notices[i];
            if (n !== undefined) delivered.add(n);
          }
        } catch (error) {
          undelivered += group.notices.length;
          errors.push(
            toMonitorIoError(error, { service: 'sns', operation: 'Publish', resource: topicArn }).message,
          );
        }
      });
      if (errors.length === 0) return { delivered };
      return {
        delivered,
        error: `${undelivered} of ${notices.length} notices not published: ${errors[0]}${errors.length > 1 ? ` (and ${errors.length - 1} more failed Publish calls)` : ''}`,
      };
    },
  };
}
