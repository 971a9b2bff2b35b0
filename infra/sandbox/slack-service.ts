/**
 * Slack, as the sandbox serves it on one port:
 *
 *   POST /services/T…/B…/…     an incoming webhook: `ok` (text/plain), recorded in `runtime.slack`
 *   POST /api/chat.postMessage the Web API, with `Authorization: Bearer <bot token>`: checks the
 *   POST /api/chat.update      token and the channel, answers `{ok: true, channel, ts}` with a new
 *                              `ts` per message (a reply names its parent in `thread_ts`), edits a
 *                              message in place; recorded in `runtime.slackApi`
 *
 * Errors as Slack's Web API documents them: HTTP 200 with `{ok: false, error}` — `not_authed`,
 * `invalid_auth`, `channel_not_found`, `not_in_channel`, `thread_not_found`,
 * `message_not_found`, `no_text`, `invalid_blocks`; HTTP 429 with `Retry-After` and
 * `{ok: false, error: "ratelimited"}`. Faults (`service: 'slack'`, operation `PostMessage` for the
 * webhook, `chat.postMessage` / `chat.update` for the API) inject any of them: a fault with status
 * 200 answers `{ok: false, error: <code>}`, status 429 adds `Retry-After` (`retryAfterSeconds`,
 * default 1).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Runtime, readIncoming, send } from './runtime.ts';
import type { SandboxService, SlackApiCall, SlackChannelMessage } from './types.ts';

const service: SandboxService = 'slack';

/** What the Web API knows: the bot token, the channels it is a member of, and those it is not. */
export interface SlackWorkspace {
  token: string;
  /** Channel ID → messages, in order. The bot is a member. */
  channels: Map<string, SlackChannelMessage[]>;
  /** Channels that exist but the bot was never invited to. */
  otherChannels: Set<string>;
}

export function createSlackServer(runtime: Runtime, workspace: SlackWorkspace): Server {
  return createServer((req, res) => {
    const route = (req.url ?? '').startsWith('/api/') ? handleApi : handleWebhook;
    route(runtime, workspace, req, res).catch(() => {
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal_error');
    });
  });
}

function hasContent(b: { text?: unknown; blocks?: unknown; attachments?: unknown }): boolean {
  return (
    (typeof b.text === 'string' && b.text.length > 0) ||
    Array.isArray(b.blocks) ||
    Array.isArray(b.attachments)
  );
}

function parseObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

async function handleWebhook(
  runtime: Runtime,
  _workspace: SlackWorkspace,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const incoming = await readIncoming(req);
  const reply = (status: number, text: string, headers: Record<string, string> = {}): void => {
    runtime.record(service, 'PostMessage', undefined, status);
    send(res, status, 'text/plain', text, headers);
  };
  const fault = runtime.takeFault('slack', 'PostMessage', undefined);
  if (fault) {
    const headers: Record<string, string> =
      fault.status === 429 ? { 'retry-after': String(fault.retryAfterSeconds ?? 1) } : {};
    reply(fault.status, fault.code ?? fault.message ?? 'injected_fault', headers);
    return;
  }
  if (incoming.method !== 'POST') {
    reply(405, 'invalid_method');
    return;
  }
  const body = parseObject(incoming.body);
  if (body === undefined) {
    reply(400, 'invalid_payload');
    return;
  }
  if (!hasContent(body)) {
    reply(400, 'no_text');
    return;
  }
  if (Array.isArray(body.blocks) && body.blocks.length > 50) {
    reply(400, 'invalid_blocks');
    return;
  }
  runtime.slack.push({ body, at: Date.now() });
  reply(200, 'ok');
}

let sequence = 0;

/** A message timestamp as Slack writes them: epoch seconds, a dot, six digits; unique here. */
function nextTs(): string {
  sequence += 1;
  return `${Math.floor(Date.now() / 1000)}.${String(sequence % 1_000_000).padStart(6, '0')}`;
}

async function handleApi(
  runtime: Runtime,
  workspace: SlackWorkspace,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const incoming = await readIncoming(req);
  const method = incoming.rawPath.slice('/api/'.length);
  const at = Date.now();
  const call: SlackApiCall = { method, at, ok: false };
  const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    call.ok = body.ok === true;
    if (typeof body.error === 'string') call.error = body.error;
    runtime.slackApi.push(call);
    runtime.record(service, method, undefined, status);
    send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
  };
  const fail = (error: string) => answer(200, { ok: false, error });

  if (method !== 'chat.postMessage' && method !== 'chat.update') {
    answer(404, { ok: false, error: 'unknown_method' });
    return;
  }
  const fault = runtime.takeFault('slack', method, undefined);
  if (fault) {
    if (fault.status === 429) {
      answer(
        429,
        { ok: false, error: 'ratelimited' },
        { 'retry-after': String(fault.retryAfterSeconds ?? 1) },
      );
    } else if (fault.status === 200) fail(fault.code ?? 'fatal_error');
    else answer(fault.status, { ok: false, error: fault.code ?? 'internal_error' });
    return;
  }
  const auth = incoming.headers.authorization;
  if (auth === undefined || !/^Bearer\s+\S/.test(auth)) return fail('not_authed');
  if (auth.replace(/^Bearer\s+/, '') !== workspace.token) return fail('invalid_auth');
  const body = parseObject(incoming.body);
  if (body === undefined) return fail('invalid_json');
  const channel = typeof body.channel === 'string' ? body.channel : '';
  call.channel = channel;
  const messages = workspace.channels.get(channel);
  if (messages === undefined)
    return fail(workspace.otherChannels.has(channel) ? 'not_in_channel' : 'channel_not_found');
  if (!hasContent(body)) return fail('no_text');
  if (Array.isArray(body.blocks) && body.blocks.length > 50) return fail('invalid_blocks');
  call.body = body;

  if (method === 'chat.update') {
    const ts = typeof body.ts === 'string' ? body.ts : '';
    call.ts = ts;
    const message = messages.find((m) => m.ts === ts);
    if (message === undefined) return fail('message_not_found');
    message.body = body;
    message.edits += 1;
    answer(200, { ok: true, channel, ts, text: typeof body.text === 'string' ? body.text : '' });
    return;
  }
  const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : undefined;
  if (threadTs !== undefined && !messages.some((m) => m.ts === threadTs && m.threadTs === undefined)) {
    return fail('thread_not_found');
  }
  const ts = nextTs();
  call.ts = ts;
  const message: SlackChannelMessage = { ts, body, at, edits: 0 };
  if (threadTs !== undefined) {
    message.threadTs = threadTs;
    call.threadTs = threadTs;
  }
  messages.push(message);
  answer(200, {
    ok: true,
    channel,
    ts,
    message: { ts, ...(threadTs === undefined ? {} : { thread_ts: threadTs }) },
  });
}
