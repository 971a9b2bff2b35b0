/**
 * Use case shared by every path that sees aws-auth (docs/design.md#aws-auth-changes): the
 * default-mode poller, the continuous-mode watcher, the audit-log subscription and the CLI's
 * `watch` hand it aws-auth as just read; it assesses the write against the last stored state and
 * alerts through the lifecycle.
 *
 *   load the stored snapshot → same resourceVersion? `unchanged`
 *   → claim `aws-auth:<account>/<region>/<cluster>@<resourceVersion>` → the stored snapshot with
 *   aws-auth as read (`freshAwsAuth`) → the snapshot worker's evaluation (`evaluateSnapshot`:
 *   every state rule, and the transition rules since the stored snapshot) → [afterAssess]
 *   → deliver (scope `state`) → store → complete the claim
 *
 * The evaluated state is the stored one with aws-auth replaced, so it is as complete as the last
 * capture: a full state evaluation, delivered as the worker's is (what the write fixed resolves
 * at once, a blind stored source keeps everything open).
 *
 * One write, one alert: the watcher, the poller, an audit event and a redelivery may all see the
 * same resourceVersion. The first to claim it evaluates; a later one finds the claim completed
 * (`duplicate`), or in progress (`duplicate`, `claim: 'in-progress'`: the holder alerts; if it
 * dies, its claim expires and the next look at the unchanged stored resourceVersion claims it
 * again). A deletion has no resourceVersion of its own unless the watch gave one; its claim is
 * named after the stored resourceVersion it deleted, so a re-created and re-deleted aws-auth is
 * a new claim.
 *
 * Never a guess: no stored snapshot (or one that cannot be read) is `no-baseline` — nothing to
 * compare with, and nothing removed is reported — and a read that failed is `unreadable`, naming
 * it; the caller alerts blindness on its own path (the worker's `monitor/source-unavailable`).
 * Neither is claimed.
 */
import {
  type AwsAuthMappingChanges,
  type AwsAuthMappingEntry,
  awsAuthMappingChanges,
  type ParsedAwsAuth,
  parseAwsAuthShared,
  withAwsAuthMemo,
} from '../core/aws-auth/index.ts';
import {
  type Actor,
  type AwsAuthConfigMap,
  type ClusterId,
  type ClusterSnapshot,
  clusterIdKey,
  type Finding,
  type Trigger,
  withActor,
} from '../core/model.ts';
import type { WatchAction } from '../core/render/index.ts';
import { awsAuthWriterActor } from '../core/rules/index.ts';
import { safeErrorMessage } from '../errors.ts';
import type {
  Clock,
  Deliver,
  DeliverySummary,
  EksReader,
  IdempotencyStore,
  KubeClusterRef,
  Lookup,
  SnapshotStore,
} from '../ports.ts';
import {
  awaitRead,
  freshAwsAuth,
  type ReadResult,
  readAccessEntries,
  refreshVolatile,
} from './read-sources.ts';
import { evaluateSnapshot, IN_PROGRESS_MARGIN_MS } from './run-snapshot.ts';

/** Which path saw the write. */
export type AwsAuthChangeSource = 'poll' | 'watch' | 'audit' | 'cli';

export const AWS_AUTH_CLAIM_PREFIX = 'aws-auth:';
/** A claim is in progress this long by default: one evaluation, its delivery and the margin. */
export const DEFAULT_AWS_AUTH_CLAIM_MS = 60_000 + IN_PROGRESS_MARGIN_MS;

/** One action a remediation took (or, in dry-run, would take) after an assessment. */
export type RemediationActionReport = WatchAction;

/** What an `afterAssess` hook is given: the write assessed, both states, what it changed. */
export interface AwsAuthAssessment {
  cluster: KubeClusterRef;
  source: AwsAuthChangeSource;
  resourceVersion: string | undefined;
  before: ClusterSnapshot;
  after: ClusterSnapshot;
  /** Undefined when either side of aws-auth could not be read (nothing is known to be removed). */
  changes: AwsAuthMappingChanges | undefined;
  findings: readonly Finding[];
  actor: Actor | undefined;
}

/** What the hook did: its actions, and findings of its own (delivered as a change, after the state). */
export interface AfterAssessResult {
  actions?: readonly RemediationActionReport[];
  findings?: readonly Finding[];
}

export interface AssessAwsAuthChangeDeps {
  snapshots: SnapshotStore;
  deliver: Deliver;
  clock: Clock;
  monitorPrincipalArn: string;
  /** The per-resourceVersion claims (the state table in the functions, in memory in the CLI). */
  idempotency: IdempotencyStore;
  idempotencyTtlSeconds: number;
  /**
   * Runs once per claimed write, after the evaluation and before delivery (remediation acts
   * inside the window between the write and the nodes going NotReady). Its errors are its own to
   * report: a throw fails the assessment and releases the claim.
   */
  afterAssess?(assessment: AwsAuthAssessment): Promise<AfterAssessResult | undefined>;
  /**
   * EKS per Region: with it, a claimed write is judged with the cluster's mode and access entries
   * read again (DescribeCluster ‖ ListAccessEntries), not the stored ones — an access entry the
   * CloudTrail path or a person created since the last capture keeps its nodes authorized
   * whatever aws-auth says. Without it (or when DescribeCluster fails) the stored ones are used.
   */
  eks?(region: string): EksReader;
}

export interface AwsAuthObservation {
  cluster: KubeClusterRef;
  /** aws-auth as the reader (GET, watch event, audit event's object) gave it, or its failure. */
  awsAuth: ReadResult<Lookup<AwsAuthConfigMap>>;
  /**
   * The write's resourceVersion when the read has none of its own: a watch's DELETED event
   * carries the deletion's. Default: the read ConfigMap's.
   */
  resourceVersion?: string;
  source: AwsAuthChangeSource;
  /**
   * Who wrote it, when the source says (an audit event's user). Default: the ConfigMap's last
   * field manager (`managedFields`), when Kubernetes recorded one.
   */
  actor?: Actor;
}

export interface AssessAwsAuthChangeOptions {
  /** The claim is in progress until then (epoch ms); default now + `DEFAULT_AWS_AUTH_CLAIM_MS`. */
  claimUntil?: number;
}

export type AwsAuthChangeOutcome =
  /** The stored snapshot has this resourceVersion (or aws-auth was and is absent): nothing to do. */
  | 'unchanged'
  /** Another path claimed this write: it alerts, not this one. */
  | 'duplicate'
  /** No stored snapshot to compare with (or it cannot be read): nothing is reported. */
  | 'no-baseline'
  /** aws-auth could not be read: `error` names why. */
  | 'unreadable'
  | 'evaluated';

export interface AssessAwsAuthChangeResult {
  outcome: AwsAuthChangeOutcome;
  cluster: ClusterId;
  source: AwsAuthChangeSource;
  resourceVersion: string | undefined;
  /** The stored snapshot's aws-auth resourceVersion, when there was one. */
  previousResourceVersion?: string;
  /** `evaluated`: who wrote it (the observation's, else the ConfigMap's last field manager). */
  actor?: Actor;
  /** `evaluated`: every finding of the evaluation (state and transition), with the actor. */
  findings: Finding[];
  removed: AwsAuthMappingEntry[];
  added: AwsAuthMappingEntry[];
  changed: AwsAuthMappingChanges['changed'];
  /** False when a side of aws-auth was unreadable: `removed` is empty because nothing is known. */
  changesKnown: boolean;
  delivery: DeliverySummary;
  /** `duplicate`: what the claim found. */
  claim?: 'in-progress' | 'completed';
  /** `evaluated`: the states compared (the hook gets the same). */
  before?: ClusterSnapshot;
  after?: ClusterSnapshot;
  actions?: readonly RemediationActionReport[];
  /** `unreadable`, `no-baseline` with a stored snapshot that cannot be read: why. */
  error?: string;
}

const NO_DELIVERY: DeliverySummary = { sent: 0, failed: 0, pending: 0 };
const NO_CHANGES: AwsAuthMappingChanges = { removed: [], added: [], changed: [] };

function idOf(ref: KubeClusterRef): ClusterId {
  return { accountId: ref.accountId, region: ref.region, clusterName: ref.clusterName };
}

function storedResourceVersion(stored: ClusterSnapshot): string | undefined {
  return stored.awsAuth.status === 'ok' ? stored.awsAuth.data.resourceVersion : undefined;
}

/** The stored aws-auth is what was observed: the same resourceVersion, or absent both times. */
function sameAsStored(stored: ClusterSnapshot, observed: Lookup<AwsAuthConfigMap>): boolean {
  const was = stored.awsAuth;
  if (!observed.found) return was.status === 'absent';
  if (was.status !== 'ok') return false;
  const rv = observed.value.resourceVersion;
  if (rv !== undefined && was.data.resourceVersion !== undefined) return rv === was.data.resourceVersion;
  return JSON.stringify(was.data.data) === JSON.stringify(observed.value.data);
}

function parsedOf(source: ClusterSnapshot['awsAuth']): ParsedAwsAuth | undefined | 'unknown' {
  if (source.status === 'error') return 'unknown';
  return source.status === 'ok' ? parseAwsAuthShared(source.data.data) : undefined;
}

/**
 * The stored state with aws-auth as read, and — when EKS can be asked — the mode and access
 * entries as they are now. An access entry read fails alone: the stored entries stay (named stale
 * by refreshVolatile, never taken for "no entries").
 */
async function stateAfter(
  deps: AssessAwsAuthChangeDeps,
  stored: ClusterSnapshot,
  read: ReadResult<Lookup<AwsAuthConfigMap>>,
  key: ClusterId,
): Promise<ClusterSnapshot> {
  const capturedAt = deps.clock.now().toISOString();
  const eks = deps.eks?.(key.region);
  const described = eks === undefined ? undefined : await awaitRead(eks.describeCluster(key.clusterName));
  if (eks === undefined || described === undefined || !described.ok) {
    return { ...stored, capturedAt, awsAuth: freshAwsAuth(stored, read).awsAuth };
  }
  const accessEntries = await awaitRead(readAccessEntries(eks, described.value));
  return refreshVolatile(stored, { cluster: described.value, awsAuth: read, accessEntries }, capturedAt)
    .snapshot;
}

/** The claim of one write of aws-auth on one cluster. */
export function awsAuthClaimKey(cluster: ClusterId, resourceVersion: string): string {
  return `${AWS_AUTH_CLAIM_PREFIX}${clusterIdKey(cluster)}@${resourceVersion}`;
}

export async function assessAwsAuthChange(
  deps: AssessAwsAuthChangeDeps,
  observation: AwsAuthObservation,
  options: AssessAwsAuthChangeOptions = {},
): Promise<AssessAwsAuthChangeResult> {
  const key = idOf(observation.cluster);
  const read = observation.awsAuth;
  const observedRv =
    observation.resourceVersion ??
    (read.ok && read.value.found ? read.value.value.resourceVersion : undefined);
  const base = {
    cluster: key,
    source: observation.source,
    resourceVersion: observedRv,
    findings: [],
    removed: [],
    added: [],
    changed: [],
    changesKnown: false,
    delivery: NO_DELIVERY,
  };
  if (!read.ok) return { ...base, outcome: 'unreadable', error: safeErrorMessage(read.error) };

  const loaded = await awaitRead(deps.snapshots.latest(key));
  if (!loaded.ok) {
    return {
      ...base,
      outcome: 'no-baseline',
      error: `the stored snapshot cannot be read: ${safeErrorMessage(loaded.error)}`,
    };
  }
  const stored = loaded.value;
  if (stored === undefined) return { ...base, outcome: 'no-baseline' };
  const previousRv = storedResourceVersion(stored);
  const withPrevious = previousRv === undefined ? base : { ...base, previousResourceVersion: previousRv };
  if (sameAsStored(stored, read.value)) return { ...withPrevious, outcome: 'unchanged' };

  const claimKey = awsAuthClaimKey(key, observedRv ?? `absent-after-${previousRv ?? 'none'}`);
  const claimed = await deps.idempotency.claim(claimKey, {
    inProgressUntil: options.claimUntil ?? deps.clock.now().getTime() + DEFAULT_AWS_AUTH_CLAIM_MS,
    ttlSeconds: deps.idempotencyTtlSeconds,
  });
  if (claimed !== 'claimed') return { ...withPrevious, outcome: 'duplicate', claim: claimed };

  try {
    const trigger: Trigger = `event:aws-auth-${observation.source}`;
    const after = await stateAfter(deps, stored, read, key);
    const actor = observation.actor ?? (read.value.found ? awsAuthWriterActor(read.value.value) : undefined);
    const { findings, changes } = withAwsAuthMemo(() => {
      const b = parsedOf(stored.awsAuth);
      const a = parsedOf(after.awsAuth);
      return {
        findings: withActor(
          evaluateSnapshot(after, stored, { trigger, monitorPrincipalArn: deps.monitorPrincipalArn }),
          actor,
        ),
        changes: b === 'unknown' || a === 'unknown' ? undefined : awsAuthMappingChanges(b, a),
      };
    });
    const hooked = await deps.afterAssess?.({
      cluster: observation.cluster,
      source: observation.source,
      resourceVersion: observedRv,
      before: stored,
      after,
      changes,
      findings,
      actor,
    });
    let delivery = await deps.deliver(key, findings, { kind: 'state' });
    const own = hooked?.findings ?? [];
    if (own.length > 0) {
      const more = await deps.deliver(key, own, { kind: 'change' });
      delivery = {
        sent: delivery.sent + more.sent,
        failed: delivery.failed + more.failed,
        pending: more.pending,
        ...(delivery.errors === undefined && more.errors === undefined
          ? {}
          : { errors: { ...delivery.errors, ...more.errors } }),
      };
    }
    await deps.snapshots.put(after);
    await deps.idempotency.complete(claimKey, deps.idempotencyTtlSeconds);
    const known = changes ?? NO_CHANGES;
    return {
      ...withPrevious,
      outcome: 'evaluated',
      findings: [...findings, ...own],
      removed: known.removed,
      added: known.added,
      changed: known.changed,
      changesKnown: changes !== undefined,
      delivery,
      before: stored,
      after,
      ...(actor === undefined ? {} : { actor }),
      ...(hooked?.actions === undefined ? {} : { actions: hooked.actions }),
    };
  } catch (error) {
    await deps.idempotency.release(claimKey).catch(() => undefined);
    throw error;
  }
}
