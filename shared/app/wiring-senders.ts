/**
 * The notice channels: SNS always, Slack unless disabled. The Slack webhook URL is read from the
 * SSM SecureString named in config on the first Slack send of a cold start (cached by the SSM
 * adapter; a failed read is retried next time) and is never logged.
 */
import type { AwsClientOptions } from '../adapters/aws-clients.ts';
import { createSlackNoticeSender } from '../adapters/slack.ts';
import { createSnsClient, createSnsNoticeSender } from '../adapters/sns.ts';
import { createSsmClient, createWebhookUrlProvider } from '../adapters/ssm.ts';
import type { NoticeSender } from '../ports.ts';
import type { SentinelConfig } from './config.ts';

export function createSenders(
  config: SentinelConfig,
  region: string,
  options: AwsClientOptions,
): NoticeSender[] {
  const senders: NoticeSender[] = [
    createSnsNoticeSender({ sns: createSnsClient(region, options), topicArn: config.topicArn }),
  ];
  if (config.slackWebhookParameter !== undefined) {
    const ssm = createSsmClient(region, options);
    senders.push(
      createSlackNoticeSender({ webhookUrl: createWebhookUrlProvider(ssm, config.slackWebhookParameter) }),
    );
  }
  return senders;
}
