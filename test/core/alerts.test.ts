import { describe, expect, it } from 'vitest';
import {
  type AlertRecord,
  isSpent,
  originOf,
  planAlerts,
  recordDeliveries,
} from '../../shared/core/alerts/lifecycle.ts';
import type { Finding } from '../../shared/core/model.ts';
import { assessSnapshot, diffSnapshots, whatIf } from '../../shared/core/predict/engine.ts';
import {
  adminMapping,
  buildSnapshot,
  ec2Entry,
  fargateMapping,
  fargateProfile,
  karpenterNodes,
  managedNodes,
  nodeMapping,
} from '../support/snapshot-builder.ts';

const channels = { sns: { minSeverity: 'high' as const }, slack: { minSeverity: 'critical' as const } };
const broken = () =>
  buildSnapshot({ mapRoles: adminMapping(), compute: [...managedNodes(2), ...karpenterNodes(2)] });
const critical = (): Finding[] => assessSnapshot(broken(), { trigger: 'schedule' });

function run(
  records: AlertRecord[],
  findings: readonly Finding[],
  scope: Parameters<typeof planAlerts>[0]['scope'],
  now = '2026-11-29T10:00:00Z',
) {
  return planAlerts({ records, findings, scope, now, channels });
}

/** Deliver everything in the outbox and return the stored records. */
function deliverAll(result: ReturnType<typeof planAlerts>): AlertRecord[] {
  return recordDeliveries(
    result.records,
    { sns: { delivered: new Set(result.outbox.sns) }, slack: { delivered: new Set(result.outbox.slack) } },
    result.outbox,
  );
}

describe('planAlerts', () => {
  it('notifies a new finding once per channel that wants its severity', () => {
    const r = run([], critical(), { kind: 'state' });
    const crit = critical().filter((f) => f.severity === 'critical');
    expect(r.outbox.slack.map((n) => n.finding.fingerprint)).toEqual(crit.map((f) => f.fingerprint));
    expect(r.outbox.slack.every((n) => n.kind === 'opened')).toBe(true);
    // the low configmap-only finding goes to neither channel
    expect(r.outbox.sns.some((n) => n.finding.severity === 'low')).toBe(false);
  });

  it('stays silent when the same findings are found again', () => {
    const stored = deliverAll(run([], critical(), { kind: 'state' }));
    const again = run(stored, critical(), { kind: 'state' }, '2026-11-29T10:05:00Z');
    expect(again.outbox.sns).toEqual([]);
    expect(again.outbox.slack).toEqual([]);
  });

  it('sends one resolved notice when a finding is gone, then nothing', () => {
    const stored = deliverAll(run([], critical(), { kind: 'state' }));
    const healthy = assessSnapshot(buildSnapshot(), { trigger: 'schedule' });
    const gone = run(stored, healthy, { kind: 'state' }, '2026-11-29T10:05:00Z');
    expect(gone.outbox.slack.map((n) => n.kind)).toEqual(['resolved']);
    const after = deliverAll(gone);
    expect(after.filter((r) => r.ruleId === 'nodes/role-unauthorized').every(isSpent)).toBe(true);
    const later = run(after, healthy, { kind: 'state' }, '2026-11-29T10:10:00Z');
    expect(later.outbox.slack).toEqual([]);
  });

  it('notifies again when the severity goes up', () => {
    const high = critical().map((f) => ({ ...f, severity: 'high' as const }));
    const stored = deliverAll(run([], high, { kind: 'state' }));
    const up = run(stored, critical(), { kind: 'state' });
    expect(up.outbox.slack.map((n) => n.kind)).toContain('escalated');
  });

  it('never resolves while a source of the cluster is unreadable', () => {
    const stored = deliverAll(run([], critical(), { kind: 'state' }));
    const s = broken();
    s.awsAuth = { status: 'error', error: 'kubernetes: 403' };
    const blind = run(stored, assessSnapshot(s), { kind: 'state' });
    expect(blind.outbox.slack.filter((n) => n.kind === 'resolved')).toEqual([]);
    expect(blind.outbox.sns.map((n) => n.finding.ruleId)).toContain('monitor/source-unavailable');
  });

  it('does not resolve state findings from an event evaluation, and resolves change findings when settled', () => {
    const stored = deliverAll(run([], critical(), { kind: 'state' }));
    const s = buildSnapshot({ compute: [...managedNodes(2), ...karpenterNodes(2)] });
    const predicted = whatIf(s, { kind: 'delete-nodegroup', nodegroupName: 'general' }).findings;
    const ev = run(stored, predicted, { kind: 'change' });
    expect(ev.outbox.slack.map((n) => [n.kind, n.finding.ruleId])).toEqual([
      ['opened', 'nodegroup/deletion-orphans-role'],
    ]);
    // a prediction that did not come true (no open state finding about its subject) resolves loudly
    const afterEvent = deliverAll(run([], predicted, { kind: 'change' }));
    const settled = run(afterEvent, [], {
      kind: 'settled',
      fingerprints: predicted.map((f) => f.fingerprint),
    });
    expect(settled.outbox.slack.map((n) => [n.kind, n.finding.ruleId])).toEqual([
      ['resolved', 'nodegroup/deletion-orphans-role'],
    ]);
  });

  it('closes a prediction whose follow-ups ran out before the change settled without a "resolved" notice', () => {
    const s = buildSnapshot({ compute: [...managedNodes(2), ...karpenterNodes(2)] });
    const predicted = whatIf(s, { kind: 'delete-nodegroup', nodegroupName: 'general' }).findings;
    const afterEvent = deliverAll(run([], predicted, { kind: 'change' }));
    const gaveUp = run(afterEvent, [], {
      kind: 'settled',
      fingerprints: predicted.map((f) => f.fingerprint),
      unsettled: true,
    });
    expect(gaveUp.outbox.slack).toEqual([]);
    expect(gaveUp.outbox.sns).toEqual([]);
    expect(gaveUp.records.find((r) => r.ruleId === 'nodegroup/deletion-orphans-role')?.status).toBe(
      'resolved',
    );
    // the same change later on alerts again
    const again = run(gaveUp.records, predicted, { kind: 'change' });
    expect(again.outbox.slack.map((n) => n.kind)).toContain('opened');
  });

  it('keeps a failed send pending with its attempt count and sends it again next run', () => {
    const first = run([], critical(), { kind: 'state' });
    const failed = recordDeliveries(
      first.records,
      {
        sns: { delivered: new Set(first.outbox.sns) },
        slack: { delivered: new Set(), error: 'webhook 500' },
      },
      first.outbox,
    );
    const retry = run(failed, critical(), { kind: 'state' }, '2026-11-29T10:05:00Z');
    expect(retry.outbox.sns).toEqual([]);
    expect(retry.outbox.slack.length).toBe(first.outbox.slack.length);
    expect(retry.outbox.slack[0]).toMatchObject({ kind: 'opened', attempts: 1, lastError: 'webhook 500' });
  });

  it('closes a settled prediction silently when the outage it foretold is now an open state finding', () => {
    const s = buildSnapshot({ compute: [...managedNodes(2), ...karpenterNodes(2)] });
    const predicted = whatIf(s, { kind: 'delete-nodegroup', nodegroupName: 'general' }).findings;
    const afterEvent = deliverAll(run([], predicted, { kind: 'change' }));
    // the follow-up's state evaluation finds the nodes unauthorized, then the change settles
    const outage = assessSnapshot(broken(), { trigger: 'schedule' });
    const withOutage = deliverAll(run(afterEvent, outage, { kind: 'state' }));
    const settled = run(withOutage, [], {
      kind: 'settled',
      fingerprints: predicted.map((f) => f.fingerprint),
    });
    expect(settled.outbox.slack).toEqual([]);
    expect(settled.records.find((r) => r.ruleId === 'nodegroup/deletion-orphans-role')?.status).toBe(
      'resolved',
    );
  });

  it('says "confirmed" (with the prediction), not "new", when the state finding a prediction foretold opens', () => {
    const s = buildSnapshot({ compute: [...managedNodes(2), ...karpenterNodes(2)] });
    const predicted = whatIf(s, { kind: 'delete-nodegroup', nodegroupName: 'general' }).findings;
    const afterEvent = deliverAll(run([], predicted, { kind: 'change' }, '2026-11-29T09:59:00Z'));
    const outage = assessSnapshot(broken(), { trigger: 'schedule' });
    const followUp = run(afterEvent, outage, { kind: 'state' });
    const notice = followUp.outbox.slack.find((n) => n.finding.ruleId === 'nodes/role-unauthorized');
    expect(notice?.kind).toBe('confirmed');
    expect(notice?.confirms).toEqual({
      fingerprint: predicted[0]?.fingerprint,
      ruleId: 'nodegroup/deletion-orphans-role',
      title: predicted[0]?.title,
      predictedAt: '2026-11-29T09:59:00Z',
    });
    // without an open prediction the same outage is simply new
    expect(run([], outage, { kind: 'state' }).outbox.slack.map((n) => n.kind)).toEqual(['opened']);
  });

  it('never says "resolved" of a switch to API mode that came true: the damage stays open, named', () => {
    const developers = `- rolearn: arn:aws:iam::111122223333:role/developers\n  username: "developer:{{SessionName}}"\n  groups:\n    - dev-team\n`;
    const before = buildSnapshot({
      mode: 'API_AND_CONFIG_MAP',
      mapRoles: nodeMapping() + developers,
      entries: [ec2Entry()],
    });
    const predicted = whatIf(before, { kind: 'set-auth-mode', mode: 'API' }).findings;
    expect(predicted.map((f) => f.ruleId)).toEqual(['cluster/auth-mode-drops-principals']);
    const afterEvent = deliverAll(run([], predicted, { kind: 'change' }));
    const switched = structuredClone(before);
    switched.cluster.authenticationMode = 'API';
    const state = assessSnapshot(switched, { trigger: 'schedule' });
    const followUp = run(afterEvent, state, { kind: 'state' }, '2026-11-29T10:01:00Z');
    expect(followUp.outbox.sns.map((n) => [n.kind, n.finding.ruleId])).toEqual([
      ['confirmed', 'cluster/api-mode-ignores-aws-auth'],
    ]);
    expect(followUp.outbox.sns[0]?.finding.title).toContain('role developers');
    const settled = run(deliverAll(followUp), [], {
      kind: 'settled',
      fingerprints: predicted.map((f) => f.fingerprint),
    });
    expect(settled.outbox.sns).toEqual([]);
    const open = settled.records.filter((r) => r.status === 'open').map((r) => r.ruleId);
    expect(open).toEqual(['cluster/api-mode-ignores-aws-auth']);
    // once the access entry exists the risk is really gone: then, and only then, "resolved"
    const fixed = structuredClone(switched);
    fixed.accessEntries = {
      status: 'ok',
      data: [
        ec2Entry(),
        ec2Entry('arn:aws:iam::111122223333:role/developers', {
          type: 'STANDARD',
          username: 'developer:{{SessionName}}',
        }),
      ],
    };
    const later = run(deliverAll(settled), assessSnapshot(fixed, { trigger: 'schedule' }), { kind: 'state' });
    expect(later.outbox.sns.map((n) => [n.kind, n.finding.ruleId])).toEqual([
      ['resolved', 'cluster/api-mode-ignores-aws-auth'],
    ]);
  });

  it('never says "resolved" of a deleted access entry that locked a person out, once the deletion settled', () => {
    const admin = 'arn:aws:iam::111122223333:role/platform-admin';
    const before = buildSnapshot({
      mode: 'API',
      entries: [ec2Entry(), ec2Entry(admin, { type: 'STANDARD', kubernetesGroups: ['admins'] })],
    });
    const predicted = whatIf(before, { kind: 'delete-access-entry', principalArn: admin }).findings;
    expect(predicted.map((f) => [f.ruleId, f.severity])).toEqual([
      ['access-entry/deletion-locks-out', 'critical'],
    ]);
    const afterEvent = deliverAll(run([], predicted, { kind: 'change' }));
    // The follow-up finds the entry gone: the change settled, and it was the damage itself.
    const settled = run(afterEvent, [], {
      kind: 'settled',
      fingerprints: predicted.map((f) => f.fingerprint),
    });
    expect(settled.outbox.sns).toEqual([]);
    expect(settled.outbox.slack).toEqual([]);
    expect(settled.records.find((r) => r.ruleId === 'access-entry/deletion-locks-out')?.status).toBe(
      'resolved',
    );
  });

  it('reports a removed mapping once and closes it silently on the next evaluation', () => {
    const before = buildSnapshot({ mapRoles: nodeMapping() + adminMapping() });
    const after = buildSnapshot();
    const removed = diffSnapshots(before, after, { trigger: 'schedule' });
    expect(removed.map((f) => f.ruleId)).toContain('aws-auth/entry-removed');
    const first = run([], removed, { kind: 'state' });
    expect(first.outbox.sns.map((n) => n.finding.ruleId)).toContain('aws-auth/entry-removed');
    const next = run(deliverAll(first), assessSnapshot(after, { trigger: 'schedule' }), { kind: 'state' });
    expect(next.outbox.sns).toEqual([]);
    expect(next.records.find((r) => r.ruleId === 'aws-auth/entry-removed')?.status).toBe('resolved');
  });
});

describe('originOf', () => {
  it('takes a finding seen between two snapshots as a transition, closing silently later', () => {
    const before = buildSnapshot({
      managedFields: [
        { manager: 'Terraform', operation: 'Apply', time: '2026-01-01T00:00:00Z', dataKeys: ['mapRoles'] },
      ],
    });
    const after = buildSnapshot({
      mapRoles: nodeMapping() + fargateMapping(),
      fargateProfiles: [fargateProfile()],
      managedFields: [
        { manager: 'eks', operation: 'Update', time: '2026-06-01T00:00:00Z', dataKeys: ['mapRoles'] },
      ],
    });
    const seen = diffSnapshots(before, after, { trigger: 'schedule' }).filter(
      (f) => f.ruleId === 'fargate/entry-not-in-iac',
    );
    expect(seen.map(originOf)).toEqual(['transition']);
    const first = planAlerts({
      records: [],
      findings: seen,
      scope: { kind: 'state' },
      now: '2026-06-01T00:05:00Z',
      channels,
    });
    const stored = deliverAll(first);
    const next = planAlerts({
      records: stored,
      findings: assessSnapshot(after, { trigger: 'schedule' }),
      scope: { kind: 'state' },
      now: '2026-06-01T00:10:00Z',
      channels,
    });
    expect(next.outbox.sns.filter((n) => n.finding.ruleId === 'fargate/entry-not-in-iac')).toEqual([]);
  });
});
