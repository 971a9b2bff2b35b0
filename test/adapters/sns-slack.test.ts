import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createSlackNoticeSender } from '../../shared/adapters/slack.ts';
import { createSnsClient, createSnsNoticeSender } from '../../shared/adapters/sns.ts';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import type { PendingNotice } from '../../shared/core/alerts/lifecycle.ts';
import type { SlackPayload } from '../../shared/core/render/slack.ts';
import { SNS_MESSAGE_SCHEMA } from '../../shared/core/render/sns.ts';
import { createFinding, TEST_CLUSTER } from '../support/findings.ts';
import { createFakeAlertStore, createFakeClock } from '../support/monitor.ts';

let sandbox: Sandbox;
let topicArn: string;

beforeAll(async () => {
  sandbox = await startSandbox({ clusters: [] });
  topicArn = `arn:aws:sns:${sandbox.env.AWS_REGION}:${sandbox.accountId}:eks-auth-sentinel-alerts`;
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(() => {
  sandbox.faults.clear();
  sandbox.sns.length = 0;
  sandbox.slack.length = 0;
});

function snsSender(options: { batch?: boolean; https?: 'findings' | 'chatbot' } = {}) {
  const sns = createSnsClient(sandbox.env.AWS_REGION, {
    endpoint: sandbox.env.AWS_ENDPOINT_URL_SNS,
    credentials: sandbox.credentials,
    maxAttempts: 1,
    callBudgetMs: 5000,
  });
  return createSnsNoticeSender({
    sns,
    topicArn,
    ...(options.batch === undefined ? {} : { batch: options.batch }),
    ...(options.https === undefined ? {} : { render: { https: options.https } }),
  });
}

function notice(
  overrides: Parameters<typeof createFinding>[0] = {},
  kind: PendingNotice['kind'] = 'opened',
): PendingNotice {
  return { kind, finding: createFinding(overrides), at: '2026-11-29T12:00:00.000Z', attempts: 0 };
}

describe('createSnsNoticeSender (sandbox SNS)', () => {
  it('publishes one message per notice with filter attributes, Subject and per-protocol JSON', async () => {
    const a = notice({ severity: 'critical' });
    const b = notice({ severity: 'medium', ruleId: 'aws-auth/role-arn-has-path' }, 'escalated');
    const result = await snsSender().send([a, b]);
    expect(result.error).toBeUndefined();
    expect([...result.delivered]).toEqual([a, b]);
    expect(sandbox.sns).toHaveLength(2);
    const first = sandbox.sns.find((r) => r.messageAttributes.severity?.StringValue === 'critical');
    expect(first?.subject).toBe('[CRITICAL] prod eu-west-1: nodegroup/deletion-orphans-role');
    expect(first?.messageStructure).toBe('json');
    expect(first?.messageAttributes).toEqual({
      severity: { DataType: 'String', StringValue: 'critical' },
      ruleId: { DataType: 'String', StringValue: 'nodegroup/deletion-orphans-role' },
      cluster: { DataType: 'String', StringValue: 'prod' },
      region: { DataType: 'String', StringValue: 'eu-west-1' },
      account: { DataType: 'String', StringValue: '111122223333' },
      kind: { DataType: 'String', StringValue: 'opened' },
    });
    const message = JSON.parse(first?.message ?? '{}') as Record<string, string>;
    expect(Object.keys(message).sort()).toEqual(['default', 'email', 'https', 'lambda', 'sqs']);
    expect(message.default).toContain('NEW CRITICAL');
    expect(message.default).toContain('aws eks create-access-entry --cluster-name prod');
    expect(message.email).toBe(message.default);
    const machine = JSON.parse(message.sqs ?? '{}');
    expect(machine.schema).toBe(SNS_MESSAGE_SCHEMA);
    expect(machine.notices[0].kind).toBe('opened');
    expect(machine.notices[0].finding.ruleId).toBe('nodegroup/deletion-orphans-role');
    expect(machine.notices[0].finding.remediation.awsCli).toBe(a.finding.remediation?.awsCli);
    expect(message.lambda).toBe(message.sqs);
    const escalated = sandbox.sns.find((r) => r.messageAttributes.kind?.StringValue === 'escalated');
    expect(escalated?.subject).toBe('[MEDIUM, escalated] prod eu-west-1: aws-auth/role-arn-has-path');
  });

  it('sends AWS Chatbot custom notifications to https subscribers when asked', async () => {
    await snsSender({ https: 'chatbot' }).send([notice()]);
    const message = JSON.parse(sandbox.sns[0]?.message ?? '{}') as Record<string, string>;
    const chatbot = JSON.parse(message.https ?? '{}');
    expect(chatbot).toMatchObject({
      version: '1.0',
      source: 'custom',
      content: { textType: 'client-markdown' },
    });
    expect(chatbot.content.title).toContain('CRITICAL');
    expect(chatbot.content.description).toContain('```sh\naws eks create-access-entry');
  });

  it('batches a cluster’s notices into one digest with String.Array attributes when they differ', async () => {
    const notices = [notice(), notice({ ruleId: 'nodes/role-unauthorized', severity: 'high' })];
    const result = await snsSender({ batch: true }).send(notices);
    expect(result.delivered.size).toBe(2);
    expect(sandbox.sns).toHaveLength(1);
    expect(sandbox.sns[0]?.subject).toBe(
      '[CRITICAL] prod eu-west-1: 2 notices (nodegroup/deletion-orphans-role, +1 more)',
    );
    expect(sandbox.sns[0]?.messageAttributes.ruleId?.DataType).toBe('String.Array');
    expect(JSON.parse(sandbox.sns[0]?.messageAttributes.ruleId?.StringValue ?? '[]')).toEqual([
      'nodegroup/deletion-orphans-role',
      'nodes/role-unauthorized',
    ]);
  });

  it('reports a failed Publish and still attempts the other notices', async () => {
    sandbox.faults.inject({
      service: 'sns',
      operation: 'Publish',
      status: 500,
      code: 'InternalError',
      times: 1,
    });
    const notices = [notice(), notice(), notice()];
    const result = await snsSender().send(notices);
    expect(result.delivered.size).toBe(2);
    expect(sandbox.sns).toHaveLength(2);
    expect(result.error).toMatch(
      /^1 of 3 notices not published: Publish on arn:aws:sns:.* failed with InternalError/,
    );
  });
});

describe('createSlackNoticeSender (sandbox Slack sink)', () => {
  it('posts Block Kit: header, where, who loses access and by when, the fix as exact code', async () => {
    const n = notice();
    const result = await createSlackNoticeSender({ webhookUrl: sandbox.env.SLACK_WEBHOOK_URL }).send([n]);
    expect(result).toEqual({ delivered: new Set([n]) });
    expect(sandbox.slack).toHaveLength(1);
    const body = sandbox.slack[0]?.body as SlackPayload;
    expect(body.text).toContain('CRITICAL');
    expect(body.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
    const json = JSON.stringify(body);
    expect(json).toContain('*Cluster*\\n`prod`');
    expect(json).toContain('*Region*\\n`eu-west-1`');
    expect(json).toContain('*Account*\\n`111122223333`');
    expect(json).toContain('*Who loses access* — 12 nodes');
    expect(json).toContain('*By when:* new nodes at once');
    const code = body.blocks
      .flatMap((b) => (b.type === 'rich_text' ? b.elements : []))
      .filter((e) => e.type === 'rich_text_preformatted')
      .map((e) => e.elements.map((t) => t.text).join(''));
    expect(code).toEqual([
      n.finding.remediation?.awsCli,
      n.finding.remediation?.terraform,
      n.finding.remediation?.awsAuthYaml,
    ]);
  });

  it('reports Slack 500 as undelivered without the webhook URL, while SNS still delivers', async () => {
    sandbox.faults.inject({ service: 'slack', status: 500, code: 'internal_error' });
    const url = sandbox.env.SLACK_WEBHOOK_URL;
    const logged: string[] = [];
    const original = { log: console.log, error: console.error, warn: console.warn, info: console.info };
    for (const k of ['log', 'error', 'warn', 'info'] as const)
      console[k] = (...args: unknown[]) => logged.push(args.map(String).join(' '));
    try {
      const clock = createFakeClock();
      const alerts = createFakeAlertStore();
      const key = {
        accountId: TEST_CLUSTER.accountId,
        region: TEST_CLUSTER.region,
        clusterName: TEST_CLUSTER.name,
      };
      const summary = await deliverAlerts(
        { alerts, senders: [snsSender(), createSlackNoticeSender({ webhookUrl: url })], clock },
        key,
        [createFinding({ fingerprint: 'fp-slack-down' })],
        { kind: 'change' },
        { sns: { minSeverity: 'low' }, slack: { minSeverity: 'low' } },
      );
      expect(summary).toMatchObject({ sent: 1, failed: 1, pending: 1 });
      expect(summary.errors.slack).toBe(
        '1 of 1 Slack messages not delivered: Slack webhook answered HTTP 500 (internal_error)',
      );
      expect(sandbox.sns).toHaveLength(1);
      expect(sandbox.slack).toHaveLength(0);
      const stored = JSON.stringify([...alerts.items.values()]);
      expect(stored).toContain('Slack webhook answered HTTP 500');
      for (const text of [stored, JSON.stringify(summary), ...logged]) {
        expect(text).not.toContain(url);
        expect(text).not.toContain('/services/');
      }
    } finally {
      Object.assign(console, original);
    }
  });

  it('never puts the URL in an error when the webhook cannot be reached', async () => {
    const secret = 'http://127.0.0.1:9/services/T00000000/B00000000/very-secret-token';
    const result = await createSlackNoticeSender({ webhookUrl: secret, timeoutMs: 2000 }).send([notice()]);
    expect(result.delivered.size).toBe(0);
    expect(result.error).toMatch(/Slack webhook POST failed/);
    expect(result.error).not.toContain('very-secret-token');
  });

  it('reports an unreadable webhook secret by its parameter, not its value', async () => {
    const result = await createSlackNoticeSender({
      webhookUrl: async () => {
        throw Object.assign(
          new Error('Reading secret parameter /sentinel/slack-webhook failed (forbidden)'),
          {
            name: 'SecretReadError',
          },
        );
      },
    }).send([notice()]);
    expect(result.delivered.size).toBe(0);
    expect(result.error).toBe(
      'Slack webhook URL could not be read: SecretReadError: Reading secret parameter /sentinel/slack-webhook failed (forbidden)',
    );
  });
});

describe('createSlackNoticeSender (local webhook answering 429)', () => {
  let server: Server;
  let url: string;
  const replies: Array<{ status: number; retryAfter?: string; body?: string }> = [];
  let received = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received += 1;
        const reply = replies.shift() ?? { status: 200 };
        res.writeHead(
          reply.status,
          reply.retryAfter === undefined ? {} : { 'retry-after': reply.retryAfter },
        );
        res.end(reply.body ?? (reply.status === 200 ? 'ok' : 'rate_limited'));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T1/B1/secret-429`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    replies.length = 0;
    received = 0;
  });

  it('waits Retry-After and retries within the budget', async () => {
    replies.push({ status: 429, retryAfter: '2' });
    const waits: number[] = [];
    const sender = createSlackNoticeSender({
      webhookUrl: url,
      retryBudgetMs: 5000,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const result = await sender.send([notice()]);
    expect(result.delivered.size).toBe(1);
    expect(waits).toEqual([2000]);
    expect(received).toBe(2);
  });

  it('stores a redacted lastError when a proxy page echoes the webhook host, path or token without the scheme', async () => {
    replies.push({
      status: 502,
      body: '<html><body>Bad gateway: hooks.slack.com/services/T1/B1/secret-429 unreachable; retry /services/T1/B1/secret-429 (T1/B1/secret-429)</body></html>',
    });
    const alerts = createFakeAlertStore();
    const key = {
      accountId: TEST_CLUSTER.accountId,
      region: TEST_CLUSTER.region,
      clusterName: TEST_CLUSTER.name,
    };
    const summary = await deliverAlerts(
      { alerts, senders: [createSlackNoticeSender({ webhookUrl: url })], clock: createFakeClock() },
      key,
      [createFinding({ fingerprint: 'fp-proxy-echo' })],
      { kind: 'change' },
      { slack: { minSeverity: 'low' } },
    );
    expect(summary).toMatchObject({ sent: 0, failed: 1 });
    const stored = JSON.stringify([...alerts.items.values()]);
    expect(stored).toContain('Slack webhook answered HTTP 502');
    expect(stored).toContain('lastError');
    for (const text of [stored, JSON.stringify(summary)]) {
      expect(text).not.toContain('secret-429');
      expect(text).not.toContain('T1/B1');
      expect(text).toContain('<webhook>');
    }
  });

  it('gives up when Retry-After exceeds the budget, and reports the rest undelivered too', async () => {
    replies.push({ status: 429, retryAfter: '30' });
    const sender = createSlackNoticeSender({
      webhookUrl: url,
      retryBudgetMs: 5000,
      // A tiny message budget, so the three notices need three messages.
      render: { maxBlocks: 12, maxMessageTextChars: 1200 },
      sleep: async () => {
        throw new Error('must not wait');
      },
    });
    const result = await sender.send([notice(), notice(), notice()]);
    expect(result.delivered.size).toBe(0);
    expect(received).toBe(1);
    expect(result.error).toMatch(
      /^(\d) of \1 Slack messages not delivered: Slack webhook answered HTTP 429 \(rate_limited\); Retry-After 30 s exceeds the retry budget$/,
    );
    expect(result.error).not.toMatch(/^1 of/);
    expect(result.error).not.toContain('secret-429');
  });
});

describe('createSlackNoticeSender under the rate limit (sandbox sink)', () => {
  const sixty = () =>
    Array.from({ length: 60 }, (_, i) =>
      notice({
        ruleId: `test/rule-${i % 6}`,
        severity: (['critical', 'high', 'medium'] as const)[i % 3],
        title: `Finding ${i} of the storm on prod`,
        fingerprint: `fp-storm-${i}`,
      }),
    );

  it('sends 60 notices of one cluster as one message that names every one', async () => {
    const notices = sixty();
    const result = await createSlackNoticeSender({ webhookUrl: sandbox.env.SLACK_WEBHOOK_URL }).send(notices);
    expect(result.error).toBeUndefined();
    expect(result.delivered.size).toBe(60);
    expect(sandbox.slack).toHaveLength(1);
    const json = JSON.stringify(sandbox.slack[0]?.body);
    for (let i = 0; i < 60; i++) expect(json).toContain(`Finding ${i} of the storm`);
    const body = sandbox.slack[0]?.body as SlackPayload;
    expect(body.blocks[0]).toMatchObject({ type: 'header' });
    expect((body.blocks[0] as { text: { text: string } }).text.text).toMatch(
      /^:red_circle: CRITICAL · prod · /,
    );
  });

  it('spaces messages at least one second apart, none dropped, and waits out a 429', async () => {
    sandbox.faults.inject({
      service: 'slack',
      status: 429,
      code: 'rate_limited',
      retryAfterSeconds: 1,
      times: 1,
    });
    const callsBefore = sandbox.calls.length;
    const notices = sixty();
    // A small text budget forces the storm into several messages.
    const sender = createSlackNoticeSender({
      webhookUrl: sandbox.env.SLACK_WEBHOOK_URL,
      render: { maxMessageTextChars: 1500 },
    });
    const result = await sender.send(notices);
    expect(result.error).toBeUndefined();
    expect(result.delivered.size).toBe(60);
    const times = sandbox.slack.map((m) => m.at);
    expect(times.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < times.length; i++)
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(1000);
    const json = JSON.stringify(sandbox.slack.map((m) => m.body));
    for (let i = 0; i < 60; i++) expect(json).toContain(`Finding ${i} of the storm`);
    const statuses = sandbox.calls
      .slice(callsBefore)
      .filter((c) => c.service === 'slack')
      .map((c) => c.status);
    expect(statuses).toEqual([429, ...times.map(() => 200)]);
  }, 30_000);
});
