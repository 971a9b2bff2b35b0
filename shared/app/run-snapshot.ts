/**
 * Use case of the snapshot worker (DESIGN §2): capture one cluster, compare with the last stored
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
 */
import type { EvaluationScope } from '../core/alerts.ts';
import type { Change } from '../core/change.ts';
import { assessSince, clusterUnreadableFinding as unreadableFinding } from '../core/engine.ts';
import type { ClusterSnapshot, Finding, Trigger } from '../core/model.ts';
import { principalKey } from '../core/principal.ts';
import { CollectionError, safeErrorMessage } from '../errors.ts';
import type { CaptureDeps, Clock, ClusterKey, ClusterWorkItem, SnapshotStore, WorkQueue } from '../ports.ts';
import { captureSnapshot } from './capture-snapshot.ts';

/** What a delivery did (counts of notices). */
export interface DeliverySummary {
  sent: number;
  failed: number;
  pending: number;
}

/**
 * Hands findings to the alert lifecycle of one cluster and sends what it plans (wired to
 * `deliverAlerts` with the configured channels). Throws after saving when a notice keeps failing.
 */
export type Deliver = (
  key: ClusterKey,
  findings: readonly Finding[],
  scope: EvaluationScope,
) => Promise<DeliverySummary>;

export interface FollowUpSettings {
  delaySeconds: number;
  maxAttempts: number;
}

export interface RunSnapshotDeps {
  capture: CaptureDeps;
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
  previous: 'found' | 'none';
  followUp?: FollowUpOutcome;
  error?: string;
}

export const SOURCE_UNAVAILABLE = 'monitor/source-unavailable';

const NO_DELIVERY: DeliverySummary = { sent: 0, failed: 0, pending: 0 };

/** The finding for a cluster that could not be read at all (the engine's, keyed by ClusterKey). */
export function clusterUnreadableFinding(key: ClusterKey, error: string, trigger: Trigger): Finding {
  return unreadableFinding(
    { accountId: key.accountId, region: key.region, name: key.clusterName },
    error,
    trigger,
  );
}

/** State findings of `current` plus what the transition rules see between `previous` and `current`. */
export function evaluateSnapshot(
  current: ClusterSnapshot,
  previous: ClusterSnapshot | undefined,
  options: { trigger: Trigger; monitorPrincipalArn: string },
): Finding[] {
  return assessSince(current, previous, options);
}

const FAILED = /_FAILED$/;

/**
 * Has the change of a CloudTrail event settled in `s`? Node group gone (or its deletion
 * failed); node group / Fargate profile ACTIVE (or failed, or gone); access entry change visible;
 * cluster ACTIVE in the new mode. A source that could not be read is never "settled".
 */
export function hasSettled(change: Change, s: ClusterSnapshot): boolean {
  const nodegroup = (name: string) =>
    s.nodegroups.status === 'ok'
      ? { known: true, ng: s.nodegroups.data.find((n) => n.name === name) }
      : { known: false };
  const profile = (name: string) =>
    s.fargateProfiles.status === 'ok'
      ? { known: true, fp: s.fargateProfiles.data.find((p) => p.name === name) }
      : { known: false };
  const entry = (arn: string) => {
    if (s.accessEntries.status === 'absent') return { known: true, entry: undefined };
    if (s.accessEntries.status !== 'ok') return { known: false, entry: undefined };
    const key = principalKey(arn);
    return { known: true, entry: s.accessEntries.data.find((e) => principalKey(e.principalArn) === key) };
  };
  switch (change.kind) {
    case 'delete-nodegroup': {
      const r = nodegroup(change.nodegroupName);
      return r.known && (r.ng === undefined || FAILED.test(r.ng.status));
    }
    case 'create-nodegroup': {
      const r = nodegroup(change.nodegroupName);
      return r.known && (r.ng === undefined || r.ng.status === 'ACTIVE' || FAILED.test(r.ng.status));
    }
    case 'create-fargate-profile': {
      const r = profile(change.fargateProfileName);
      return r.known && (r.fp === undefined || r.fp.status === 'ACTIVE' || FAILED.test(r.fp.status));
    }
    case 'delete-fargate-profile': {
      const r = profile(change.fargateProfileName);
      return r.known && (r.fp === undefined || FAILED.test(r.fp.status));
    }
    case 'create-access-entry': {
      const r = entry(change.entry.principalArn);
      return r.known && (r.entry !== undefined || s.accessEntries.status === 'absent');
    }
    case 'delete-access-entry': {
      const r = entry(change.principalArn);
      return r.known && r.entry === undefined;
    }
    case 'update-access-entry': {
      const r = entry(change.principalArn);
      if (!r.known) return false;
      if (r.entry === undefined) return true;
      const sameGroups =
        change.kubernetesGroups === undefined ||
        [...change.kubernetesGroups].sort().join('\n') === [...r.entry.kubernetesGroups].sort().join('\n');
      const sameUser = change.username === undefined || change.username === r.entry.username;
      return sameGroups && sameUser;
    }
    case 'associate-access-policy': {
      const r = entry(change.principalArn);
      return (
        r.known &&
        (r.entry === undefined || r.entry.accessPolicies.some((p) => p.policyArn === change.policy.policyArn))
      );
    }
    case 'disassociate-access-policy': {
      const r = entry(change.principalArn);
      return (
        r.known &&
        (r.entry === undefined || !r.entry.accessPolicies.some((p) => p.policyArn === change.policyArn))
      );
    }
    case 'set-auth-mode':
      return s.cluster.authenticationMode === change.mode && s.cluster.status === 'ACTIVE';
  }
}

function keyOf(item: ClusterWorkItem): ClusterKey {
  return { accountId: item.accountId, region: item.region, clusterName: item.clusterName };
}

export async function runSnapshot(deps: RunSnapshotDeps, item: ClusterWorkItem): Promise<RunSnapshotResult> {
  const key = keyOf(item);
  const trigger: Trigger = item.followUp === undefined ? 'schedule' : `event:${item.followUp.eventName}`;
  const base = { cluster: key.clusterName, region: key.region };

  const [captured, previous] = await Promise.all([
    captureSnapshot(deps.capture, {
      region: key.region,
      clusterName: key.clusterName,
      accountId: key.accountId,
    }).then(
      (snapshot) => ({ ok: true as const, snapshot }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
    deps.snapshots.latest(key),
  ]);

  if (!captured.ok) {
    const error = safeErrorMessage(captured.error);
    if (captured.error instanceof CollectionError && captured.error.code === 'not-found') {
      // The cluster is gone: nothing to watch, nothing to follow up.
      return {
        ...base,
        outcome: 'cluster-gone',
        findings: 0,
        sourceUnavailable: 0,
        delivery: NO_DELIVERY,
        previous: previous ? 'found' : 'none',
        error,
      };
    }
    const finding = clusterUnreadableFinding(key, error, trigger);
    const delivery = await deps.deliver(key, [finding], { kind: 'state' });
    const result: RunSnapshotResult = {
      ...base,
      outcome: 'unreadable',
      findings: 1,
      sourceUnavailable: 1,
      delivery,
      previous: previous ? 'found' : 'none',
      error,
    };
    if (item.followUp !== undefined) result.followUp = await continueFollowUp(deps, item, false);
    return result;
  }

  const current = captured.snapshot;
  const findings = evaluateSnapshot(current, previous, {
    trigger,
    monitorPrincipalArn: deps.monitorPrincipalArn,
  });
  const delivery = await deps.deliver(key, findings, { kind: 'state' });
  const result: RunSnapshotResult = {
    ...base,
    outcome: 'evaluated',
    findings: findings.length,
    sourceUnavailable: findings.filter((f) => f.ruleId === SOURCE_UNAVAILABLE && f.severity !== 'low').length,
    delivery,
    previous: previous ? 'found' : 'none',
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
  // Out of attempts: resolve anyway, or the same change later on would never alert again.
  await deps.deliver(keyOf(item), [], { kind: 'settled', fingerprints: followUp.fingerprints });
  return settled ? 'settled' : 'gave-up';
}
