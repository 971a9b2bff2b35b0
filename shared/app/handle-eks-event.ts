/**
 * Use case of `onEksEvent` (docs/design.md#oneksevent-prediction-and-follow-ups, docs/design.md#cloudtrail-events-handled): a CloudTrail record of an EKS write call arrives
 * seconds after the call, usually before EKS's own side effect on aws-auth. Predict the outcome
 * from the last stored snapshot plus a fresh read of the volatile sources, alert at once, and
 * queue follow-up re-checks that confirm what really happened.
 *
 * Round trips on a warm start (the cluster's API endpoint and CA are remembered per cluster):
 *   1. claim eventID ‖ last snapshot ‖ DescribeCluster ‖ aws-auth ‖ ListAccessEntries
 *   2. DescribeAccessEntry ‖ ListAssociatedAccessPolicies (per entry)
 *   3–4. the lifecycle: load alert state, send (then save ‖ enqueue the follow-up)
 * EC2 and IAM are never called on this path (the bundle does not even contain their clients):
 * compute and roles come from the stored snapshot. A cluster never snapshotted is captured
 * without them (compute and IAM roles unreadable; the worker's follow-up captures it fully).
 *
 * The same eventID is processed once: a redelivery finds the claim and returns `duplicate`.
 * On failure the claim is released and the error rethrown, so EventBridge's retry (and then
 * the DLQ) gets a fresh attempt; the alert lifecycle keeps a retry from alerting twice.
 */
import { parseEksEvent } from '../core/cloudtrail.ts';
import { dedupeFindings, diffSnapshots, whatIf } from '../core/engine.ts';
import { type ClusterId, type ClusterSnapshot, clusterIdKey, type Trigger } from '../core/model.ts';
import { CollectionError, SentinelError, safeErrorMessage } from '../errors.ts';
import type {
  CaptureDeps,
  Clock,
  ClusterWorkItem,
  Deliver,
  DeliverySummary,
  EksReader,
  IdempotencyStore,
  KubeClusterRef,
  KubeReader,
  SnapshotStore,
  WorkQueue,
} from '../ports.ts';
import { captureSnapshot } from './capture-snapshot.ts';
import { kubeClusterRef, refreshVolatile, settle } from './read-sources.ts';
import { SOURCE_UNAVAILABLE } from './run-snapshot.ts';

export interface HandleEksEventDeps {
  /** EKS readers per Region (DescribeCluster, access entries; the rest only to bootstrap). */
  eks(region: string): EksReader;
  kube: KubeReader;
  snapshots: SnapshotStore;
  idempotency: IdempotencyStore;
  deliver: Deliver;
  queue: WorkQueue;
  clock: Clock;
  monitorPrincipalArn: string;
  followUpDelaySeconds: number;
  idempotencyTtlSeconds: number;
  /** API endpoint and CA per cluster (`clusterIdKey`), kept across warm invocations (saves a round trip). */
  kubeRefs?: Map<string, KubeClusterRef>;
}

export type HandleEksEventResult =
  | { outcome: 'ignored' | 'invalid'; reason: string; eventId?: string; eventName?: string }
  | { outcome: 'duplicate'; eventId: string; eventName: string; cluster: string; region: string }
  | {
      outcome: 'alerted';
      eventId: string;
      eventName: string;
      cluster: string;
      region: string;
      findings: number;
      ruleIds: string[];
      delivery: DeliverySummary;
      /** Where compute and roles came from: the stored snapshot, or a capture without EC2/IAM. */
      basis: 'stored-snapshot' | 'bootstrap-capture';
      /** Fresh reads that failed: the stored version was used instead. */
      staleSources: string[];
      followUpQueued: boolean;
    };

/** Thrown when processing an event failed; the claim was released. */
export class EventProcessingError extends SentinelError {
  override readonly name = 'EventProcessingError';
  readonly code = 'event-failed';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

export const IDEMPOTENCY_PREFIX = 'cloudtrail:';

function sameRef(a: KubeClusterRef, b: KubeClusterRef): boolean {
  return a.endpoint === b.endpoint && a.certificateAuthorityData === b.certificateAuthorityData;
}

/** EC2 and IAM are not read on the event path: a bootstrap capture gets these "could not look" readers. */
function blindReaders(deps: HandleEksEventDeps): CaptureDeps {
  const notHere = (service: 'ec2' | 'iam', operation: string) =>
    new CollectionError(`${operation} is not called on the event path (the worker's follow-up reads it)`, {
      code: 'unavailable',
      service,
      operation,
    });
  return {
    eks: (region) => deps.eks(region),
    kube: deps.kube,
    clock: deps.clock,
    ec2: (region) => ({
      region,
      instancesOfCluster: () => Promise.reject(notHere('ec2', 'DescribeInstances')),
    }),
    iam: {
      roleOfInstanceProfile: () => Promise.reject(notHere('iam', 'GetInstanceProfile')),
      getRole: () => Promise.reject(notHere('iam', 'GetRole')),
    },
  };
}

export async function handleEksEvent(
  deps: HandleEksEventDeps,
  event: unknown,
): Promise<HandleEksEventResult> {
  const parsed = parseEksEvent(event);
  if (parsed.kind === 'ignored') {
    return {
      outcome: 'ignored',
      reason: parsed.reason,
      ...(parsed.eventId === undefined ? {} : { eventId: parsed.eventId }),
      ...(parsed.eventName === undefined ? {} : { eventName: parsed.eventName }),
    };
  }
  if (parsed.kind === 'invalid') return { outcome: 'invalid', reason: parsed.reason };

  const { eventId, eventName, clusterName, region, accountId, change } = parsed;
  const key: ClusterId = { accountId, region, clusterName };
  const eks = deps.eks(region);
  const refKey = clusterIdKey(key);
  const cachedRef = deps.kubeRefs?.get(refKey);

  // Round 1: everything independent at once. The claim decides whether the reads are used.
  const [claimed, previous, described, awsAuthCached, entries] = await Promise.all([
    settle(deps.idempotency.claim(`${IDEMPOTENCY_PREFIX}${eventId}`, deps.idempotencyTtlSeconds)),
    settle(deps.snapshots.latest(key)),
    settle(eks.describeCluster(clusterName)),
    cachedRef === undefined ? Promise.resolve(undefined) : settle(deps.kube.awsAuth(cachedRef)),
    settle(eks.accessEntries(clusterName)),
  ]);
  if (!claimed.ok) throw claimed.error;
  if (!claimed.value) return { outcome: 'duplicate', eventId, eventName, cluster: clusterName, region };

  try {
    if (!described.ok) throw described.error;
    const cluster = described.value;
    const ref = kubeClusterRef(cluster, key);
    deps.kubeRefs?.set(refKey, ref);

    const trigger: Trigger = `event:${eventName}`;
    let basis: 'stored-snapshot' | 'bootstrap-capture';
    let before: ClusterSnapshot;
    let staleSources: string[] = [];
    // A stored snapshot that cannot be read or validated is no previous snapshot (issue 8 case 6):
    // the worker's next run reports it (monitor/source-unavailable) and stores a fresh one.
    const stored = previous.ok ? previous.value : undefined;
    if (stored === undefined) {
      basis = 'bootstrap-capture';
      before = await captureSnapshot(blindReaders(deps), key);
    } else {
      basis = 'stored-snapshot';
      // aws-auth with the remembered endpoint, unless it changed or was not known.
      const awsAuth =
        awsAuthCached !== undefined && cachedRef !== undefined && sameRef(cachedRef, ref)
          ? awsAuthCached
          : await settle(deps.kube.awsAuth(ref));
      ({ snapshot: before, staleSources } = refreshVolatile(
        stored,
        { cluster, awsAuth, accessEntries: entries },
        deps.clock.now().toISOString(),
      ));
    }

    const options = { trigger, monitorPrincipalArn: deps.monitorPrincipalArn };
    const predicted = whatIf(before, change, options).findings;
    // EKS's side effect may already have happened before the fresh read: what changed since the
    // stored snapshot is reported too (only opens; the worker's state evaluation resolves).
    const already = stored === undefined ? [] : diffSnapshots(stored, before, options);
    // Blindness is the worker's to report (from a full capture), never the event path's.
    const findings = dedupeFindings([...predicted, ...already]).filter(
      (f) => f.ruleId !== SOURCE_UNAVAILABLE,
    );

    const followUp: ClusterWorkItem = {
      ...key,
      reason: 'follow-up',
      followUp: { eventId, eventName, change, fingerprints: findings.map((f) => f.fingerprint), attempt: 1 },
    };
    const [delivery] = await Promise.all([
      deps.deliver(key, findings, { kind: 'change' }),
      deps.queue.enqueue([followUp], deps.followUpDelaySeconds),
    ]);
    return {
      outcome: 'alerted',
      eventId,
      eventName,
      cluster: clusterName,
      region,
      findings: findings.length,
      ruleIds: [...new Set(findings.map((f) => f.ruleId))],
      delivery,
      basis,
      staleSources,
      followUpQueued: true,
    };
  } catch (error) {
    await deps.idempotency.release(`${IDEMPOTENCY_PREFIX}${eventId}`).catch(() => undefined);
    throw new EventProcessingError(
      `${eventName} ${eventId} on ${region}/${clusterName}: ${safeErrorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
}
