/**
 * The notice channels: SNS always, Slack unless disabled — through the incoming webhook, or with a
 * bot token (threads and edits) when `SENTINEL_SLACK_BOT_TOKEN_PARAMETER` names one. The webhook
 * URL or the token is read from the SSM SecureString named in config once per cold start — started when the senders are created,
 * awaited by the first Slack send (cached by the SSM adapter; a failed read is retried by the
 * next send) — and is never logged.
 */
import type { AwsClientOptions } from '../../shared/adapters/aws-clients.ts';
import { createSlackBotSender, createSlackNoticeSender } from '../../shared/adapters/slack.ts';
import { createSnsClient, createSnsNoticeSender } from '../../shared/adapters/sns.ts';
import {
  createSlackTokenProvider,
  createSsmClient,
  createWebhookUrlProvider,
} from '../../shared/adapters/ssm.ts';
import type { SentinelConfig } from '../../shared/app/config.ts';
import type { NoticeSender } from '../../shared/ports.ts';

export function createSenders(
  config: SentinelConfig,
  region: string,
  options: AwsClientOptions,
): NoticeSender[] {
  const senders: NoticeSender[] = [
    createSnsNoticeSender({ sns: createSnsClient(region, options), topicArn: config.topicArn }),
  ];
  if (config.slackBot !== undefined) {
    const { tokenParameter, channel, apiUrl } = config.slackBot;
    const token = createSlackTokenProvider(createSsmClient(region, options), tokenParameter);
    token().catch(() => undefined); // prefetch, as for the webhook below
    senders.push(createSlackBotSender({ token, channel, apiUrl }));
  } else if (config.slackWebhookParameter !== undefined) {
    const ssm = createSsmClient(region, options);
    const webhookUrl = createWebhookUrlProvider(ssm, config.slackWebhookParameter);
    // Prefetch: the read runs alongside the first invocation's reads instead of in front of its
    // first Slack send (one sequential round trip less on a cold start). A failure is not cached
    // (the send reads again) and is reported there, never here.
    webhookUrl().catch(() => undefined);
    senders.push(createSlackNoticeSender({ webhookUrl }));
  }
  return senders;
}
