/**
 * Two copies of one follow-up attempt (an event attempt killed after queueing it, then retried)
 * reach two worker invocations at the same time; the claims are the real DynamoDB adapter's
 * conditional writes (dynalite). One copy runs; the other is left to the queue and, redelivered,
 * does nothing: one chain of re-checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbIdempotencyStore } from '../../shared/adapters/dynamodb-idempotency.ts';
import { FollowUpInProgressError } from '../../shared/app/errors.ts';
import { type RunSnapshotDeps, runSnapshot } from '../../shared/app/run-snapshot.ts';
import type { ClusterWorkItem } from '../../shared/ports.ts';
import { createHarness, KEY, MONITOR } from '../support/app-harness.ts';
import { createStateTable, startDynalite } from '../support/dynamodb-helpers.ts';
import { loadScenario, NODE_ROLE } from '../support/snapshot-builder.ts';

const TABLE = 'sentinel-follow-ups';
let db: Awaited<ReturnType<typeof startDynalite>>;

beforeAll(async () => {
  db = await startDynalite();
  await createStateTable(db.dynamodb, TABLE);
});
afterAll(async () => {
  await db?.close();
});

describe('a follow-up attempt queued twice (dynalite claims)', () => {
  it('runs once when both copies arrive at once; the other copy, redelivered, is a duplicate', async () => {
    const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const deps: RunSnapshotDeps = {
      capture: h.cluster.deps,
      snapshots: h.snapshots,
      deliver: h.deliver,
      queue: h.queue,
      clock: h.cluster.clock,
      monitorPrincipalArn: MONITOR,
      followUp: { delaySeconds: 60, maxAttempts: 3 },
      // The adapter checks expiries against the system clock, as in Lambda.
      idempotency: createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: TABLE }),
      idempotencyTtlSeconds: 86_400,
    };
    const item: ClusterWorkItem = {
      ...KEY,
      reason: 'follow-up',
      followUp: {
        eventId: 'b3f2c6a0-6f1e-4d3a-9a51-0c1d2e3f4a5b',
        eventName: 'DeleteNodegroup',
        change: { kind: 'delete-nodegroup', nodegroupName: 'general', nodeRole: NODE_ROLE },
        fingerprints: [],
        attempt: 1,
      },
    };
    const claimUntil = Date.now() + 60_000;
    const both = await Promise.allSettled([
      runSnapshot(deps, structuredClone(item), { claimUntil }),
      runSnapshot(deps, structuredClone(item), { claimUntil }),
    ]);
    const ran = both.filter((r) => r.status === 'fulfilled' && r.value.outcome !== 'duplicate');
    expect(ran).toHaveLength(1);
    // The loser found the claim in progress (left to the queue) or, if the winner was done, completed.
    for (const r of both) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(FollowUpInProgressError);
      else if (r.value.outcome === 'duplicate') expect(r.value.followUp).toBe('duplicate');
    }
    expect(h.queue.sent.map((s) => s.item.followUp?.attempt)).toEqual([2]);
    const again = await runSnapshot(deps, structuredClone(item), { claimUntil });
    expect(again.outcome).toBe('duplicate');
    expect(h.queue.sent).toHaveLength(1);
  });
});
