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
 * A deadline (`options.deadline`, epoch ms) bounds the capture: the readers' retries stop there
 * (`capture.withDeadline`), and a source not read by then is `error` ("… deadline reached", naming
 * the operation), so the run still evaluates, alerts `monitor/source-unavailable` and stores — a
 * partial result that says why. The caller leaves the time the rest of the run needs after it.
 */

import { hasSettled } from '../core/change.ts';
import { assessSince, clusterUnreadableFinding } from '../core/engine.ts';
import { fingerprintOf } from '../core/fingerprint.ts';
import type { ClusterId, ClusterSnapshot, Finding, Trigger } from '../core/model.ts';
import { safeErrorMessage } from '../errors.ts';
import type {
  CaptureDeps,
  Clock,
  ClusterWorkItem,
  Deliver,
  DeliverySummary,
  SnapshotStore,
  WorkQueue,
} from '../ports.ts';
import { captureSnapshot } from './capture-snapshot.ts';
import { failedNotFound, settle } from './read-sources.ts';

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
}

export type FollowUpOutcome = 'settled' | 'requeued' | 'gave-up';

export interface RunSnapshotResult {
  cluster: string;
  region: string;
  outcome: 'evaluated' | 'unreadable' | 'cluster-gone';
  findings: number;
  /** `monitor/source-unavailable` findings (the monitor is blind there): the alarm's metric. */
  sourceUnavailable: number;
  delivery: DeliverySummary;
  /** `unreadable`: a stored snapshot exists but could not be read or validated (treated as none). */
  previous: 'found' | 'none' | 'unreadable';
  followUp?: FollowUpOutcome;
  error?: string;
}

export const SOURCE_UNAVAILABLE = 'monitor/source-unavailable';

const NO_DELIVERY: DeliverySummary = { sent: 0, failed: 0, pending: 0 };

/** State findings of `current` plus what the transition rules see between `previous` and `current`. */
export function evaluateSnapshot(
  current: ClusterSnapshot,
  previous: ClusterSnapshot | undefined,
  options: { trigger: Trigger; monitorPrincipalArn: string },
): Finding[] {
  return assessSince(current, previous, options);
}

/** The object a store error names (`resource`, e.g. `s3://bucket/key`), when it names one. */
function resourceOf(error: unknown): string | undefined {
  const resource = (error as { resource?: unknown } | undefined)?.resource;
  return typeof resource === 'string' ? resource : undefined;
}

/**
 * The stored snapshot could not be read or validated: the monitor cannot see what changed since
 * the last run (transition rules), though the state findings of the fresh capture stand.
 */
export function storedSnapshotUnreadableFinding(key: ClusterId, error: unknown, trigger: Trigger): Finding {
  const ruleId = SOURCE_UNAVAILABLE;
  const object = resourceOf(error) ?? 'the stored snapshot';
  const message = safeErrorMessage(error);
  return {
    ruleId,
    severity: 'medium',
    cluster: { accountId: key.accountId, region: key.region, name: key.clusterName },
    subject: 'stored-snapshot',
    title: `Cannot read the stored snapshot of ${key.clusterName} (${object}): changes since the last run are not evaluated`,
    detail: `${message}. The run continues as if no snapshot had been stored, and stores the fresh one in its place.`,
    evidence: { source: 'stored-snapshot', object, error: message },
    remediation: {
      summary: `Nothing to do if the next run reads it again. If it keeps failing, check the monitor's s3:GetObject access to ${object}.`,
    },
    trigger,
    fingerprint: fingerprintOf([ruleId, key.accountId, key.region, key.clusterName, 'stored-snapshot', '']),
  };
}

function keyOf(item: ClusterWorkItem): ClusterId {
  return { accountId: item.accountId, region: item.region, clusterName: item.clusterName };
}

export interface RunSnapshotOptions {
  /** The capture's readers stop retrying here (epoch ms); none by default. */
  deadline?: number;
}

export async function runSnapshot(
  deps: RunSnapshotDeps,
  item: ClusterWorkItem,
  options: RunSnapshotOptions = {},
): Promise<RunSnapshotResult> {
  const key = keyOf(item);
  const trigger: Trigger = item.followUp === undefined ? 'schedule' : `event:${item.followUp.eventName}`;
  const base = { cluster: key.clusterName, region: key.region };
  const capture =
    options.deadline === undefined || deps.capture.withDeadline === undefined
      ? deps.capture
      : deps.capture.withDeadline(options.deadline);

  const [captured, stored] = await Promise.all([
    settle(captureSnapshot(capture, key)),
    settle(deps.snapshots.latest(key)),
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
    sourceUnavailable: findings.filter((f) => f.ruleId === SOURCE_UNAVAILABLE && f.severity !== 'low').length,
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
