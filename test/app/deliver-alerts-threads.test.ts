import { describe, expect, it } from 'vitest';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import type { PendingNotice } from '../../shared/core/alerts/lifecycle.ts';
import type { SlackThreadRef, ThreadedRecord } from '../../shared/core/alerts/threads.ts';
import type { ClusterId } from '../../shared/core/model.ts';
import type { DeliveryResult, NoticeSender, SendContext } from '../../shared/ports.ts';
import { createFinding, TEST_CLUSTER } from '../support/findings.ts';
import { createFakeAlertStore, createFakeClock } from '../support/monitor.ts';

const KEY: ClusterId = {
  accountId: TEST_CLUSTER.accountId,
  region: TEST_CLUSTER.region,
  clusterName: TEST_CLUSTER.name,
};
const SLACK = { slack: { minSeverity: 'low' as const } };

/** The thread the context's plan replies in, per notice (undefined: a new incident). */
function threadsPlanned(context: SendContext, notices: readonly PendingNotice[]) {
  const plan = context.slackThreads?.(notices, 'C0SANDBOX01');
  return notices.map((n) => plan?.replies.find((r) => r.notices.includes(n))?.thread);
}

/** A Slack sender that starts a thread per send (ts 1, 2, …) and records the context it was given. */
function threadingSender(onSend?: () => void) {
  let ts = 0;
  const seen: Array<{ notices: PendingNotice[]; threads: Array<SlackThreadRef | undefined> }> = [];
  const sender: NoticeSender = {
    channel: 'slack',
    async send(notices, context: SendContext = {}): Promise<DeliveryResult> {
      onSend?.();
      const planned = threadsPlanned(context, notices);
      seen.push({ notices: [...notices], threads: planned });
      ts += 1;
      const thread = { channel: 'C0SANDBOX01', ts: `${ts}.000000` };
      return {
        delivered: new Set(notices),
        threads: new Map(notices.map((n, i) => [n, planned[i] ?? thread])),
      };
    },
  };
  return { sender, seen };
}

describe('deliverAlerts with Slack threads', () => {
  it('stores the thread a sender reports, and hands it back for the next notice on the same subject', async () => {
    const alerts = createFakeAlertStore();
    const { sender, seen } = threadingSender();
    const deps = { alerts, senders: [sender], clock: createFakeClock() };
    const prediction = createFinding({ fingerprint: 'fp-a' });
    await deliverAlerts(deps, KEY, [prediction], { kind: 'change' }, SLACK);
    const confirmation = createFinding({
      ruleId: 'nodes/role-unauthorized',
      fingerprint: 'fp-b',
      subject: prediction.subject.toUpperCase(),
    });
    await deliverAlerts(deps, KEY, [prediction, confirmation], { kind: 'state' }, SLACK);
    expect(seen.map((s) => s.threads)).toEqual([[undefined], [{ channel: 'C0SANDBOX01', ts: '1.000000' }]]);
    const stored = (await alerts.load(KEY)).records as ThreadedRecord[];
    expect(stored.map((r) => [r.fingerprint, r.slackThread?.ts])).toEqual([
      ['fp-a', '1.000000'],
      ['fp-b', '1.000000'],
    ]);
  });

  it('keeps the thread of this run when another writer saved in between (re-plan, nothing sent twice)', async () => {
    const alerts = createFakeAlertStore();
    let sends = 0;
    const { sender, seen } = threadingSender(() => {
      sends += 1;
      if (sends === 1) alerts.loseNextSaves(1);
    });
    await deliverAlerts(
      { alerts, senders: [sender], clock: createFakeClock() },
      KEY,
      [createFinding({ fingerprint: 'fp-race' })],
      { kind: 'change' },
      SLACK,
    );
    expect(seen).toHaveLength(1);
    const stored = (await alerts.load(KEY)).records as ThreadedRecord[];
    expect(stored.find((r) => r.fingerprint === 'fp-race')?.slackThread).toEqual({
      channel: 'C0SANDBOX01',
      ts: '1.000000',
    });
    expect(stored.find((r) => r.fingerprint === 'fp-race')?.pending).toEqual({});
  });

  it('keeps a resolved record while its thread has an open alert, drops the thread once all are resolved', async () => {
    const alerts = createFakeAlertStore();
    const { sender } = threadingSender();
    const deps = { alerts, senders: [sender], clock: createFakeClock() };
    const a = createFinding({
      ruleId: 'nodes/role-unauthorized',
      fingerprint: 'fp-one',
      subject: 'arn:aws:iam::111122223333:role/one',
    });
    const b = createFinding({
      ruleId: 'nodes/role-unauthorized',
      fingerprint: 'fp-two',
      subject: 'arn:aws:iam::111122223333:role/two',
    });
    await deliverAlerts(deps, KEY, [a, b], { kind: 'state' }, SLACK);
    await deliverAlerts(deps, KEY, [b], { kind: 'state' }, SLACK);
    const kept = (await alerts.load(KEY)).records as ThreadedRecord[];
    expect(kept.map((r) => [r.fingerprint, r.status])).toEqual([
      ['fp-one', 'resolved'],
      ['fp-two', 'open'],
    ]);
    await deliverAlerts(deps, KEY, [], { kind: 'state' }, SLACK);
    expect((await alerts.load(KEY)).records).toEqual([]);
  });
});
