import { describe, expect, it } from 'vitest';
import { EventProcessingError } from '../../shared/app/errors.ts';
import {
  DEFAULT_INVOCATION_MS,
  type HandleEksEventDeps,
  handleEksEvent,
  IN_PROGRESS_MARGIN_MS,
} from '../../shared/app/handle-eks-event.ts';
import { runSnapshot } from '../../shared/app/run-snapshot.ts';
import { createHarness, KEY, loadRecord, MONITOR } from '../support/app-harness.ts';
import { loadScenario } from '../support/snapshot-builder.ts';

function setup(options: { stored?: boolean } = {}) {
  const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
  const deps: HandleEksEventDeps = {
    eks: h.cluster.deps.eks,
    kube: h.cluster.deps.kube,
    snapshots: h.snapshots,
    idempotency: h.idempotency,
    deliver: h.deliver,
    queue: h.queue,
    clock: h.cluster.clock,
    monitorPrincipalArn: MONITOR,
    followUpDelaySeconds: 60,
    idempotencyTtlSeconds: 86_400,
    kubeRefs: new Map(),
  };
  const store = async () => {
    await runSnapshot(
      {
        capture: h.cluster.deps,
        snapshots: h.snapshots,
        deliver: h.deliver,
        queue: h.queue,
        clock: h.cluster.clock,
        monitorPrincipalArn: MONITOR,
        followUp: { delaySeconds: 60, maxAttempts: 3 },
        idempotency: h.idempotency,
        idempotencyTtlSeconds: 86_400,
      },
      { ...KEY, reason: 'schedule' },
    );
    h.sns.delivered.length = 0;
    h.slack.delivered.length = 0;
    h.cluster.calls.length = 0;
  };
  return { h, deps, ready: options.stored === false ? Promise.resolve() : store() };
}

const criticalOf = (notices: Array<{ kind: string; finding: { ruleId: string; severity: string } }>) =>
  notices
    .filter((n) => n.kind === 'opened' && n.finding.severity === 'critical')
    .map((n) => n.finding.ruleId);

describe('handleEksEvent', () => {
  it('alerts a DeleteNodegroup that orphans the role Karpenter nodes share, and queues a delayed follow-up', async () => {
    const { h, deps, ready } = setup();
    await ready;
    const result = await handleEksEvent(deps, loadRecord('delete-nodegroup'));
    expect(result.outcome).toBe('alerted');
    expect(criticalOf(h.slack.delivered)).toContain('nodegroup/deletion-orphans-role');
    expect(h.queue.sent).toHaveLength(1);
    const followUp = h.queue.sent[0];
    expect(followUp?.delaySeconds).toBe(60);
    expect(followUp?.item.reason).toBe('follow-up');
    expect(followUp?.item.followUp?.change).toMatchObject({
      kind: 'delete-nodegroup',
      nodegroupName: 'general',
    });
    expect(followUp?.item.followUp?.fingerprints.length).toBeGreaterThan(0);
  });

  it('the same CloudTrail record delivered twice alerts once', async () => {
    const { h, deps, ready } = setup();
    await ready;
    const record = loadRecord('delete-nodegroup');
    await handleEksEvent(deps, record);
    const sent = h.slack.delivered.length + h.sns.delivered.length;
    const again = await handleEksEvent(deps, structuredClone(record));
    expect(again.outcome).toBe('duplicate');
    expect(h.slack.delivered.length + h.sns.delivered.length).toBe(sent);
    expect(h.queue.sent).toHaveLength(1);
  });

  it('never calls EC2 or IAM, nor Kubernetes but aws-auth, with a stored snapshot or without one', async () => {
    for (const stored of [true, false]) {
      const { h, deps, ready } = setup({ stored });
      await ready;
      const result = await handleEksEvent(deps, loadRecord('delete-nodegroup'));
      expect(result.outcome).toBe('alerted');
      if (result.outcome === 'alerted')
        expect(result.basis).toBe(stored ? 'stored-snapshot' : 'bootstrap-capture');
      expect(h.cluster.calls.filter((c) => c.startsWith('ec2:') || c.startsWith('iam:'))).toEqual([]);
      expect([...new Set(h.cluster.calls.filter((c) => c.startsWith('kube:')))]).toEqual(['kube:awsAuth']);
    }
  });

  it('reads only DescribeCluster, aws-auth and access entries fresh when a snapshot is stored', async () => {
    const { h, deps, ready } = setup();
    await ready;
    await handleEksEvent(deps, loadRecord('delete-nodegroup'));
    expect([...new Set(h.cluster.calls)].sort()).toEqual([
      'eks:DescribeCluster',
      'eks:ListAccessEntries',
      'kube:awsAuth',
    ]);
  });

  it('still alerts when EKS already removed the role from aws-auth before the fresh read', async () => {
    const { h, deps, ready } = setup();
    await ready;
    const awsAuth = h.cluster.state.awsAuth;
    if (awsAuth.status !== 'ok') throw new Error('aws-auth');
    awsAuth.data.data.mapRoles = (awsAuth.data.data.mapRoles ?? '')
      .split(/\n(?=- )/)
      .filter((e) => !e.includes('prod-node-role'))
      .join('\n');
    await handleEksEvent(deps, loadRecord('delete-nodegroup'));
    expect(criticalOf(h.slack.delivered).length).toBeGreaterThan(0);
    // the 2 nodes of the deleted node group are terminated with it: 3 Karpenter nodes lose access, not 5
    const counts = h.slack.delivered
      .filter((n) => n.finding.severity === 'critical')
      .map((n) => n.finding.blastRadius?.nodeCount);
    expect(counts).toEqual(counts.map(() => 3));
  });

  it('ignores failed calls without claiming anything', async () => {
    const { h, deps, ready } = setup();
    await ready;
    const result = await handleEksEvent(deps, loadRecord('delete-nodegroup-failed-resource-in-use'));
    expect(result.outcome).toBe('ignored');
    expect(h.idempotency.claims.size).toBe(0);
    expect(h.queue.sent).toHaveLength(0);
  });

  it('reports an invalid record without throwing', async () => {
    const { deps, ready } = setup();
    await ready;
    const result = await handleEksEvent(deps, loadRecord('truncated-delete-nodegroup'));
    expect(result.outcome).toBe('invalid');
  });

  it('releases the claim and rethrows on failure, so the redelivery is processed', async () => {
    const { h, deps, ready } = setup();
    await ready;
    h.cluster.failing.add('eks:DescribeCluster');
    const record = loadRecord('delete-nodegroup');
    await expect(handleEksEvent(deps, record)).rejects.toBeInstanceOf(EventProcessingError);
    expect(h.idempotency.claims.size).toBe(0);
    h.cluster.failing.clear();
    const retry = await handleEksEvent(deps, record);
    expect(retry.outcome).toBe('alerted');
    expect(criticalOf(h.slack.delivered)).toContain('nodegroup/deletion-orphans-role');
  });

  it('reuses the remembered API endpoint on a warm start: aws-auth is read alongside DescribeCluster', async () => {
    const { h, deps, ready } = setup();
    await ready;
    await handleEksEvent(deps, loadRecord('delete-nodegroup'));
    h.cluster.calls.length = 0;
    const second = loadRecord('delete-nodegroup');
    (second.detail as { eventID: string }).eventID = 'another-event';
    await handleEksEvent(deps, second);
    expect(h.cluster.calls.filter((c) => c === 'kube:awsAuth')).toHaveLength(1);
    expect(h.cluster.calls.slice(0, 3).sort()).toEqual([
      'eks:DescribeCluster',
      'eks:ListAccessEntries',
      'kube:awsAuth',
    ]);
  });
});

describe('handleEksEvent: the record must be of the monitor account and Regions (issue 8 case 10)', () => {
  it('ignores a record of another account, with the reason, and reads nothing', async () => {
    const { h, deps, ready } = setup();
    await ready;
    const record = loadRecord('delete-nodegroup');
    const detail = record.detail as Record<string, unknown>;
    detail.recipientAccountId = '999988887777';
    const result = await handleEksEvent(deps, record, { accountId: '111122223333' });
    expect(result).toMatchObject({ outcome: 'ignored' });
    expect((result as { reason: string }).reason).toContain('999988887777');
    expect(h.cluster.calls).toEqual([]);
    expect(h.idempotency.claims.size).toBe(0);
    expect(h.slack.delivered.length + h.sns.delivered.length).toBe(0);
  });

  it('ignores a record of a Region the monitor is not configured for', async () => {
    const { h, deps, ready } = setup();
    await ready;
    const result = await handleEksEvent({ ...deps, regions: ['us-east-1'] }, loadRecord('delete-nodegroup'), {
      accountId: '111122223333',
    });
    expect(result).toMatchObject({ outcome: 'ignored' });
    expect((result as { reason: string }).reason).toContain('eu-west-1');
    expect(h.cluster.calls).toEqual([]);
  });

  it('handles the record of its own account and Region', async () => {
    const { deps, ready } = setup();
    await ready;
    const result = await handleEksEvent({ ...deps, regions: ['eu-west-1'] }, loadRecord('delete-nodegroup'), {
      accountId: '111122223333',
    });
    expect(result.outcome).toBe('alerted');
  });
});

describe('handleEksEvent: one deadline for the invocation (issue 8 case 4)', () => {
  it('a fresh read still running at the deadline is given up: the alert goes out from the stored version', async () => {
    const { h, deps, ready } = setup();
    await ready;
    const hung = {
      ...deps,
      kube: { ...deps.kube, awsAuth: () => new Promise<never>(() => undefined) },
      eks: (region: string) => ({
        ...deps.eks(region),
        accessEntries: () => new Promise<never>(() => undefined),
      }),
    };
    const result = await handleEksEvent(hung, loadRecord('delete-nodegroup'), {
      remainingMs: 900,
    });
    expect(result).toMatchObject({ outcome: 'alerted', staleSources: ['awsAuth'] });
    expect(criticalOf(h.slack.delivered)).toContain('nodegroup/deletion-orphans-role');
    expect([...h.idempotency.claims.values()].map((c) => c.status)).toEqual(['COMPLETED']);
  });
});

describe('handleEksEvent: an attempt killed after queueing its follow-up, then retried', () => {
  it('leaves exactly one chain of follow-up re-checks: the second copy of attempt 1 does nothing', async () => {
    const { h, deps, ready } = setup();
    await ready;
    const record = loadRecord('delete-nodegroup');
    const eventId = (record.detail as { eventID: string }).eventID;
    // 1. The first attempt alerts and queues its follow-up, then dies before marking the event
    //    completed (a timeout or an out-of-memory): its claim stays in progress.
    const killed = {
      ...deps,
      idempotency: { ...deps.idempotency, complete: () => new Promise<never>(() => undefined) },
    };
    void handleEksEvent(killed, record);
    while (h.queue.sent.length === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    const claim = h.idempotency.claims.get(`cloudtrail:${eventId}`);
    expect(claim?.status).toBe('IN_PROGRESS');
    // 2. EventBridge retries the asynchronous invocation after the claim's in-progress expiry,
    //    which is on the injected clock: the invocation's budget plus the margin from its now.
    expect(claim?.until).toBe(
      h.cluster.clock.now().getTime() + DEFAULT_INVOCATION_MS + IN_PROGRESS_MARGIN_MS,
    );
    h.cluster.clock.advance(DEFAULT_INVOCATION_MS + IN_PROGRESS_MARGIN_MS + 1);
    const retry = await handleEksEvent(deps, structuredClone(record));
    expect(retry.outcome).toBe('alerted');
    expect(h.queue.sent.map((s) => s.item.followUp?.attempt)).toEqual([1, 1]);

    // 3. The worker drains the queue; EKS's side effect never shows, so the chain runs to its end.
    const worker = {
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
    const processed: number[] = [];
    let duplicates = 0;
    for (let next = 0; next < h.queue.sent.length; next++) {
      const item = h.queue.sent[next]?.item;
      if (item?.followUp === undefined) continue;
      h.cluster.clock.advance(60_000);
      const result = await runSnapshot(worker, item);
      if (result.outcome === 'duplicate') duplicates++;
      else processed.push(item.followUp.attempt);
    }
    expect(processed).toEqual([1, 2, 3]);
    expect(duplicates).toBe(1);
  });
});
