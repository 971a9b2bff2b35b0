import { describe, expect, it } from 'vitest';
import { runSnapshot } from '../../shared/app/run-snapshot.ts';
import type { ClusterWorkItem } from '../../shared/ports.ts';
import { createHarness, KEY, MONITOR } from '../support/app-harness.ts';
import { buildSnapshot, loadScenario, NODE_ROLE } from '../support/snapshot-builder.ts';

const scheduled: ClusterWorkItem = { ...KEY, reason: 'schedule' };

function worker(h: ReturnType<typeof createHarness>) {
  const deps = {
    capture: h.cluster.deps,
    snapshots: h.snapshots,
    deliver: h.deliver,
    queue: h.queue,
    clock: h.cluster.clock,
    monitorPrincipalArn: MONITOR,
    followUp: { delaySeconds: 60, maxAttempts: 3 },
    idempotency: h.idempotency,
    idempotencyTtlSeconds: 86_400,
  };
  return (item: ClusterWorkItem = scheduled) => {
    h.cluster.clock.advance(300_000);
    return runSnapshot(deps, item);
  };
}

/** aws-auth without the node role (what EKS does when the last managed node group goes). */
function dropNodeRole(h: ReturnType<typeof createHarness>) {
  const awsAuth = h.cluster.state.awsAuth;
  if (awsAuth.status !== 'ok') throw new Error('aws-auth not ok');
  awsAuth.data.data.mapRoles = (awsAuth.data.data.mapRoles ?? '')
    .split(/\n(?=- )/)
    .filter((entry) => !entry.includes('prod-node-role'))
    .join('\n');
}

describe('runSnapshot', () => {
  it('stores the snapshot and alerts the open findings once; the same state again sends nothing', async () => {
    const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const run = worker(h);
    const first = await run();
    expect(first.outcome).toBe('evaluated');
    expect(h.snapshots.items.size).toBe(1);
    const sentAfterFirst = h.sns.delivered.length;
    const second = await run();
    expect(second.previous).toBe('found');
    expect(second.delivery.sent).toBe(0);
    expect(h.sns.delivered.length).toBe(sentAfterFirst);
  });

  it('opens nodes/role-unauthorized when the node role leaves aws-auth, and sends one resolved notice when it is back', async () => {
    const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const run = worker(h);
    await run();
    const original = structuredClone(h.cluster.state.awsAuth);
    dropNodeRole(h);
    const broken = await run();
    expect(broken.delivery.sent).toBeGreaterThan(0);
    expect(h.snsNotices()).toContain('opened nodes/role-unauthorized');
    expect(h.slack.delivered.map((n) => n.finding.ruleId)).toContain('nodes/role-unauthorized');
    expect(h.snsNotices()).toContain('opened aws-auth/entry-removed');

    await run(); // still broken: silent
    expect(h.snsNotices().filter((n) => n === 'opened nodes/role-unauthorized')).toHaveLength(1);

    h.cluster.state.awsAuth = original;
    await run();
    await run();
    expect(h.snsNotices().filter((n) => n === 'resolved nodes/role-unauthorized')).toHaveLength(1);
  });

  it('alerts monitor/source-unavailable once for a cluster it cannot read, not on every run, and resolves it once readable', async () => {
    const h = createHarness(buildSnapshot());
    const run = worker(h);
    await run();
    h.cluster.failing.add('eks:DescribeCluster');
    const results = [await run(), await run(), await run()];
    expect(results.map((r) => r.outcome)).toEqual(['unreadable', 'unreadable', 'unreadable']);
    expect(results.every((r) => r.sourceUnavailable === 1)).toBe(true);
    const blind = h.sns.delivered.filter((n) => n.finding.ruleId === 'monitor/source-unavailable');
    expect(blind.map((n) => n.kind)).toEqual(['opened']);
    expect(blind[0]?.finding.subject).toBe('cluster');
    expect(h.snsNotices().filter((n) => n.startsWith('resolved'))).toEqual([]); // blind: nothing resolves
    h.cluster.failing.clear();
    await run();
    expect(h.snsNotices()).toContain('resolved monitor/source-unavailable');
  });

  it('re-enqueues a follow-up with a delay until the change settles, then resolves the change findings', async () => {
    const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const run = worker(h);
    const item: ClusterWorkItem = {
      ...KEY,
      reason: 'follow-up',
      followUp: {
        eventId: 'e-1',
        eventName: 'DeleteNodegroup',
        change: { kind: 'delete-nodegroup', nodegroupName: 'general', nodeRole: NODE_ROLE },
        fingerprints: ['f-1'],
        attempt: 1,
      },
    };
    const first = await run(item);
    expect(first.followUp).toBe('requeued');
    expect(h.queue.sent).toHaveLength(1);
    expect(h.queue.sent[0]?.delaySeconds).toBe(60);
    expect(h.queue.sent[0]?.item.followUp?.attempt).toBe(2);

    h.cluster.state.nodegroups = { status: 'ok', data: [] };
    const next = h.queue.sent[0]?.item;
    if (next === undefined) throw new Error('no follow-up queued');
    const second = await run(next);
    expect(second.followUp).toBe('settled');
    expect(h.queue.sent).toHaveLength(1);
  });

  it('processes each follow-up attempt once: a second copy of it (a retried event queued it again) does nothing', async () => {
    const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const run = worker(h);
    const item: ClusterWorkItem = {
      ...KEY,
      reason: 'follow-up',
      followUp: {
        eventId: 'e-1',
        eventName: 'DeleteNodegroup',
        change: { kind: 'delete-nodegroup', nodegroupName: 'general', nodeRole: NODE_ROLE },
        fingerprints: ['f-1'],
        attempt: 1,
      },
    };
    expect((await run(item)).followUp).toBe('requeued');
    const sent = h.sns.delivered.length;
    const copy = await run(structuredClone(item));
    expect(copy).toMatchObject({ outcome: 'duplicate', followUp: 'duplicate', findings: 0 });
    expect(h.queue.sent.map((s) => s.item.followUp?.attempt)).toEqual([2]);
    expect(h.sns.delivered.length).toBe(sent);
    // The same event on another cluster is another chain.
    const other = { ...item, clusterName: 'staging' };
    expect((await run(other)).outcome).not.toBe('duplicate');
  });

  it('gives a follow-up claim back when its run fails, so the redelivered message is processed', async () => {
    const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const item: ClusterWorkItem = {
      ...KEY,
      reason: 'follow-up',
      followUp: {
        eventId: 'e-2',
        eventName: 'DeleteNodegroup',
        change: { kind: 'delete-nodegroup', nodegroupName: 'general', nodeRole: NODE_ROLE },
        fingerprints: [],
        attempt: 1,
      },
    };
    const failing = {
      capture: h.cluster.deps,
      snapshots: { ...h.snapshots, put: () => Promise.reject(new Error('S3 down')) },
      deliver: h.deliver,
      queue: h.queue,
      clock: h.cluster.clock,
      monitorPrincipalArn: MONITOR,
      followUp: { delaySeconds: 60, maxAttempts: 3 },
      idempotency: h.idempotency,
      idempotencyTtlSeconds: 86_400,
    };
    await expect(runSnapshot(failing, item)).rejects.toThrow('S3 down');
    expect((await worker(h)(item)).outcome).toBe('evaluated');
  });

  it('leaves a follow-up another invocation holds to the queue (it throws), and takes it once that claim expired', async () => {
    const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const item: ClusterWorkItem = {
      ...KEY,
      reason: 'follow-up',
      followUp: {
        eventId: 'e-3',
        eventName: 'DeleteNodegroup',
        change: { kind: 'delete-nodegroup', nodegroupName: 'general', nodeRole: NODE_ROLE },
        fingerprints: [],
        attempt: 1,
      },
    };
    const now = h.cluster.clock.now().getTime();
    // A worker killed mid-item: its claim is in progress until just past its invocation's end.
    await h.idempotency.claim(`followup:e-3:${KEY.accountId}/${KEY.region}/${KEY.clusterName}:1`, {
      inProgressUntil: now + 600_000,
      ttlSeconds: 86_400,
    });
    const run = worker(h);
    await expect(run(item)).rejects.toThrow('is being processed by another invocation');
    h.cluster.clock.advance(600_000);
    expect((await run(item)).outcome).toBe('evaluated');
  });

  it('gives up after the last attempt (and stops re-enqueueing)', async () => {
    const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const run = worker(h);
    const result = await run({
      ...KEY,
      reason: 'follow-up',
      followUp: {
        eventId: 'e-1',
        eventName: 'DeleteNodegroup',
        change: { kind: 'delete-nodegroup', nodegroupName: 'general' },
        fingerprints: [],
        attempt: 3,
      },
    });
    expect(result.followUp).toBe('gave-up');
    expect(h.queue.sent).toHaveLength(0);
  });
});
