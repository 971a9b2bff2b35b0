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
 * The same eventID is processed once, in two states (the semantics of Powertools Idempotency,
 * implemented in `shared/adapters/dynamodb-idempotency.ts`): the claim is `IN_PROGRESS` until
 * just past this invocation's own timeout (`deadlineAt` + `IN_PROGRESS_MARGIN_MS`), then
 * `COMPLETED` for `idempotencyTtlSeconds` once the alert is delivered and the follow-up queued.
 * A redelivery of a completed event is a `duplicate`; one that finds the event in progress throws
 * `EventInProgressError`, so the asynchronous retry comes back after the in-progress expiry and
 * takes the claim again if the first invocation timed out, ran out of memory or crashed. On a
 * failure the claim is released at once and the error rethrown; the lifecycle keeps a retry from
 * alerting twice.
 *
 * One deadline per invocation (`context.getRemainingTimeInMillis()` from the injected clock's now): every
 * read is budgeted from it and the reads run concurrently, and `DELIVERY_RESERVE_MS` (at most a
 * third of the invocation) is kept for what must happen — the alert and the follow-up. A fresh
 * read of aws-auth or the access entries still running then is given up (the stored version is
 * used, named in `staleSources`); DescribeCluster or the stored snapshot not read by then fails
 * the invocation (released, retried).
 *
 * A record from another account than the monitor's own, or from a Region it is not configured
 * for, is ignored with its reason: it would be simulated against a snapshot of another cluster.
 */
import { parseEksEvent } from '../core/events/index.ts';
import {
  type ClusterId,
  type ClusterSnapshot,
  clusterIdKey,
  type Trigger,
  withActor,
} from '../core/model.ts';
import { dedupeFindings, predictEvent } from '../core/predict/index.ts';
import { beforeNodegroupDeletion, planNodegroupDeletion } from '../core/remediation/index.ts';
import { SOURCE_UNAVAILABLE } from '../core/rules/index.ts';
import { CollectionError, safeErrorMessage } from '../errors.ts';
import type {
  AwsAuthReader,
  CaptureDeps,
  Clock,
  ClusterWorkItem,
  Deliver,
  DeliverySummary,
  EksReader,
  IdempotencyStore,
  KubeClusterRef,
  SnapshotStore,
  WorkQueue,
} from '../ports.ts';
import { captureSnapshot } from './capture-snapshot.ts';
import { EventInProgressError, EventProcessingError } from './errors.ts';
import { type FannedOutCluster, handleAccountChange } from './handle-account-event.ts';
import { awaitRead, kubeClusterRef, refreshVolatile } from './read-sources.ts';
import { guardAwsAuth, type RemediateDeps, type RemediationReport, remediate } from './remediate.ts';
import { IN_PROGRESS_MARGIN_MS } from './run-snapshot.ts';

export interface HandleEksEventDeps {
  /** EKS readers per Region (DescribeCluster, access entries; the rest only to bootstrap). */
  eks(region: string): EksReader;
  /** aws-auth only: the other Kubernetes sources are the worker's to read. */
  kube: AwsAuthReader;
  snapshots: SnapshotStore;
  idempotency: IdempotencyStore;
  deliver: Deliver;
  queue: WorkQueue;
  clock: Clock;
  monitorPrincipalArn: string;
  followUpDelaySeconds: number;
  idempotencyTtlSeconds: number;
  /** The Regions the monitor watches (`SENTINEL_REGIONS`); a record from another Region is ignored. */
  regions?: readonly string[];
  /** API endpoint and CA per cluster (`clusterIdKey`), kept across warm invocations (saves a round trip). */
  kubeRefs?: Map<string, KubeClusterRef>;
  /**
   * The same EKS and aws-auth readers (clients, connections, tokens) with every request aborted
   * when `signal` aborts. The reads' deadline aborts it, so that no read is left waiting on a reply
   * after it was given up: in Lambda it would resume in the next invocation of the environment.
   * Without it a late read is given up all the same, but keeps its connection until its own timeout.
   */
  withDeadline?(signal: AbortSignal): Pick<HandleEksEventDeps, 'eks' | 'kube'>;
  /** Opt-in prevention (`remediation` `dry-run` or `on`); absent when `off`. */
  remediation?: RemediateDeps & {
    /** How often aws-auth is read while a CONFIG_MAP node group deletion is guarded, ms. */
    guardIntervalMs: number;
    /** The longest such a guard lasts within one invocation, ms. */
    guardMaxMs: number;
  };
}

/** What prevention did for an event (for the log line). */
export interface EventRemediationSummary {
  mode: 'dry-run' | 'on';
  results: string[];
  duplicates: number;
  skipped: string[];
  /** Guarded roles EKS had not removed yet when the guard ended (the follow-ups go on). */
  unguarded?: string[];
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
      remediation?: EventRemediationSummary;
    }
  | {
      /** An IAM call: simulated on every stored cluster snapshot; those with findings alerted. */
      outcome: 'fanned-out';
      eventId: string;
      eventName: string;
      clusters: FannedOutCluster[];
      /** Clusters (or Regions) that could not be looked at, with why. */
      skipped: string[];
    };

export const IDEMPOTENCY_PREFIX = 'cloudtrail:';
/** The in-progress claim outlives the invocation's deadline by this much (the worker's follow-up claims share it). */
export { IN_PROGRESS_MARGIN_MS };
/** Kept from the deadline for the alert and the follow-up (at most a third of the invocation). */
export const DELIVERY_RESERVE_MS = 8_000;
/** The budget when the caller gives no deadline (the onEksEvent timeout). */
export const DEFAULT_INVOCATION_MS = 30_000;

export interface HandleEksEventOptions {
  /**
   * What the invocation has left (`context.getRemainingTimeInMillis()`): the deadline is that far
   * from `deps.clock`'s now, so the reads' budget and the claim's in-progress expiry are on the
   * same clock as the idempotency store.
   */
  remainingMs?: number;
  /** The monitor's own account (from the function ARN); a record of another account is ignored. */
  accountId?: string;
}

/**
 * `promise`, or a `timeout` CollectionError once `deadlineAt` has passed. The readers are bound
 * to the same deadline (`withDeadline`) and abort their requests then; this race is what makes
 * the deadline hold for a reader that does not.
 */
function byDeadline<T>(
  promise: Promise<T>,
  deadline: { at: number; clock: Clock },
  what: { service: 'eks' | 'kubernetes'; operation: string; cluster: string },
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CollectionError(
            `${what.operation} of ${what.cluster}: not answered within the invocation's deadline`,
            {
              code: 'timeout',
              ...what,
            },
          ),
        ),
      Math.max(0, deadline.at - deadline.clock.now().getTime()),
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Why a record is not this monitor's to handle, or undefined. */
function foreignReason(
  deps: HandleEksEventDeps,
  options: HandleEksEventOptions,
  at: { accountId: string; region: string },
): string | undefined {
  if (options.accountId !== undefined && at.accountId !== options.accountId) {
    return `recipientAccountId ${at.accountId} is not the monitor's account ${options.accountId}`;
  }
  if (deps.regions !== undefined && !deps.regions.includes(at.region)) {
    return `awsRegion ${at.region} is not one of the monitored Regions (${deps.regions.join(', ')})`;
  }
  return undefined;
}

function sameRef(a: KubeClusterRef, b: KubeClusterRef): boolean {
  return a.endpoint === b.endpoint && a.certificateAuthorityData === b.certificateAuthorityData;
}

/**
 * EC2, IAM and Kubernetes other than aws-auth are not read on the event path (the worker's
 * follow-up reads them): a bootstrap capture gets "could not look" readers for them, so that its
 * snapshot says those sources are unknown.
 */
function blindReaders(deps: HandleEksEventDeps): CaptureDeps {
  const notHere = (service: 'ec2' | 'iam' | 'kubernetes', operation: string) => (): Promise<never> =>
    Promise.reject(
      new CollectionError(`${operation} is not called on the event path (the worker's follow-up reads it)`, {
        code: 'unavailable',
        service,
        operation,
      }),
    );
  const kube = deps.kube;
  return {
    eks: (region) => deps.eks(region),
    kube: {
      awsAuth: (cluster) => kube.awsAuth(cluster),
      nodes: notHere('kubernetes', 'list nodes'),
      ec2NodeClasses: notHere('kubernetes', 'list ec2nodeclasses'),
      autoModeNodeClasses: notHere('kubernetes', 'list nodeclasses'),
      serviceAccounts: notHere('kubernetes', 'list serviceaccounts'),
    },
    clock: deps.clock,
    ec2: (region) => ({ region, instancesOfCluster: notHere('ec2', 'DescribeInstances') }),
    iam: {
      roleOfInstanceProfile: notHere('iam', 'GetInstanceProfile'),
      getRole: notHere('iam', 'GetRole'),
      oidcProviders: notHere('iam', 'ListOpenIDConnectProviders'),
      oidcProviderClientIds: notHere('iam', 'GetOpenIDConnectProvider'),
      simulateRoleAction: notHere('iam', 'SimulatePrincipalPolicy'),
    },
  };
}

export async function handleEksEvent(
  deps: HandleEksEventDeps,
  event: unknown,
  options: HandleEksEventOptions = {},
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
  if (parsed.kind === 'account-change') {
    const deadlineAt = deps.clock.now().getTime() + (options.remainingMs ?? DEFAULT_INVOCATION_MS);
    return handleAccountChange(deps, parsed, options, `${IDEMPOTENCY_PREFIX}${parsed.eventId}`, {
      inProgressUntil: deadlineAt + IN_PROGRESS_MARGIN_MS,
    });
  }

  const { eventId, eventName, clusterName, region, accountId } = parsed;
  const foreign = foreignReason(deps, options, { accountId, region });
  if (foreign !== undefined) return { outcome: 'ignored', reason: foreign, eventId, eventName };
  const startedAt = deps.clock.now().getTime();
  const budgetMs = Math.max(0, options.remainingMs ?? DEFAULT_INVOCATION_MS);
  const readsUntil = {
    at: startedAt + budgetMs - Math.min(DELIVERY_RESERVE_MS, budgetMs / 3),
    clock: deps.clock,
  };
  // One timer for the invocation's reads: it aborts every request still open at the deadline.
  const cut = new AbortController();
  const cutTimer = setTimeout(() => cut.abort(), Math.max(0, readsUntil.at - startedAt));
  try {
    return await predictAndAlert({ ...deps, ...deps.withDeadline?.(cut.signal) }, parsed, {
      startedAt,
      deadlineAt: startedAt + budgetMs,
      readsUntil,
      signal: cut.signal,
    });
  } finally {
    clearTimeout(cutTimer);
  }
}

async function predictAndAlert(
  deps: HandleEksEventDeps,
  parsed: Extract<ReturnType<typeof parseEksEvent>, { kind: 'change' }>,
  time: {
    startedAt: number;
    deadlineAt: number;
    readsUntil: { at: number; clock: Clock };
    signal: AbortSignal;
  },
): Promise<HandleEksEventResult> {
  const { eventId, eventName, clusterName, region, accountId, change } = parsed;
  const { deadlineAt, readsUntil } = time;
  const key: ClusterId = { accountId, region, clusterName };
  const eks = deps.eks(region);
  const refKey = clusterIdKey(key);
  const cachedRef = deps.kubeRefs?.get(refKey);
  const eksRead = (operation: string) => ({ service: 'eks' as const, operation, cluster: clusterName });
  const awsAuthRead = {
    service: 'kubernetes' as const,
    operation: 'get configmap aws-auth',
    cluster: clusterName,
  };
  const idempotencyKey = `${IDEMPOTENCY_PREFIX}${eventId}`;

  // Round 1: everything independent at once, each read bounded by the one deadline. The claim
  // decides whether the reads are used.
  const [claimed, previous, described, awsAuthCached, entries] = await Promise.all([
    awaitRead(
      deps.idempotency.claim(idempotencyKey, {
        inProgressUntil: deadlineAt + IN_PROGRESS_MARGIN_MS,
        ttlSeconds: deps.idempotencyTtlSeconds,
      }),
    ),
    awaitRead(
      byDeadline(
        deps.snapshots.latest(key, { signal: time.signal }),
        readsUntil,
        eksRead('GetObject (stored snapshot)'),
      ),
    ),
    awaitRead(byDeadline(eks.describeCluster(clusterName), readsUntil, eksRead('DescribeCluster'))),
    cachedRef === undefined
      ? Promise.resolve(undefined)
      : awaitRead(byDeadline(deps.kube.awsAuth(cachedRef), readsUntil, awsAuthRead)),
    awaitRead(byDeadline(eks.accessEntries(clusterName), readsUntil, eksRead('ListAccessEntries'))),
  ]);
  if (!claimed.ok) throw claimed.error;
  if (claimed.value === 'completed') {
    return { outcome: 'duplicate', eventId, eventName, cluster: clusterName, region };
  }
  if (claimed.value === 'in-progress') {
    throw new EventInProgressError(
      `${eventName} ${eventId} on ${region}/${clusterName} is being processed by another invocation; retry after its claim expires`,
    );
  }

  try {
    if (!described.ok) throw described.error;
    const cluster = described.value;
    const ref = kubeClusterRef(cluster, key);
    deps.kubeRefs?.set(refKey, ref);

    const trigger: Trigger = `event:${eventName}`;
    let basis: 'stored-snapshot' | 'bootstrap-capture';
    let before: ClusterSnapshot;
    let staleSources: string[] = [];
    // A stored snapshot that cannot be read or validated is no previous snapshot:
    // the worker's next run reports it (monitor/source-unavailable) and stores a fresh one.
    const stored = previous.ok ? previous.value : undefined;
    if (stored === undefined) {
      basis = 'bootstrap-capture';
      before = await byDeadline(
        captureSnapshot(blindReaders(deps), key),
        readsUntil,
        eksRead('bootstrap capture'),
      );
    } else {
      basis = 'stored-snapshot';
      // aws-auth with the remembered endpoint, unless it changed or was not known.
      const awsAuth =
        awsAuthCached !== undefined && cachedRef !== undefined && sameRef(cachedRef, ref)
          ? awsAuthCached
          : await awaitRead(byDeadline(deps.kube.awsAuth(ref), readsUntil, awsAuthRead));
      ({ snapshot: before, staleSources } = refreshVolatile(
        stored,
        { cluster, awsAuth, accessEntries: entries },
        deps.clock.now().toISOString(),
      ));
    }

    // EKS's side effect may already have happened before the fresh read: what changed since the
    // stored snapshot is reported too (only opens; the worker's state evaluation resolves). The
    // compute the change takes away (a deleted node group's nodes) is gone, not losing access.
    const prediction = predictEvent(stored, before, change, {
      trigger,
      monitorPrincipalArn: deps.monitorPrincipalArn,
    });
    // Blindness is the worker's to report (from a full capture), never the event path's.
    const findings = withActor(
      dedupeFindings([...prediction.findings, ...prediction.already]).filter(
        (f) => f.ruleId !== SOURCE_UNAVAILABLE,
      ),
      parsed.by,
    );

    const followUp: ClusterWorkItem = {
      ...key,
      reason: 'follow-up',
      followUp: { eventId, eventName, change, fingerprints: findings.map((f) => f.fingerprint), attempt: 1 },
    };
    // Prevention acts as soon as the record is here, before EKS's aws-auth edit: the access entry
    // is written while the finding is delivered, its own alert follows in the finding's thread.
    // Its re-reads of aws-auth are the event path's reader, bound to the invocation's deadline.
    const prevention =
      deps.remediation === undefined ? undefined : { ...deps.remediation, awsAuth: deps.kube };
    // A late record: EKS's edit may be in the fresh read already; then the stored aws-auth is "before".
    const preventionBasis =
      prevention !== undefined && change.kind === 'delete-nodegroup'
        ? beforeNodegroupDeletion(before, stored, change)
        : before;
    const plan =
      prevention !== undefined && change.kind === 'delete-nodegroup'
        ? planNodegroupDeletion(preventionBasis, change)
        : undefined;
    const target = {
      cluster: key,
      ref,
      before: preventionBasis,
      trigger,
      triggerId: eventId,
      ...(change.kind === 'delete-nodegroup' ? { excludingNodegroup: change.nodegroupName } : {}),
    };
    const delivered = deps.deliver(key, findings, { kind: 'change' });
    const acted =
      prevention !== undefined && plan !== undefined && plan.actions.length > 0
        ? // settled at once: a failure is rethrown below, never left unhandled while delivery runs
          awaitRead(remediate(prevention, target, plan, undefined, delivered))
        : undefined;
    const [delivery] = await Promise.all([
      delivered,
      deps.queue.enqueue([followUp], deps.followUpDelaySeconds),
    ]);
    let remediation: EventRemediationSummary | undefined;
    if (prevention !== undefined && plan !== undefined) {
      const reports: RemediationReport[] = [];
      if (acted !== undefined) {
        const done = await acted;
        if (!done.ok) throw done.error;
        reports.push(done.value);
      }
      let unguarded: string[] | undefined;
      if (plan.guards.length > 0) {
        // CONFIG_MAP: a re-add only lasts after EKS's own edit, so aws-auth is watched for it.
        const guarded = await guardAwsAuth(prevention, target, plan.guards, {
          until: Math.min(readsUntil.at, deps.clock.now().getTime() + prevention.guardMaxMs),
          intervalMs: prevention.guardIntervalMs,
        });
        reports.push(guarded);
        unguarded = guarded.unguarded;
      }
      remediation = {
        mode: prevention.mode,
        results: reports.flatMap((r) => r.outcomes.map((o) => `${o.action.kind} ${o.result}`)),
        duplicates: reports.reduce((n, r) => n + r.duplicates, 0),
        skipped: plan.skipped.map((s) => s.reason),
        ...(unguarded === undefined || unguarded.length === 0 ? {} : { unguarded }),
      };
    }
    await deps.idempotency.complete(idempotencyKey, deps.idempotencyTtlSeconds);
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
      ...(remediation === undefined ? {} : { remediation }),
    };
  } catch (error) {
    await deps.idempotency.release(idempotencyKey).catch(() => undefined);
    throw new EventProcessingError(
      `${eventName} ${eventId} on ${region}/${clusterName}: ${safeErrorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
}
