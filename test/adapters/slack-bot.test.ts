/**
 * Slack bot-token mode through the sandbox's Web API over real HTTP, with the alert state in
 * DynamoDB (dynalite): the first alert of an incident is a channel message whose `ts` is stored
 * on the alert record; the confirmation and the resolutions are replies in its thread, and the
 * first message is edited to show where each alert stands. Rate limits and `{ok:false}` errors
 * are delivery failures with a clear message; the token never shows.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, type SlackApiCall, startSandbox } from '../../infra/sandbox/index.ts';
import { createDynamoDbAlertStore } from '../../shared/adapters/dynamodb-alert-store.ts';
import { createSlackBotSender } from '../../shared/adapters/slack.ts';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import type { PendingNotice } from '../../shared/core/alerts/lifecycle.ts';
import type { ThreadedRecord } from '../../shared/core/alerts/threads.ts';
import type { ClusterId } from '../../shared/core/model.ts';
import { createStateTable, startDynalite } from '../support/dynamodb-helpers.ts';
import { createFinding, TEST_CLUSTER } from '../support/findings.ts';
import { createFakeClock } from '../support/monitor.ts';

const TABLE = 'sentinel-slack-state';
const KEY: ClusterId = {
  accountId: TEST_CLUSTER.accountId,
  region: TEST_CLUSTER.region,
  clusterName: TEST_CLUSTER.name,
};
const ROLE = 'arn:aws:iam::111122223333:role/KarpenterNodeRole-prod';

let sandbox: Sandbox;
let db: Awaited<ReturnType<typeof startDynalite>>;

beforeAll(async () => {
  [sandbox, db] = await Promise.all([startSandbox({ clusters: [] }), startDynalite()]);
  await createStateTable(db.dynamodb, TABLE);
});
afterAll(async () => {
  await Promise.all([sandbox?.close(), db?.close()]);
});
beforeEach(() => {
  sandbox.faults.clear();
  sandbox.slackApi.calls.length = 0;
});

function sender(overrides: { token?: string; channel?: string; retryBudgetMs?: number } = {}) {
  return createSlackBotSender({
    token: overrides.token ?? sandbox.env.SLACK_BOT_TOKEN,
    channel: overrides.channel ?? sandbox.env.SLACK_CHANNEL,
    apiUrl: sandbox.env.SLACK_API_URL,
    ...(overrides.retryBudgetMs === undefined ? {} : { retryBudgetMs: overrides.retryBudgetMs }),
  });
}

function notice(overrides: Parameters<typeof createFinding>[0] = {}): PendingNotice {
  return { kind: 'opened', finding: createFinding(overrides), at: '2026-12-01T12:00:00.000Z', attempts: 0 };
}

const brief = (c: SlackApiCall) => ({
  method: c.method,
  ok: c.ok,
  thread: c.threadTs ?? c.body?.ts ?? null,
  broadcast: c.body?.reply_broadcast === true,
});

describe('createSlackBotSender (sandbox Web API, DynamoDB alert state)', () => {
  it('posts the incident once, threads the confirmation and the resolutions under it and edits it in place', async () => {
    const alerts = createDynamoDbAlertStore({ dynamodb: db.dynamodb, tableName: TABLE });
    const clock = createFakeClock('2026-12-01T12:00:00.000Z');
    const deps = { alerts, senders: [sender()], clock };
    const key = { ...KEY, clusterName: 'threaded' };
    const cluster = { ...TEST_CLUSTER, name: 'threaded' };
    const slack = { slack: { minSeverity: 'low' as const } };
    const prediction = createFinding({
      cluster,
      fingerprint: 'fp-prediction',
      subject: ROLE,
      trigger: 'event:DeleteNodegroup',
      actor: { source: 'cloudtrail', sessionName: 'jane.doe', roleName: 'Admin', eventId: 'ev-1' },
    });
    const confirmation = createFinding({
      cluster,
      ruleId: 'nodes/role-unauthorized',
      fingerprint: 'fp-confirmation',
      subject: ROLE,
      title: `Role ${ROLE} used by 3 nodes resolves to no node identity`,
      trigger: 'schedule',
    });

    // 1. The event: one message in the channel; its ts is stored on the record.
    expect(await deliverAlerts(deps, key, [prediction], { kind: 'change' }, slack)).toMatchObject({
      sent: 1,
      failed: 0,
    });
    const [first] = sandbox.slackApi.calls;
    expect(sandbox.slackApi.calls.map(brief)).toEqual([
      { method: 'chat.postMessage', ok: true, thread: null, broadcast: false },
    ]);
    const ts = first?.ts as string;
    const stored = (await alerts.load(key)).records as ThreadedRecord[];
    expect(stored.find((r) => r.fingerprint === 'fp-prediction')?.slackThread).toEqual({
      channel: sandbox.env.SLACK_CHANNEL,
      ts,
    });
    expect(JSON.stringify(first?.body)).toContain('cloudtrailv2/home?region=eu-west-1#/events/ev-1');

    // 2. The state finding that confirms it: a reply in the thread, shown in the channel too,
    //    and the first message edited to show both.
    clock.advance(60_000);
    sandbox.slackApi.calls.length = 0;
    await deliverAlerts(deps, key, [prediction, confirmation], { kind: 'state' }, slack);
    expect(sandbox.slackApi.calls.map(brief)).toEqual([
      { method: 'chat.postMessage', ok: true, thread: ts, broadcast: true },
      { method: 'chat.update', ok: true, thread: ts, broadcast: false },
    ]);
    const edited = JSON.stringify(sandbox.slackApi.calls[1]?.body);
    expect(edited).toContain('Deleting node group general');
    expect(edited).toContain('resolves to no node identity');
    const again = (await alerts.load(key)).records as ThreadedRecord[];
    expect(again.find((r) => r.fingerprint === 'fp-confirmation')?.slackThread?.ts).toBe(ts);

    // 3. A fresh read without either: both resolve — a reply (not broadcast) and the edit.
    clock.advance(60_000);
    sandbox.slackApi.calls.length = 0;
    await deliverAlerts(deps, key, [], { kind: 'state' }, slack);
    await deliverAlerts(deps, key, [], { kind: 'settled', fingerprints: ['fp-prediction'] }, slack);
    const calls = sandbox.slackApi.calls.map(brief);
    expect(calls.every((c) => c.ok && c.thread === ts && !c.broadcast)).toBe(true);
    expect(calls.map((c) => c.method)).toContain('chat.update');
    // Nothing posted to the channel itself after the first message.
    const channel = sandbox.slackApi.channels.get(sandbox.env.SLACK_CHANNEL) ?? [];
    expect(channel.filter((m) => m.threadTs === undefined && m.ts >= ts).map((m) => m.ts)).toEqual([ts]);
    const parent = channel.find((m) => m.ts === ts);
    expect(parent?.edits).toBeGreaterThanOrEqual(2);
    const finalText = JSON.stringify(parent?.body);
    expect(finalText).not.toContain(':red_circle:');
    expect(finalText).toContain('Resolved');
    // The whole thread resolved: the records are gone from the state.
    expect((await alerts.load(key)).records).toEqual([]);
  }, 30_000);

  it('waits out a 429 with Retry-After and delivers, one second or more after the refused call', async () => {
    sandbox.faults.inject({
      service: 'slack',
      operation: 'chat.postMessage',
      status: 429,
      retryAfterSeconds: 1,
      times: 1,
    });
    const n = notice();
    const result = await sender().send([n]);
    expect(result.error).toBeUndefined();
    expect([...result.delivered]).toEqual([n]);
    const [refused, accepted] = sandbox.slackApi.calls;
    expect(refused).toMatchObject({ ok: false, error: 'ratelimited' });
    expect(accepted?.ok).toBe(true);
    expect((accepted?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(result.threads?.get(n)?.ts).toBe(accepted?.ts);
  });

  it('keeps the notice pending when Retry-After exceeds the budget, saying so', async () => {
    sandbox.faults.inject({ service: 'slack', status: 429, retryAfterSeconds: 30, times: 1 });
    const alerts = createDynamoDbAlertStore({ dynamodb: db.dynamodb, tableName: TABLE });
    const summary = await deliverAlerts(
      { alerts, senders: [sender({ retryBudgetMs: 5000 })], clock: createFakeClock() },
      { ...KEY, clusterName: 'limited' },
      [createFinding({ cluster: { ...TEST_CLUSTER, name: 'limited' }, fingerprint: 'fp-limited' })],
      { kind: 'change' },
      { slack: { minSeverity: 'low' } },
    );
    expect(summary).toMatchObject({ sent: 0, failed: 1, pending: 1 });
    expect(summary.errors.slack).toBe(
      '1 of 1 Slack messages not delivered: Slack chat.postMessage failed: ratelimited (rate limited); Retry-After 30 s exceeds the retry budget',
    );
  });

  it.each([
    [
      'channel_not_found',
      { channel: 'C0NOWHERE1' },
      'Slack chat.postMessage failed: channel_not_found (channel C0NOWHERE1 does not exist or the app cannot see it',
    ],
    [
      'not_in_channel',
      { channel: 'C0OUTSIDE1' },
      'Slack chat.postMessage failed: not_in_channel (the app is not a member of channel C0OUTSIDE1: invite it',
    ],
    [
      'invalid_auth',
      { token: 'xoxb-999999-wrong-token-value' },
      'Slack chat.postMessage failed: invalid_auth (the bot token was refused: store a valid xoxb- token in the SSM parameter)',
    ],
  ])(
    'reports {ok:false, error: %s} as undelivered with the cause, stopping the rest',
    async (code, options: { channel?: string; token?: string }, message) => {
      const notices = [notice(), notice({ cluster: { ...TEST_CLUSTER, name: 'other' } })];
      const [first, second] = notices as [PendingNotice, PendingNotice];
      const thread = { channel: options.channel ?? sandbox.env.SLACK_CHANNEL, ts: '1.000001' };
      const result = await sender({ ...options, retryBudgetMs: 0 }).send(notices, {
        slackThreads: () => ({
          fresh: [first],
          replies: [{ thread, notices: [second], broadcast: new Set([second]), board: [] }],
        }),
      });
      expect(result.delivered.size).toBe(0);
      expect(result.error).toContain(`2 of 2 Slack messages not delivered: ${message}`);
      expect(sandbox.slackApi.calls.map((c) => c.error)).toEqual([code]);
      const everything = JSON.stringify(result);
      expect(everything).not.toContain(sandbox.env.SLACK_BOT_TOKEN);
      expect(everything).not.toContain('wrong-token-value');
    },
  );

  it('reports an unreadable token by its parameter, not its value', async () => {
    const result = await createSlackBotSender({
      token: async () => {
        throw Object.assign(
          new Error('Secret parameter /sentinel/slack-bot-token does not hold a Slack bot token'),
          {
            name: 'SecretReadError',
          },
        );
      },
      channel: sandbox.env.SLACK_CHANNEL,
      apiUrl: sandbox.env.SLACK_API_URL,
    }).send([notice()]);
    expect(result).toEqual({
      delivered: new Set(),
      error:
        'Slack bot token could not be read: SecretReadError: Secret parameter /sentinel/slack-bot-token does not hold a Slack bot token',
    });
    expect(sandbox.slackApi.calls).toEqual([]);
  });
});
