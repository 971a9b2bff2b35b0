/**
 * NoticeSender for a Slack incoming webhook: POST the Block Kit messages of
 * shared/core/render/slack.ts with `fetch`, in order, each with a timeout. HTTP 429 is retried
 * after `Retry-After` while the retry budget allows; otherwise the message (and, on 429, the rest)
 * is reported undelivered. The webhook URL is a secret: it never appears in a result, an error
 * or a log line (responses and errors are redacted of it before they are reported).
 */
import type { PendingNotice } from '../core/alerts.ts';
import { renderSlackMessages, type SlackPayload, type SlackRenderOptions } from '../core/render/slack.ts';
import { redactSecrets } from '../errors.ts';
import type { DeliveryResult, NoticeSender } from '../ports.ts';

export interface SlackSenderOptions {
  /** The webhook URL, or a provider of it (e.g. `createWebhookUrlProvider` of ssm.ts). */
  webhookUrl: string | (() => Promise<string>);
  /** Per POST, ms (default 5000). */
  timeoutMs?: number;
  /** Total time spent waiting on Retry-After across one send, ms (default 10 000). */
  retryBudgetMs?: number;
  /** Retry-After assumed when a 429 carries none, seconds (default 1). */
  defaultRetryAfterSeconds?: number;
  render?: SlackRenderOptions;
  /** Injected for tests. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

type PostOutcome = { ok: true } | { ok: false; error: string; retryAfterMs?: number };

function describeFetchError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timed out';
    const cause = (error as { cause?: { code?: unknown } }).cause;
    const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
    return `${error.name}${code}`;
  }
  return 'unknown error';
}

function retryAfterMs(header: string | null, fallbackSeconds: number): number {
  if (header !== null) {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  return fallbackSeconds * 1000;
}

export function createSlackNoticeSender(options: SlackSenderOptions): NoticeSender {
  const timeoutMs = options.timeoutMs ?? 5000;
  const retryBudgetMs = options.retryBudgetMs ?? 10_000;
  const fallbackRetryAfter = options.defaultRetryAfterSeconds ?? 1;
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  async function post(url: string, payload: SlackPayload): Promise<PostOutcome> {
    let response: Response;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      return { ok: false, error: `Slack webhook POST failed: ${describeFetchError(error)}` };
    }
    let body = '';
    try {
      // Redacted before it is cut to 200 characters, so a cut cannot split a secret past the patterns.
      body = (await response.text()).slice(0, 65_536);
    } catch {
      // the status says enough
    }
    if (response.ok) return { ok: true };
    const detail =
      body.trim() === ''
        ? ''
        : ` (${redactSecrets(body.trim().replace(/\s+/g, ' '), { webhookUrl: url }).slice(0, 200)})`;
    const outcome: PostOutcome = {
      ok: false,
      error: `Slack webhook answered HTTP ${response.status}${detail}`,
    };
    if (response.status === 429) {
      outcome.retryAfterMs = retryAfterMs(response.headers.get('retry-after'), fallbackRetryAfter);
    }
    return outcome;
  }

  return {
    channel: 'slack',
    async send(notices: readonly PendingNotice[]): Promise<DeliveryResult> {
      const delivered = new Set<PendingNotice>();
      if (notices.length === 0) return { delivered };
      let url: string;
      try {
        url = typeof options.webhookUrl === 'string' ? options.webhookUrl : await options.webhookUrl();
      } catch (error) {
        // SecretReadError messages name the parameter, never its value.
        const why = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
        return { delivered, error: redactSecrets(`Slack webhook URL could not be read: ${why}`) };
      }
      const messages = renderSlackMessages(notices, options.render);
      let waited = 0;
      let firstError: string | undefined;
      let failedMessages = 0;
      let rateLimited = false;
      for (const message of messages) {
        if (rateLimited) {
          failedMessages += 1;
          continue;
        }
        let outcome = await post(url, message.payload);
        while (
          !outcome.ok &&
          outcome.retryAfterMs !== undefined &&
          waited + outcome.retryAfterMs <= retryBudgetMs
        ) {
          waited += outcome.retryAfterMs;
          await sleep(outcome.retryAfterMs);
          outcome = await post(url, message.payload);
        }
        if (outcome.ok) {
          for (const i of message.notices) {
            const n = notices[i];
            if (n !== undefined) delivered.add(n);
          }
          continue;
        }
        failedMessages += 1;
        firstError ??=
          outcome.retryAfterMs === undefined
            ? outcome.error
            : `${outcome.error}; Retry-After ${Math.ceil(outcome.retryAfterMs / 1000)} s exceeds the retry budget`;
        // Rate limited beyond the budget: the rest would be refused too; retried on the next run.
        if (outcome.retryAfterMs !== undefined) rateLimited = true;
      }
      if (firstError === undefined) return { delivered };
      return {
        delivered,
        error: redactSecrets(
          `${failedMessages} of ${messages.length} Slack messages not delivered: ${firstError}`,
          { webhookUrl: url },
        ),
      };
    },
  };
}
