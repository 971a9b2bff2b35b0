/**
 * Use case of the snapshot worker (docs/design.md#scheduled-snapshot): capture one cluster, compare with the last stored
 * snapshot, evaluate, hand the findings to the alert lifecycle, store.
 *
 *   capture ‖ load previous → assessSnapshot + transition findings of diffSnapshots(previous, current)
 *   → deliver (scope `state`) → [follow-up: settled? deliver (scope `settled`) : re-enqueue] → store
 *
 * A cluster that cannot be captured at all (DescribeCluster fails) yields one synthetic
 * `monitor/source-unavailable` finding for subject `cluster`: its fingerprint is stable, so the
 * lifecycle notifies once and stays silent while the failure lasts, and resolves it once the
 * cluster can be read again. Blindness also keeps every other open finding of the cluster open
 * (the lifecycle never resolves while a cluster is blind).
 *
 * The snapshot is stored after delivery: when delivery throws, the next run diffs against the
 * same previous snapshot again, so a transition finding is never lost.
 *
 * A stored snapshot that cannot be read or validated (an older format, a damaged object, a read
 * that fails) is treated as "no previous snapshot": the run evaluates the fresh capture, reports
 * `monitor/source-unavailable` for subject `stored-snapshot` naming the object, and stores the
 * fresh snapshot over it — one run without transition findings instead of a cluster that throws
 * on every run until someone deletes the object.
 *
 * A follow-up is processed once per event, cluster and attempt, although the queue is
 * at-least-once and an event attempt killed after queueing its follow-up is retried and queues it
 * again (standard SQS has no deduplication): each follow-up item claims
 * `followup:<eventID>:<account>/<region>/<cluster>:<attempt>` in the state table, with the event
 * path's two states — `IN_PROGRESS` until just past this invocation's end (`options.claimUntil`),
 * then `COMPLETED` for `idempotencyTtlSeconds`. A copy that finds it completed is a `duplicate`
 * and does nothing (no capture, no notice, no next attempt), so one chain of re-checks goes on;
 * one that finds it in progress throws (the message returns to the queue and comes back after
 * the visibility timeout); a failure releases the claim. The claim is on the consumer's side
 * because no order of "queue, then mark queued" on the producer's side survives a kill between
 * the two.
 *
 * A deadline (`options.deadline`, epoch ms) bounds the capture: the readers' retries stop there
 * (`capture.withDeadline`), and a source not read by then is `error` ("… deadline reached", naming
 * the operation), so the run still evaluates, alerts `monitor/source-unavailable` and stores — a
 * partial result that says why. The caller leaves the time the rest of the run needs after it.
 */

import {
  type ClusterId,
  type ClusterSnapshot,
  clusterIdKey,
  type Finding,
  type Trigger,
} from '../core/model.ts';
import { assessSince, hasSettled } from '../core/predict/index.ts';
import {
  blindsTheMonitor,
  clusterUnreadableFinding,
  storedSnapshotUnreadableFinding,
} from '../core/rules/index.ts';
import { safeErrorMessage } from '../errors.ts';
import type {
  CaptureDeps,
  Clock,
  ClusterWorkItem,
  Deliver,
  DeliverySummary,
  IdempotencyStore,
  SnapshotStore,
  WorkQueue,
} from '../ports.ts';
import { captureSnapshot } from './capture-snapshot.ts';
import { FollowUpInProgressError } from './errors.ts';
import { awaitRead, failedNotFound } from './read-sources.ts';

export interface FollowUpSettings {
  delaySeconds: number;
  maxAttempts: number;
}

export interface RunSnapshotDeps {
  /** `withDeadline` (the live readers): the same readers with every retry stopping at `deadline`. */
  capture: CaptureDeps & { withDeadline?(deadline: number | undefined): CaptureDeps };
  snapshots: SnapshotStore;
  deliver: Deliver;
  queue: WorkQueue;
  clock: Clock;
  monitorPrincipalArn: string;
  followUp: FollowUpSettings;
  /** The follow-up claims (one per event, cluster and attempt). */
  idempotency: IdempotencyStore;
  idempotencyTtlSeconds: number;
}

/** `duplicate`: another copy of the same follow-up attempt was processed; this one did nothing. */
export type FollowUpOutcome = 'settled' | 'requeued' | 'gave-up' | 'duplicate';

export interface RunSnapshotResult {
  cluster: string;
  region: string;
  outcome: 'evaluated' | 'unreadable' | 'cluster-gone' | 'duplicate';
  findings: number;
  /** `monitor/source-unavailable` findings (the monitor is blind there): the alarm's metric. */
  sourceUnavailable: number;
  delivery: DeliverySummary;
  /**
   * `unreadable`: a stored snapshot exists but could not be read or validated (treated as none).
   * Absent for a `duplicate`, which reads nothing.
   */
  previous?: 'found' | 'none' | 'unreadable';
  followUp?: FollowUpOutcome;
  error?: string;
}

const NO_DELIVERY: DeliverySummary = { sent: 0, failed: 0, pending: 0 };

/** State findings of `current` plus what the transition rules see between `previous` and `current`. */
export function evaluateSnapshot(
  current: ClusterSnapshot,
  previous: ClusterSnapshot | undefined,
  options: { trigger: Trigger; monitorPrincipalArn: string },
): Finding[] {
  return assessSince(current, previous, options);
}

function keyOf(item: ClusterWorkItem): ClusterId {
  return { accountId: item.accountId, region: item.region, clusterName: item.clusterName };
}

export interface RunSnapshotOptions {
  /** The capture's readers stop retrying here (epoch ms); none by default. */
  deadline?: number;
  /**
   * A follow-up's claim is in progress until then (epoch ms): just past the invocation's end, so
   * a worker killed mid-item leaves a claim the redelivery can take again. Default: the clock's
   * now plus `DEFAULT_CLAIM_MS`.
   */
  claimUntil?: number;
}

/** An in-progress claim outlives the invocation's end by this much (clock skew, the runtime's own shutdown). */
export const IN_PROGRESS_MARGIN_MS = 5_000;
/** The in-progress claim without a deadline: the worker's 300 s timeout and the margin. */
export const DEFAULT_CLAIM_MS = 300_000 + IN_PROGRESS_MARGIN_MS;
export const FOLLOW_UP_CLAIM_PREFIX = 'followup:';

/** The claim of one follow-up attempt of one event on one cluster. */
export function followUpClaimKey(
  item: ClusterWorkItem & { followUp: NonNullable<ClusterWorkItem['followUp']> },
) {
  return `${FOLLOW_UP_CLAIM_PREFIX}${item.followUp.eventId}:${clusterIdKey(keyOf(item))}:${item.followUp.attempt}`;
}

export async function runSnapshot(
  deps: RunSnapshotDeps,
  item: ClusterWorkItem,
  options: RunSnapshotOptions = {},
): Promise<RunSnapshotResult> {
  if (item.followUp === undefined) return evaluate(deps, item, options);
  const key = followUpClaimKey({ ...item, followUp: item.followUp });
  const claimed = await deps.idempotency.claim(key, {
    inProgressUntil: options.claimUntil ?? deps.clock.now().getTime() + DEFAULT_CLAIM_MS,
    ttlSeconds: deps.idempotencyTtlSeconds,
  });
  if (claimed === 'completed') {
    return {
      cluster: item.clusterName,
      region: item.region,
      outcome: 'duplicate',
      findings: 0,
      sourceUnavailable: 0,
      delivery: NO_DELIVERY,
      followUp: 'duplicate',
    };
  }
  if (claimed === 'in-progress') {
    throw new FollowUpInProgressError(
      `follow-up ${item.followUp.attempt} of ${item.followUp.eventName} ${item.followUp.eventId} on ${item.region}/${item.clusterName} is being processed by another invocation`,
    );
  }
  try {
    const result = await evaluate(deps, item, options);
    await deps.idempotency.complete(key, deps.idempotencyTtlSeconds);
    return result;
  } catch (error) {
    await deps.idempotency.release(key).catch(() => undefined);
    throw error;
  }
}

async function evaluate(
  deps: RunSnapshotDeps,
  item: ClusterWorkItem,
  options: RunSnapshotOptions,
): Promise<RunSnapshotResult> {
  const key = keyOf(item);
  const trigger: Trigger = item.followUp === undefined ? 'schedule' : `event:${item.followUp.eventName}`;
  const base = { cluster: key.clusterName, region: key.region };
  const capture =
    options.deadline === undefined || deps.capture.withDeadline === undefined
      ? deps.capture
      : deps.capture.withDeadline(options.deadline);

  const [captured, stored] = await Promise.all([
    awaitRead(captureSnapshot(capture, key)),
    awaitRead(deps.snapshots.latest(key)),
  ]);
  const previous = stored.ok ? stored.value : undefined;
  const previousState: RunSnapshotResult['previous'] = !stored.ok
    ? 'unreadable'
    : previous
      ? 'found'
      : 'none';
  const storeFindings = stored.ok ? [] : [storedSnapshotUnreadableFinding(key, stored.error, trigger)];

  if (!captured.ok) {
    const error = safeErrorMessage(captured.error);
    if (failedNotFound(captured)) {
      // The cluster is gone: nothing to watch, nothing to follow up.
      return {
        ...base,
        outcome: 'cluster-gone',
        findings: 0,
        sourceUnavailable: 0,
        delivery: NO_DELIVERY,
        previous: previousState,
        error,
      };
    }
    const unreadable = [clusterUnreadableFinding(key, error, trigger), ...storeFindings];
    const delivery = await deps.deliver(key, unreadable, { kind: 'state' });
    const result: RunSnapshotResult = {
      ...base,
      outcome: 'unreadable',
      findings: unreadable.length,
      sourceUnavailable: unreadable.length,
      delivery,
      previous: previousState,
      error,
    };
    if (item.followUp !== undefined) result.followUp = await continueFollowUp(deps, item, false);
    return result;
  }

  const current = captured.value;
  const findings = [
    ...evaluateSnapshot(current, previous, { trigger, monitorPrincipalArn: deps.monitorPrincipalArn }),
    ...storeFindings,
  ];
  const delivery = await deps.deliver(key, findings, { kind: 'state' });
  const result: RunSnapshotResult = {
    ...base,
    outcome: 'evaluated',
    findings: findings.length,
    sourceUnavailable: findings.filter(blindsTheMonitor).length,
    delivery,
    previous: previousState,
  };
  if (item.followUp !== undefined) {
    const settled = hasSettled(item.followUp.change, current);
    result.followUp = await continueFollowUp(deps, item, settled);
  }
  await deps.snapshots.put(current);
  return result;
}

/** Settled (or out of attempts): resolve the event's change findings. Else: check again later. */
async function continueFollowUp(
  deps: RunSnapshotDeps,
  item: ClusterWorkItem,
  settled: boolean,
): Promise<FollowUpOutcome> {
  const followUp = item.followUp;
  if (followUp === undefined) throw new Error('continueFollowUp without a follow-up');
  if (!settled && followUp.attempt < deps.followUp.maxAttempts) {
    await deps.queue.enqueue(
      [{ ...item, followUp: { ...followUp, attempt: followUp.attempt + 1 } }],
      deps.followUp.delaySeconds,
    );
    return 'requeued';
  }
  // Out of attempts: close the change findings anyway, or the same change later on would never
  // alert again — but silently: a change that never settled is not shown to be harmless.
  await deps.deliver(keyOf(item), [], {
    kind: 'settled',
    fingerprints: followUp.fingerprints,
    ...(settled ? {} : { unsettled: true }),
  });
  return settled ? 'settled' : 'gave-up';
}
