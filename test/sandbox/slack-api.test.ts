import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';

let s: Sandbox;

beforeAll(async () => {
  s = await startSandbox({ clusters: [] });
});
afterAll(async () => {
  await s?.close();
});
beforeEach(() => {
  s.faults.clear();
});

async function api(
  method: string,
  body: Record<string, unknown>,
  token: string | null = s.env.SLACK_BOT_TOKEN,
): Promise<{ status: number; retryAfter: string | null; json: Record<string, unknown> }> {
  const response = await fetch(`${s.env.SLACK_API_URL}/${method}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    json: (await response.json()) as Record<string, unknown>,
  };
}

describe('sandbox Slack Web API', () => {
  it('posts a message with a fresh ts, replies in its thread and edits it in place', async () => {
    const channel = s.env.SLACK_CHANNEL;
    const first = await api('chat.postMessage', { channel, text: 'first' });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ ok: true, channel });
    const ts = first.json.ts as string;
    expect(ts).toMatch(/^\d{10}\.\d{6}$/);
    const reply = await api('chat.postMessage', { channel, text: 'reply', thread_ts: ts });
    expect(reply.json.ok).toBe(true);
    expect(reply.json.ts).not.toBe(ts);
    const edit = await api('chat.update', { channel, ts, text: 'first, edited' });
    expect(edit.json).toMatchObject({ ok: true, channel, ts });
    const messages = s.slackApi.channels.get(channel) ?? [];
    const parent = messages.find((m) => m.ts === ts);
    expect(parent).toMatchObject({ edits: 1, body: { text: 'first, edited' } });
    expect(messages.find((m) => m.ts === reply.json.ts)?.threadTs).toBe(ts);
  });

  it('answers HTTP 200 {ok:false} for a bad token, an unknown channel, one the bot is not in, an unknown thread or message', async () => {
    const channel = s.env.SLACK_CHANNEL;
    expect((await api('chat.postMessage', { channel, text: 'x' }, null)).json).toEqual({
      ok: false,
      error: 'not_authed',
    });
    const wrong = await api('chat.postMessage', { channel, text: 'x' }, 'xoxb-000-wrong');
    expect(wrong).toMatchObject({ status: 200, json: { ok: false, error: 'invalid_auth' } });
    expect((await api('chat.postMessage', { channel: 'C0NOWHERE1', text: 'x' })).json.error).toBe(
      'channel_not_found',
    );
    expect((await api('chat.postMessage', { channel: 'C0OUTSIDE1', text: 'x' })).json.error).toBe(
      'not_in_channel',
    );
    expect((await api('chat.postMessage', { channel, text: 'x', thread_ts: '1.000001' })).json.error).toBe(
      'thread_not_found',
    );
    expect((await api('chat.update', { channel, ts: '1.000001', text: 'x' })).json.error).toBe(
      'message_not_found',
    );
    expect((await api('chat.postMessage', { channel })).json.error).toBe('no_text');
  });

  it('answers a rate-limit fault with HTTP 429, Retry-After and error ratelimited, then serves again', async () => {
    s.faults.inject({
      service: 'slack',
      operation: 'chat.postMessage',
      status: 429,
      retryAfterSeconds: 3,
      times: 1,
    });
    const limited = await api('chat.postMessage', { channel: s.env.SLACK_CHANNEL, text: 'x' });
    expect(limited).toEqual({ status: 429, retryAfter: '3', json: { ok: false, error: 'ratelimited' } });
    expect((await api('chat.postMessage', { channel: s.env.SLACK_CHANNEL, text: 'x' })).json.ok).toBe(true);
    s.faults.inject({ service: 'slack', operation: 'chat.update', status: 200, code: 'cant_update_message' });
    expect((await api('chat.update', { channel: s.env.SLACK_CHANNEL, ts: '1.1', text: 'x' })).json).toEqual({
      ok: false,
      error: 'cant_update_message',
    });
  });

  it('serves the bot token from SSM next to the webhook URL', () => {
    expect(s.ssmParameters.get('/eks-auth-sentinel/slack-bot-token')).toBe(s.env.SLACK_BOT_TOKEN);
    expect(s.env.SLACK_BOT_TOKEN).toMatch(/^xoxb-/);
  });
});
