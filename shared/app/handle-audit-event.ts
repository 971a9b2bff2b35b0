/**
 * Use case of the audit-log subscription (onAuditEvent): the aws-auth writes in one decoded
 * CloudWatch Logs message, each assessed by `assessAwsAuthChange` (source `audit`) with its writer.
 *
 *   parse (core) → the cluster of the log group, monitored? → per write: claim its auditID →
 *   the object the event carries, or a fresh read (create, delete, truncated, no body) →
 *   assess → already assessed (a poll or a watch was first)? attribute the writer to the alerts
 *   that write opened (`aws-auth/write-attributed`, in their Slack thread) → complete the claim
 *
 * The audit log names the writer; it is not the detector (delivery takes minutes, best effort).
 * Never a guess: an object older than the stored state (a later write was already assessed) is
 * not assessed again — the writer is still told — and an unknown cluster is ignored with a reason.
 */
import { type AuditChange, type AuditConfigMap, parseAuditSubscription } from '../core/events/index.ts';
import type { AwsAuthConfigMap, ClusterId, ClusterSnapshot, Finding } from '../core/model.ts';
import { type AlertSeen, attributeWrite } from '../core/rules/index.ts';
import type { AlertStore, AwsAuthReader, DeliverySummary, KubeClusterRef, Lookup } from '../ports.ts';
import {
  type AssessAwsAuthChangeDeps,
  type AwsAuthChangeOutcome,
  assessAwsAuthChange,
} from './assess-aws-auth-change.ts';
import { awaitRead, type ReadResult } from './read-sources.ts';

export const AUDIT_CLAIM_PREFIX = 'audit:';

export interface HandleAuditEventDeps extends AssessAwsAuthChangeDeps {
  kube: AwsAuthReader;
  alerts: Pick<AlertStore, 'load'>;
  /**
   * The monitored cluster of that name (the log group names it; the account is the message's
   * `owner`); undefined when this monitor does not watch it.
   */
  cluster(name: string, accountId: string | undefined): Promise<KubeClusterRef | undefined>;
  /** The ConfigMap an audit event carries as aws-auth (the adapter's reduction of managedFields). */
  awsAuthOf(configMap: AuditConfigMap): AwsAuthConfigMap;
}

export type AuditWriteOutcome =
  | AwsAuthChangeOutcome
  /** This auditID was handled before (a redelivery). */
  | 'seen'
  /** The object is older than the stored state: a later write was assessed already. */
  | 'superseded';

export interface AuditWriteResult {
  auditId: string;
  outcome: AuditWriteOutcome;
  /** Whether the object came with the event or was read fresh (and why). */
  observed: 'event' | `read-fresh: ${string}`;
  resourceVersion?: string;
  /** Findings delivered by the assessment (with the writer). */
  findings: number;
  /** Alerts that got the writer afterwards (`aws-auth/write-attributed`). */
  attributed: number;
  delivery?: DeliverySummary;
  error?: string;
}

export type HandleAuditEventResult =
  | { outcome: 'ignored'; reason: string; cluster?: string }
  | { outcome: 'handled'; cluster: string; writes: AuditWriteResult[]; ignored: number };

/** Kubernetes resourceVersions are opaque; etcd's are decimal integers, the only ones compared. */
function olderThan(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || !/^\d{1,30}$/.test(a) || !/^\d{1,30}$/.test(b)) return false;
  return BigInt(a) < BigInt(b);
}

function storedRv(s: ClusterSnapshot | undefined): string | undefined {
  return s?.awsAuth.status === 'ok' ? s.awsAuth.data.resourceVersion : undefined;
}

function idOf(ref: KubeClusterRef): ClusterId {
  return { accountId: ref.accountId, region: ref.region, clusterName: ref.clusterName };
}

export async function handleAuditEvent(
  deps: HandleAuditEventDeps,
  message: unknown,
): Promise<HandleAuditEventResult> {
  const parsed = parseAuditSubscription(message);
  if (parsed.kind === 'ignored') return { outcome: 'ignored', reason: parsed.reason };
  const owner = (message as { owner?: unknown }).owner;
  const accountId = typeof owner === 'string' && /^\d{12}$/.test(owner) ? owner : undefined;
  if (parsed.changes.length === 0)
    return { outcome: 'handled', cluster: parsed.cluster, writes: [], ignored: parsed.ignored.length };
  const ref = await deps.cluster(parsed.cluster, accountId);
  if (ref === undefined)
    return {
      outcome: 'ignored',
      cluster: parsed.cluster,
      reason: `cluster ${JSON.stringify(parsed.cluster)} is not monitored here (account and Region of this monitor)`,
    };
  const writes: AuditWriteResult[] = [];
  // In log order: a later write of the same message is assessed against the earlier one's state.
  for (const change of parsed.changes) writes.push(await handleWrite(deps, ref, change));
  return { outcome: 'handled', cluster: parsed.cluster, writes, ignored: parsed.ignored.length };
}

async function handleWrite(
  deps: HandleAuditEventDeps,
  ref: KubeClusterRef,
  change: AuditChange,
): Promise<AuditWriteResult> {
  const key = idOf(ref);
  const claimKey = `${AUDIT_CLAIM_PREFIX}${ref.accountId}/${ref.region}/${ref.clusterName}/${change.auditId}`;
  const observedHow: AuditWriteResult['observed'] =
    change.observed.kind === 'object' ? 'event' : `read-fresh: ${change.observed.reason}`;
  const base = { auditId: change.auditId, observed: observedHow, findings: 0, attributed: 0 };
  const claimed = await deps.idempotency.claim(claimKey, {
    inProgressUntil: deps.clock.now().getTime() + 120_000,
    ttlSeconds: deps.idempotencyTtlSeconds,
  });
  if (claimed !== 'claimed') return { ...base, outcome: 'seen' };
  try {
    const result = await assessOne(deps, ref, key, change, base);
    await deps.idempotency.complete(claimKey, deps.idempotencyTtlSeconds);
    return result;
  } catch (error) {
    await deps.idempotency.release(claimKey).catch(() => undefined);
    throw error;
  }
}

async function assessOne(
  deps: HandleAuditEventDeps,
  ref: KubeClusterRef,
  key: ClusterId,
  change: AuditChange,
  base: Omit<AuditWriteResult, 'outcome'>,
): Promise<AuditWriteResult> {
  const actor = change.actor;
  let awsAuth: ReadResult<Lookup<AwsAuthConfigMap>>;
  if (change.observed.kind === 'object') {
    const stored = await awaitRead(deps.snapshots.latest(key));
    const rv = change.observed.configMap.resourceVersion;
    const latest = stored.ok ? stored.value : undefined;
    if (olderThan(rv, storedRv(latest))) {
      // A later write is stored already: assessing this object would report its undoing.
      return { ...base, outcome: 'superseded', ...(rv === undefined ? {} : { resourceVersion: rv }) };
    }
    awsAuth = await awaitRead(
      Promise.resolve().then(() => ({
        found: true as const,
        value: deps.awsAuthOf((change.observed as { configMap: AuditConfigMap }).configMap),
      })),
    );
  } else {
    awsAuth = await awaitRead(deps.kube.awsAuth(ref));
  }
  const assessed = await assessAwsAuthChange(deps, {
    cluster: ref,
    awsAuth,
    source: 'audit',
    ...(actor === undefined ? {} : { actor }),
  });
  const result: AuditWriteResult = {
    ...base,
    outcome: assessed.outcome,
    findings: assessed.findings.length,
    delivery: assessed.delivery,
    ...(assessed.resourceVersion === undefined ? {} : { resourceVersion: assessed.resourceVersion }),
    ...(assessed.error === undefined ? {} : { error: assessed.error }),
  };
  if (assessed.outcome === 'duplicate' && assessed.claim === 'in-progress') {
    // The detector is alerting on this write right now: try again once it has (Lambda retries).
    throw new Error(
      `aws-auth resourceVersion ${assessed.resourceVersion ?? '?'} of ${ref.clusterName} is being assessed by another path; retry to attribute the writer`,
    );
  }
  const alreadyAssessed =
    assessed.outcome === 'unchanged' || (assessed.outcome === 'duplicate' && assessed.claim === 'completed');
  if (!alreadyAssessed || actor === undefined || assessed.resourceVersion === undefined) return result;
  const latest = await awaitRead(deps.snapshots.latest(key));
  // The stored snapshot of this very write says when it was assessed, so which alerts are its own.
  if (!latest.ok || latest.value === undefined || storedRv(latest.value) !== assessed.resourceVersion)
    return result;
  const { records } = await deps.alerts.load(key);
  const findings: Finding[] = attributeWrite(records as readonly AlertSeen[], {
    cluster: key,
    resourceVersion: assessed.resourceVersion,
    assessedAt: latest.value.capturedAt,
    actor,
  });
  if (findings.length === 0) return result;
  const delivery = await deps.deliver(key, findings, { kind: 'change' });
  // Told once: the attribution closes at once, without a "resolved" notice.
  await deps.deliver(key, [], {
    kind: 'settled',
    fingerprints: findings.map((f) => f.fingerprint),
    unsettled: true,
  });
  return { ...result, attributed: findings.length, delivery };
}
