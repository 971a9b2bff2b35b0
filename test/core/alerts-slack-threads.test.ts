/**
 * Slack threading is decided in core (`planSlackThreads`): which notices start an incident, which
 * reply in which thread, which replies are broadcast to the channel, what each thread's first
 * message shows. The sender only follows the plan.
 */
import { describe, expect, it } from 'vitest';
import type { AlertRecord, PendingNotice } from '../../shared/core/alerts/lifecycle.ts';
import { planSlackThreads, type ThreadedRecord } from '../../shared/core/alerts/threads.ts';
import type { Finding } from '../../shared/core/model.ts';
import { createFinding } from '../support/findings.ts';

const CHANNEL = 'C0SANDBOX01';
const AT = '2026-01-01T00:00:00.000Z';

function record(finding: Finding, extra: Partial<ThreadedRecord> = {}): ThreadedRecord {
  const base: AlertRecord = {
    fingerprint: finding.fingerprint,
    cluster: finding.cluster,
    ruleId: finding.ruleId,
    origin: 'state',
    status: 'open',
    severity: finding.severity,
    finding,
    firstSeen: AT,
    lastSeen: AT,
    pending: {},
  };
  return { ...base, ...extra };
}

const notice = (kind: PendingNotice['kind'], finding: Finding): PendingNotice =>
  ({ kind, finding, at: AT }) as PendingNotice;

describe('planSlackThreads', () => {
  const thread = { channel: CHANNEL, ts: '1.000001' };
  const prediction = createFinding({ fingerprint: 'fp-prediction', subject: 'arn:aws:iam::1:role/Node' });
  const confirmation = createFinding({
    ruleId: 'nodes/role-unauthorized',
    fingerprint: 'fp-confirmation',
    subject: 'ARN:AWS:IAM::1:ROLE/NODE',
  });
  const resolvedOne = createFinding({ fingerprint: 'fp-resolved', subject: 'arn:aws:iam::1:role/Node' });
  const unrelated = createFinding({ fingerprint: 'fp-new', subject: 'arn:aws:iam::1:role/Other' });
  const records = [
    record(prediction, { slackThread: thread }),
    record(confirmation),
    record(resolvedOne, { status: 'resolved', slackThread: thread }),
    record(unrelated),
  ];

  it('replies in the thread of the same subject, broadcasting what opens and not what resolves', () => {
    const opened = notice('opened', confirmation);
    const resolved = notice('resolved', resolvedOne);
    const fresh = notice('opened', unrelated);
    const plan = planSlackThreads([fresh, opened, resolved], records, CHANNEL);
    expect(plan.fresh).toEqual([fresh]);
    expect(plan.replies).toHaveLength(1);
    const [replies] = plan.replies;
    expect(replies?.thread).toEqual(thread);
    expect(replies?.notices).toEqual([opened, resolved]);
    expect([...(replies?.broadcast ?? [])]).toEqual([opened]);
    // the first message shows every record of the thread as it stands now
    expect(replies?.board.map((n) => [n.kind, n.finding.fingerprint])).toEqual([
      ['opened', 'fp-prediction'],
      ['opened', 'fp-confirmation'],
      ['resolved', 'fp-resolved'],
    ]);
  });

  it('starts a new incident for a thread of another channel', () => {
    const opened = notice('opened', confirmation);
    const plan = planSlackThreads([opened], records, 'C0ELSEWHERE');
    expect(plan).toEqual({ fresh: [opened], replies: [] });
  });
});
