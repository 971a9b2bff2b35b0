/**
 * The IAM half of `onEksEvent`: a CloudTrail record of an IAM call (DeleteRole,
 * UpdateAssumeRolePolicy, DetachRolePolicy, DeleteRolePolicy, DeleteOpenIDConnectProvider) names
 * no cluster, only the account, and arrives in us-east-1 whatever Region the clusters run in. So
 * it fans out: every cluster of the monitored Regions with a stored snapshot is simulated with the
 * change; a cluster whose findings are not empty is alerted and gets a follow-up re-check. A
 * cluster never snapshotted is skipped (the schedule captures it; its stored snapshot is what says
 * whether it uses the role). Only stored snapshots are read: IAM applies at once, and the
 * follow-up's full capture confirms what changed.
 */
import type { EksEventParse } from '../core/events/index.ts';
import { type ClusterId, type Trigger, withActor } from '../core/model.ts';
import { whatIf } from '../core/predict/index.ts';
import { SOURCE_UNAVAILABLE } from '../core/rules/index.ts';
import { safeErrorMessage } from '../errors.ts';
import type {
  CaptureDeps,
  ClusterWorkItem,
  Deliver,
  IdempotencyStore,
  SnapshotStore,
  WorkQueue,
} from '../ports.ts';
import { EventInProgressError, EventProcessingError } from './errors.ts';
import { listClusters } from './list-clusters.ts';
import { awaitRead } from './read-sources.ts';

type AccountChange = Extract<EksEventParse, { kind: 'account-change' }>;

export interface FannedOutCluster {
  cluster: string;
  region: string;
  findings: number;
  ruleIds: string[];
}

/** What the fan-out uses of the event handler's deps (HandleEksEventDeps has them all). */
export interface AccountChangeDeps extends Pick<CaptureDeps, 'eks'> {
  snapshots: SnapshotStore;
  idempotency: IdempotencyStore;
  deliver: Deliver;
  queue: WorkQueue;
  monitorPrincipalArn: string;
  followUpDelaySeconds: number;
  idempotencyTtlSeconds: number;
  /** The Regions to look for the changed principal's clusters in. */
  regions?: readonly string[];
}

/** The fan-out's outcomes: those of HandleEksEventResult an account-wide change can have. */
export type AccountChangeResult =
  | { outcome: 'ignored'; reason: string; eventId: string; eventName: string }
  | { outcome: 'duplicate'; eventId: string; eventName: string; cluster: string; region: string }
  | {
      outcome: 'fanned-out';
      eventId: string;
      eventName: string;
      clusters: FannedOutCluster[];
      skipped: string[];
    };

export async function handleAccountChange(
  deps: AccountChangeDeps,
  parsed: AccountChange,
  options: { accountId?: string },
  idempotencyKey: string,
  claimOptions: { inProgressUntil: number },
): Promise<AccountChangeResult> {
  const { eventId, eventName, accountId, change } = parsed;
  if (options.accountId !== undefined && accountId !== options.accountId) {
    return {
      outcome: 'ignored',
      reason: `recipientAccountId ${accountId} is not the monitor's account ${options.accountId}`,
      eventId,
      eventName,
    };
  }
  if (deps.regions === undefined || deps.regions.length === 0) {
    return {
      outcome: 'ignored',
      reason: `${eventName} names no cluster and no monitored Regions are configured to look for its users in`,
      eventId,
      eventName,
    };
  }
  const claimed = await deps.idempotency.claim(idempotencyKey, {
    ...claimOptions,
    ttlSeconds: deps.idempotencyTtlSeconds,
  });
  if (claimed === 'completed') return { outcome: 'duplicate', eventId, eventName, cluster: '*', region: '*' };
  if (claimed === 'in-progress') {
    throw new EventInProgressError(`${eventName} ${eventId} is being processed by another invocation`);
  }
  try {
    const listing = await listClusters(deps, deps.regions);
    const trigger: Trigger = `event:${eventName}`;
    const evaluateOptions = { trigger, monitorPrincipalArn: deps.monitorPrincipalArn };
    const clusters: FannedOutCluster[] = [];
    const skipped: string[] = listing.errors.map((e) => `${e.region}: ListClusters failed (${e.error})`);
    const followUps: ClusterWorkItem[] = [];
    for (const target of listing.clusters) {
      const key: ClusterId = { accountId, region: target.region, clusterName: target.clusterName };
      const stored = await awaitRead(deps.snapshots.latest(key));
      if (!stored.ok || stored.value === undefined) {
        skipped.push(`${target.region}/${target.clusterName}: no stored snapshot`);
        continue;
      }
      const findings = withActor(
        whatIf(stored.value, change, evaluateOptions).findings.filter((f) => f.ruleId !== SOURCE_UNAVAILABLE),
        parsed.by,
      );
      if (findings.length === 0) continue;
      await deps.deliver(key, findings, { kind: 'change' });
      clusters.push({
        cluster: target.clusterName,
        region: target.region,
        findings: findings.length,
        ruleIds: [...new Set(findings.map((f) => f.ruleId))],
      });
      followUps.push({
        ...key,
        reason: 'follow-up',
        followUp: {
          eventId,
          eventName,
          change,
          fingerprints: findings.map((f) => f.fingerprint),
          attempt: 1,
        },
      });
    }
    if (followUps.length > 0) await deps.queue.enqueue(followUps, deps.followUpDelaySeconds);
    await deps.idempotency.complete(idempotencyKey, deps.idempotencyTtlSeconds);
    return { outcome: 'fanned-out', eventId, eventName, clusters, skipped };
  } catch (error) {
    await deps.idempotency.release(idempotencyKey).catch(() => undefined);
    throw new EventProcessingError(
      `${eventName} ${eventId} in account ${accountId}: ${safeErrorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
}
