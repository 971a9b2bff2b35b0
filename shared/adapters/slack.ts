/**
 * NoticeSenders for Slack, over `fetch`, each POST with a timeout:
 *
 *   - incoming webhook (`createSlackNoticeSender`, the default): the run's notices of one cluster
 *     as one Block Kit message (shared/core/render/slack.ts; only a storm continues in more);
 *   - bot token (`createSlackBotSender`): `chat.postMessage` for the first alert of an incident,
 *     whose `ts` is returned per notice (`DeliveryResult.threads`) to be stored on the alert
 *     records; follow-ups (escalation, the confirmation of a prediction, the resolution) are
 *     replies in that thread (`thread_ts`), and the thread's first message is edited
 *     (`chat.update`) to show where each of its alerts stands.
 *
 * Rate limit: Slack takes about one message per second per channel. Every call to a channel waits
 * until `minIntervalMs` (1 s) after the previous one's answer; HTTP 429 is retried after
 * `Retry-After` while the retry budget allows, otherwise the message and the rest are reported
 * undelivered (they stay pending and go out on the next run — queued, never dropped).
 *
 * The Web API answers HTTP 200 with `{ok: false, error}` for most failures: those are delivery
 * failures with a message naming the cause (`not_in_channel`, `channel_not_found`,
 * `invalid_auth`, `missing_scope`, `ratelimited` …); one that concerns the whole channel or the
 * token stops the rest of the send.
 *
 * The webhook URL and the token are secrets: never in a result, an error or a log line (responses
 * and errors are redacted of them before they are reported).
 */

import type { PendingNotice, SlackThreadRef } from '../core/alerts/index.ts';
import {
  renderSlackMessages,
  renderSlackSingleMessage,
  type SlackPayload,
  type SlackRenderOptions,
} from '../core/render/index.ts';
import { redactSecrets, webhookSecretForms } from '../errors.ts';
import type { DeliveryResult, NoticeSender, SendContext } from '../ports.ts';

type Secret = string | (() => Promise<string>);

interface PacingOptions {
  /** Per POST, ms (default 5000). */
  timeoutMs?: number;
  /** Total time spent waiting on Retry-After across one send, ms (default 10 000). */
  retryBudgetMs?: number;
  /** Retry-After assumed when a 429 carries none, seconds (default 1). */
  defaultRetryAfterSeconds?: number;
  /** Least time between two calls to one channel, ms (default 1000: Slack's 1 message/s/channel). */
  minIntervalMs?: number;
  render?: SlackRenderOptions;
  /** Injected for tests. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface SlackSenderOptions extends PacingOptions {
  /** The webhook URL, or a provider of it (e.g. `createWebhookUrlProvider` of ssm.ts). */
  webhookUrl: Secret;
}

export interface SlackBotSenderOptions extends PacingOptions {
  /** The bot token (`xoxb-…`), or a provider of it (`createSlackTokenProvider` of ssm.ts). */
  token: Secret;
  /** Channel ID (`C0123456789`). */
  channel: string;
  /** Web API base URL (default https://slack.com/api; the sandbox serves its own). */
  apiUrl?: string;
}

export const SLACK_API_URL = 'https://slack.com/api';

type CallOutcome =
  | { ok: true; ts?: string }
  | { ok: false; error: string; retryAfterMs?: number; fatal?: boolean };

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

/** Web API errors that concern the token or the channel: every further call would fail the same way. */
const FATAL = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'missing_scope',
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'ratelimited',
]);

/** A clear sentence for a Web API `{ok:false, error}`. */
export function describeSlackApiError(method: string, code: string, channel: string): string {
  const why = ((): string => {
    switch (code) {
      case 'not_in_channel':
        return `the app is not a member of channel ${channel}: invite it to the channel (/invite @app)`;
      case 'channel_not_found':
        return `channel ${channel} does not exist or the app cannot see it: use the channel ID (C…) and invite the app to a private channel`;
      case 'invalid_auth':
      case 'not_authed':
      case 'token_revoked':
      case 'token_expired':
      case 'account_inactive':
        return 'the bot token was refused: store a valid xoxb- token in the SSM parameter';
      case 'missing_scope':
        return 'the bot token lacks the chat:write scope: add it to the app and reinstall';
      case 'is_archived':
        return `channel ${channel} is archived`;
      case 'ratelimited':
        return 'rate limited';
      case 'message_not_found':
      case 'cant_update_message':
      case 'edit_window_closed':
        return 'the message to edit is gone or can no longer be edited';
      default:
        return 'Slack refused the call';
    }
  })();
  return `Slack ${method} failed: ${code} (${why})`;
}

function safeCode(value: unknown): string {
  return typeof value === 'string' && /^[a-z0-9_]{1,64}$/.test(value) ? value : 'unknown_error';
}

/** Calls to one channel, paced and retried on 429 within one send's retry budget. */
function createPacer(options: PacingOptions) {
  const minInterval = options.minIntervalMs ?? 1000;
  const retryBudgetMs = options.retryBudgetMs ?? 10_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const last = new Map<string, number>();
  return {
    /** Runs `call` (again after Retry-After while `budget` allows), `minInterval` after the last call to `key`. */
    async run(
      key: string,
      budget: { waited: number },
      call: () => Promise<CallOutcome>,
    ): Promise<CallOutcome> {
      for (;;) {
        const previous = last.get(key);
        const wait = previous === undefined ? 0 : previous + minInterval - now();
        if (wait > 0) await sleep(wait);
        const outcome = await call();
        last.set(key, now());
        if (outcome.ok || outcome.retryAfterMs === undefined) return outcome;
        if (budget.waited + outcome.retryAfterMs > retryBudgetMs) {
          return {
            ...outcome,
            error: `${outcome.error}; Retry-After ${Math.ceil(outcome.retryAfterMs / 1000)} s exceeds the retry budget`,
            fatal: true,
          };
        }
        budget.waited += outcome.retryAfterMs;
        // The Retry-After wait counts as the spacing too.
        last.set(key, now() + outcome.retryAfterMs - minInterval);
      }
    },
  };
}

async function resolveSecret(secret: Secret): Promise<string> {
  return typeof secret === 'string' ? secret : await secret();
}

function unreadable(what: string, error: unknown): string {
  // SecretReadError messages name the parameter, never its value.
  const why = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
  return redactSecrets(`Slack ${what} could not be read: ${why}`);
}

/** What of an error body is read at most (the rest is dropped unread). */
const MAX_BODY_BYTES = 65_536;

/** The start of a response body, and whether it was cut; never throws. */
async function readBody(response: Response): Promise<{ text: string; cut: boolean }> {
  const reader = response.body?.getReader();
  if (reader === undefined) return { text: '', cut: false };
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let cut = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
      if (bytes > MAX_BODY_BYTES) {
        cut = true;
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
  } catch {
    // What arrived is still shown (redacted).
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), cut };
}

/**
 * The body of a failed webhook POST as an error detail: redacted of the webhook's secret in every
 * form an endpoint may echo it (redactSecrets), then — when the body was cut — of a partial
 * secret at the cut, and only then shortened. Cut first, an echoed URL that straddled the cut
 * left its first characters in the error.
 */
export function webhookErrorDetail(body: string, url: string, cut: boolean): string {
  let text = redactSecrets(body.replace(/\s+/g, ' '), { webhookUrl: url });
  if (cut) text = dropPartialSecret(text, url);
  text = text.trim();
  return text === '' ? '' : ` (${text.slice(0, 200)})`;
}

/** `text` without a trailing start of the URL or of one of its secret parts (a body cut inside it). */
function dropPartialSecret(text: string, url: string): string {
  for (const form of webhookSecretForms(url)) {
    for (let k = Math.min(form.length - 1, text.length); k > 0; k--) {
      if (text.endsWith(form.slice(0, k))) return `${text.slice(0, text.length - k)}<webhook>`;
    }
  }
  return text;
}

/**
 * Why a webhook URL is refused, or undefined: only `https:` (an `http:` webhook sends its secret
 * and every alert in clear text); plain `http:` only to a loopback address (a local test sink,
 * nothing crosses a network).
 */
export function webhookUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol === 'https:') return undefined;
  const loopback = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost)$/i.test(url.hostname);
  if (url.protocol === 'http:' && loopback) return undefined;
  return `is an ${url.protocol} URL: only https: is accepted (the webhook URL is a secret, and alerts must not travel in clear text); use the https:// URL Slack gave`;
}

function summarise(failed: number, total: number, firstError: string | undefined, extra: string[]) {
  const parts: string[] = [];
  if (firstError !== undefined)
    parts.push(`${failed} of ${total} Slack messages not delivered: ${firstError}`);
  parts.push(...extra);
  return parts.length === 0 ? undefined : parts.join('; ');
}

/** The incoming-webhook sender (one channel, fixed by the webhook). */
export function createSlackNoticeSender(options: SlackSenderOptions): NoticeSender {
  const timeoutMs = options.timeoutMs ?? 5000;
  const fallbackRetryAfter = options.defaultRetryAfterSeconds ?? 1;
  const doFetch = options.fetch ?? fetch;
  const pacer = createPacer(options);

  async function post(url: string, payload: SlackPayload): Promise<CallOutcome> {
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
    const body = await readBody(response);
    if (response.ok) return { ok: true };
    const detail = webhookErrorDetail(body.text, url, body.cut);
    const outcome: CallOutcome = {
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
        url = await resolveSecret(options.webhookUrl);
      } catch (error) {
        return { delivered, error: unreadable('webhook URL', error) };
      }
      const problem = webhookUrlProblem(url);
      if (problem !== undefined) {
        // Said without the URL: it is the secret.
        return { delivered, error: `Slack webhook URL refused (configuration): it ${problem}` };
      }
      const messages = renderSlackMessages(notices, options.render);
      const budget = { waited: 0 };
      let firstError: string | undefined;
      let failed = 0;
      let stopped = false;
      for (const message of messages) {
        if (stopped) {
          failed += 1;
          continue;
        }
        const outcome = await pacer.run(url, budget, () => post(url, message.payload));
        if (outcome.ok) {
          for (const i of message.notices) {
            const n = notices[i];
            if (n !== undefined) delivered.add(n);
          }
          continue;
        }
        failed += 1;
        firstError ??= outcome.error;
        // Rate limited beyond the budget: the rest would be refused too; retried on the next run.
        if (outcome.fatal === true) stopped = true;
      }
      const error = summarise(failed, messages.length, firstError, []);
      return error === undefined
        ? { delivered }
        : { delivered, error: redactSecrets(error, { webhookUrl: url }) };
    },
  };
}

/** The bot-token sender: threads and edits through the Web API. */
export function createSlackBotSender(options: SlackBotSenderOptions): NoticeSender {
  const timeoutMs = options.timeoutMs ?? 5000;
  const fallbackRetryAfter = options.defaultRetryAfterSeconds ?? 1;
  const doFetch = options.fetch ?? fetch;
  const apiUrl = (options.apiUrl ?? SLACK_API_URL).replace(/\/+$/, '');
  const channel = options.channel;
  const pacer = createPacer(options);

  async function call(
    token: string,
    method: 'chat.postMessage' | 'chat.update',
    body: Record<string, unknown>,
  ): Promise<CallOutcome> {
    let response: Response;
    try {
      response = await doFetch(`${apiUrl}/${method}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json; charset=utf-8',
        },
        body: JSON.stringify({ channel, ...body }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      return { ok: false, error: `Slack ${method} failed: ${describeFetchError(error)}` };
    }
    const { text } = await readBody(response);
    let reply: { ok?: unknown; error?: unknown; ts?: unknown } = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null) reply = parsed as typeof reply;
    } catch {
      // not JSON: judged by the status below
    }
    if (response.status === 429) {
      return {
        ok: false,
        error: describeSlackApiError(method, 'ratelimited', channel),
        retryAfterMs: retryAfterMs(response.headers.get('retry-after'), fallbackRetryAfter),
      };
    }
    if (response.ok && reply.ok === true) {
      return typeof reply.ts === 'string' ? { ok: true, ts: reply.ts } : { ok: true };
    }
    if (response.ok && reply.ok === false) {
      const code = safeCode(reply.error);
      return { ok: false, error: describeSlackApiError(method, code, channel), fatal: FATAL.has(code) };
    }
    const cleaned = redactSecrets(text.replace(/\s+/g, ' '), { token }).trim();
    const detail = cleaned === '' ? '' : ` (${cleaned.slice(0, 200)})`;
    return { ok: false, error: `Slack ${method} answered HTTP ${response.status}${detail}` };
  }

  return {
    channel: 'slack',
    async send(notices: readonly PendingNotice[], context: SendContext = {}): Promise<DeliveryResult> {
      const delivered = new Set<PendingNotice>();
      const threads = new Map<PendingNotice, SlackThreadRef>();
      if (notices.length === 0) return { delivered };
      let token: string;
      try {
        token = await resolveSecret(options.token);
      } catch (error) {
        return { delivered, error: unreadable('bot token', error) };
      }
      const { fresh, replies } = context.slackThreads?.(notices, channel) ?? {
        fresh: [...notices],
        replies: [],
      };

      const budget = { waited: 0 };
      let total = 0;
      let failed = 0;
      let firstError: string | undefined;
      const edits: string[] = [];
      let stopped = false;
      const post = async (
        group: readonly PendingNotice[],
        payload: SlackPayload,
        indexes: readonly number[],
        thread: SlackThreadRef | undefined,
        broadcast: boolean,
      ): Promise<string | undefined> => {
        total += 1;
        if (stopped) {
          failed += 1;
          return undefined;
        }
        const body: Record<string, unknown> = { ...payload, unfurl_links: false, unfurl_media: false };
        if (thread !== undefined) body.thread_ts = thread.ts;
        if (thread !== undefined && broadcast) body.reply_broadcast = true;
        const outcome = await pacer.run(channel, budget, () => call(token, 'chat.postMessage', body));
        if (!outcome.ok) {
          failed += 1;
          firstError ??= outcome.error;
          if (outcome.fatal === true) stopped = true;
          return undefined;
        }
        const ts = thread?.ts ?? outcome.ts;
        for (const i of indexes) {
          const n = group[i];
          if (n === undefined) continue;
          delivered.add(n);
          if (ts !== undefined) threads.set(n, { channel, ts });
        }
        return ts;
      };

      // A new incident: its first message in the channel; a storm's continuation in its thread.
      if (fresh.length > 0) {
        let parent: SlackThreadRef | undefined;
        for (const m of renderSlackMessages(fresh, options.render)) {
          const ts = await post(fresh, m.payload, m.notices, parent, false);
          if (parent === undefined && ts !== undefined) parent = { channel, ts };
        }
      }
      // Replies, as the plan groups them per thread, then the edit of the thread's first message.
      for (const { thread, notices: group, broadcast, board } of replies) {
        let any = false;
        for (const m of renderSlackMessages(group, options.render)) {
          const loud = m.notices.some((i) => {
            const n = group[i];
            return n !== undefined && broadcast.has(n);
          });
          if ((await post(group, m.payload, m.notices, thread, loud)) !== undefined) any = true;
        }
        if (!any || stopped || board.length === 0) continue;
        const edit = await pacer.run(channel, budget, () =>
          call(token, 'chat.update', { ts: thread.ts, ...renderSlackSingleMessage(board) }),
        );
        if (!edit.ok) edits.push(`the edit of thread ${thread.ts} failed: ${edit.error}`);
      }

      const error = summarise(failed, total, firstError, edits);
      const result: DeliveryResult = { delivered };
      if (threads.size > 0) result.threads = threads;
      if (error !== undefined) result.error = redactSecrets(error, { token });
      return result;
    },
  };
}
