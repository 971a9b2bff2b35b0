import { describe, expect, it } from 'vitest';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import { DeliveryError } from '../../shared/app/errors.ts';
import type { ChannelPolicy } from '../../shared/core/alerts/lifecycle.ts';
import type { ClusterId, Finding } from '../../shared/core/model.ts';
import { createFinding, TEST_CLUSTER } from '../support/findings.ts';
import { createFakeAlertStore, createFakeClock, createFakeSender } from '../support/monitor.ts';

const KEY: ClusterId = {
  accountId: TEST_CLUSTER.accountId,
  region: TEST_CLUSTER.region,
  clusterName: TEST_CLUSTER.name,
};
const CHANNELS: Record<'sns' | 'slack', ChannelPolicy> = {
  sns: { minSeverity: 'low' },
  slack: { minSeverity: 'high' },
};
const STATE = { kind: 'state' } as const;

function setup() {
  const clock = createFakeClock();
  const alerts = createFakeAlertStore();
  const sns = createFakeSender('sns');
  const slack = createFakeSender('slack');
  const deps = { alerts, senders: [sns, slack], clock };
  const run = async (findings: Finding[], scope: Parameters<typeof deliverAlerts>[3] = STATE) => {
    clock.advance(5 * 60_000);
    return deliverAlerts(deps, KEY, findings, scope, CHANNELS);
  };
  return { clock, alerts, sns, slack, run };
}

/** A state finding (resolves when a full evaluation no longer finds it). */
const stateFinding = (fingerprint: string, overrides: Parameters<typeof createFinding>[0] = {}) =>
  createFinding({ ruleId: 'nodes/role-unauthorized', trigger: 'schedule', fingerprint, ...overrides });

const stored = (alerts: ReturnType<typeof createFakeAlertStore>) =>
  alerts.items.get(`${KEY.accountId}/${KEY.region}/${KEY.clusterName}`)?.records ?? [];

describe('deliverAlerts', () => {
  it('alerts once for the same findings seen twice', async () => {
    const { sns, slack, run } = setup();
    const finding = createFinding({ fingerprint: 'fp-twice' });
    expect(await run([finding])).toMatchObject({ sent: 2, failed: 0, pending: 0 });
    expect(await run([structuredClone(finding)])).toMatchObject({ sent: 0, failed: 0, pending: 0 });
    expect(sns.delivered.map((n) => n.kind)).toEqual(['opened']);
    expect(slack.delivered.map((n) => n.kind)).toEqual(['opened']);
    expect(sns.calls).toHaveLength(1);
  });

  it('sends one resolved notice when the finding is gone, and then nothing', async () => {
    const { sns, slack, alerts, run } = setup();
    await run([stateFinding('fp-gone')]);
    expect(await run([])).toMatchObject({ sent: 2, pending: 0 });
    await run([]);
    expect(sns.delivered.map((n) => n.kind)).toEqual(['opened', 'resolved']);
    expect(slack.delivered.map((n) => n.kind)).toEqual(['opened', 'resolved']);
    expect(stored(alerts)).toEqual([]);
  });

  it('resolves a change finding only once its change has settled', async () => {
    const { sns, run } = setup();
    const predicted = createFinding({ fingerprint: 'fp-change', trigger: 'event:DeleteNodegroup' });
    await run([predicted], { kind: 'change' });
    await run([]);
    expect(sns.delivered.map((n) => n.kind)).toEqual(['opened']);
    await run([], { kind: 'settled', fingerprints: ['fp-change'] });
    expect(sns.delivered.map((n) => n.kind)).toEqual(['opened', 'resolved']);
  });

  it('notifies again when the severity rises', async () => {
    const { sns, run } = setup();
    await run([createFinding({ fingerprint: 'fp-up', severity: 'medium' })]);
    await run([createFinding({ fingerprint: 'fp-up', severity: 'critical' })]);
    expect(sns.delivered.map((n) => `${n.kind}:${n.finding.severity}`)).toEqual([
      'opened:medium',
      'escalated:critical',
    ]);
  });

  it('still delivers to Slack when SNS fails, retries SNS on the next run and loses nothing', async () => {
    const { sns, slack, alerts, run } = setup();
    sns.failing = 'Publish to arn:aws:sns:eu-west-1:111122223333:alerts failed with InternalError (HTTP 500)';
    const finding = createFinding({ fingerprint: 'fp-sns-down' });
    const first = await run([finding]);
    expect(first).toMatchObject({ sent: 1, failed: 1, pending: 1 });
    expect(first.errors.sns).toContain('InternalError');
    expect(slack.delivered).toHaveLength(1);
    const pending = stored(alerts)[0]?.pending.sns;
    expect(pending).toHaveLength(1);
    expect(pending?.[0]).toMatchObject({ kind: 'opened', attempts: 1 });

    sns.failing = undefined;
    expect(await run([finding])).toMatchObject({ sent: 1, failed: 0, pending: 0 });
    expect(sns.delivered.map((n) => [n.kind, n.finding.fingerprint])).toEqual([['opened', 'fp-sns-down']]);
    expect(slack.delivered).toHaveLength(1);
  });

  it('throws DeliveryError after the third failed attempt, with the notices saved', async () => {
    const { sns, alerts, run } = setup();
    sns.failing = 'Publish failed with InternalError (HTTP 500)';
    const finding = createFinding({ fingerprint: 'fp-exhausted' });
    await run([finding]);
    await run([finding]);
    const savesBefore = alerts.saves;
    const error = await run([finding]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryError);
    const e = error as DeliveryError;
    expect(e.name).toBe('DeliveryError');
    expect(e.exhausted.sns).toEqual({
      notices: 1,
      lastError: 'Publish failed with InternalError (HTTP 500)',
    });
    expect(e.exhausted.slack).toBeUndefined();
    expect(e.message).toContain('prod (account 111122223333, region eu-west-1)');
    // Saved twice: the plan with its notices pending (before sending), then the attempts counted.
    expect(alerts.saves).toBe(savesBefore + 2);
    expect(stored(alerts)[0]?.pending.sns?.[0]?.attempts).toBe(3);

    sns.failing = undefined;
    expect(await run([finding])).toMatchObject({ sent: 1, pending: 0 });
    expect(sns.delivered).toHaveLength(1);
  });

  it('re-plans once on ConcurrentUpdateError without sending twice what was delivered', async () => {
    const { sns, slack, alerts, run } = setup();
    alerts.loseNextSaves(1);
    const summary = await run([createFinding({ fingerprint: 'fp-race' })]);
    expect(summary).toMatchObject({ sent: 2, pending: 0 });
    expect(sns.delivered).toHaveLength(1);
    expect(slack.delivered).toHaveLength(1);
    expect(stored(alerts).map((r) => r.fingerprint)).toEqual(['fp-race']);
  });

  it('gives up with the ConcurrentUpdateError when both retries lose as well, having sent nothing', async () => {
    const { alerts, sns, run } = setup();
    alerts.loseNextSaves(3);
    await expect(run([createFinding({ fingerprint: 'fp-race-2' })])).rejects.toMatchObject({
      name: 'ConcurrentUpdateError',
    });
    expect(sns.delivered).toHaveLength(0);
  });

  it('queues nothing for a channel that has a policy but no sender', async () => {
    const clock = createFakeClock();
    const alerts = createFakeAlertStore();
    const sns = createFakeSender('sns');
    const summary = await deliverAlerts(
      { alerts, senders: [sns], clock },
      KEY,
      [createFinding({ fingerprint: 'fp-no-slack' })],
      STATE,
      CHANNELS,
    );
    expect(summary).toMatchObject({ sent: 1, pending: 0 });
    expect(stored(alerts)[0]?.pending).toEqual({});
  });

  it('keeps the notice pending when a sender throws instead of reporting', async () => {
    const { alerts, slack, run } = setup();
    slack.send = async () => {
      throw new TypeError('boom https://hooks.slack.com/services/T0/B0/secret');
    };
    const summary = await run([createFinding({ fingerprint: 'fp-throw' })]);
    expect(summary.errors.slack).toBe('TypeError while sending');
    expect(stored(alerts)[0]?.pending.slack?.[0]?.attempts).toBe(1);
  });

  it('respects the minimum severity per channel', async () => {
    const { sns, slack, run } = setup();
    await run([createFinding({ fingerprint: 'fp-medium', severity: 'medium' })]);
    expect(sns.delivered).toHaveLength(1);
    expect(slack.delivered).toHaveLength(0);
  });
});
