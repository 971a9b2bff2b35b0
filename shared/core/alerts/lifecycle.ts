/**
 * The alert lifecycle (docs/design.md#alert-lifecycle), pure: one record per finding fingerprint.
 *   open → notify; severity up → notify again; gone → one "resolved" notice; unchanged → silent.
 * Notices wait in the record per channel until a send succeeds, so a failed send is retried on
 * the next run and nothing is lost silently.
 *
 * What may resolve is bounded by what was evaluated:
 *   - a full state evaluation (schedule, follow-up) resolves state findings that are gone —
 *     but never while a source of that cluster was unreadable: "could not read" is not "fixed";
 *     transition findings (what happened between two snapshots) close then, silently;
 *   - a change evaluation (CloudTrail event) only opens or escalates;
 *   - findings of a change (what-if rules) resolve when the change has settled (`settled`) —
 *     silently when a state finding that confirms it is open (the prediction came true and the
 *     state finding now carries the alert, the damage still open), or when the settled change is
 *     itself the damage (a person's deleted access entry: `Rule.settledIsDamage`): "resolved" is
 *     said only when the risk is really gone, never of a prediction that came true.
 *
 * Prediction → confirmation: when a state finding opens while a change finding it confirms is open
 * (the change rule's `confirmedBy` names its rule, same subject), its notice is `confirmed` — "the
 * predicted … happened" — and carries the prediction (`confirms`), not a fresh `opened`.
 *
 * Bounded by design: above `GROUP_ABOVE` findings of one rule on one cluster, one digest finding
 * (listing the first `GROUP_LISTS` subjects and the count) stands for them all — one record, one
 * notice per channel instead of thousands (6,000 malformed aws-auth entries once made 6,000 SNS
 * and 6,000 Slack notices per run, in a state too large for its DynamoDB item). While a rule is
 * grouped, the open records of its single findings close silently and their pending notices are
 * dropped: the digest carries them.
 */
import { fingerprintOf } from '../fingerprint.ts';
import type { ClusterRef, Finding, Severity } from '../model.ts';
import { compareFindings, severityRank } from '../model.ts';
import { MONITOR_RULES } from '../rules/monitor-rules.ts';
import { blindsTheMonitor } from '../rules/monitor-source-unavailable.ts';

export type Channel = 'sns' | 'slack';
export const CHANNELS: readonly Channel[] = ['sns', 'slack'];

export type NoticeKind = 'opened' | 'escalated' | 'confirmed' | 'resolved';

/** The prediction a `confirmed` notice proves true. */
export interface ConfirmedPrediction {
  fingerprint: string;
  ruleId: string;
  title: string;
  /** When the prediction was first raised (ISO). */
  predictedAt: string;
}

export interface Notice {
  kind: NoticeKind;
  finding: Finding;
  /** When the notice was planned (ISO). */
  at: string;
  /** For a `confirmed` notice: the prediction that came true. */
  confirms?: ConfirmedPrediction;
}

export interface PendingNotice extends Notice {
  attempts: number;
  lastError?: string;
}

export interface AlertRecord {
  fingerprint: string;
  cluster: ClusterRef;
  ruleId: string;
  /**
   * `state` findings come from evaluating a snapshot; `transition` findings report something that
   * happened between two snapshots (a mapping removed, an admin granted); `change` findings come
   * from a predicted change.
   */
  origin: Origin;
  status: 'open' | 'resolved';
  severity: Severity;
  finding: Finding;
  firstSeen: string;
  lastSeen: string;
  /** Notices not yet delivered, per channel. */
  pending: Partial<Record<Channel, PendingNotice[]>>;
}

export type EvaluationScope =
  /** Every state rule ran on a fresh snapshot of the cluster. */
  | { kind: 'state' }
  /** Only the findings of a change (event / what-if); nothing may resolve. */
  | { kind: 'change' }
  /**
   * A follow-up is done with the change: its change findings close. `unsettled`: the follow-ups ran
   * out of attempts before the change settled — nothing shows the risk gone, so they close without
   * a "resolved" notice (the scheduled state checks go on watching what really happened).
   */
  | { kind: 'settled'; fingerprints: readonly string[]; unsettled?: boolean };

export interface ChannelPolicy {
  /** The least severity this channel is told about. Resolved notices follow the opening. */
  minSeverity: Severity;
}

export interface LifecycleInput {
  records: readonly AlertRecord[];
  findings: readonly Finding[];
  scope: EvaluationScope;
  now: string;
  channels: Partial<Record<Channel, ChannelPolicy>>;
}

export interface LifecycleResult {
  /** Records to store (changed or not); resolved records with nothing pending may be dropped. */
  records: AlertRecord[];
  /** Notices to send now, per channel: earlier pending ones first. */
  outbox: Record<Channel, PendingNotice[]>;
}

export type Origin = 'state' | 'transition' | 'change';

/** The monitor's rules only: a parity finding (`compare`) never enters the alert lifecycle. */
const ORIGIN_BY_RULE = new Map<string, Origin>(
  MONITOR_RULES.map((r) => [
    r.id,
    r.kinds.includes('state') ? 'state' : r.kinds.includes('transition') ? 'transition' : 'change',
  ]),
);

/**
 * How a finding was seen. A rule of several kinds may say so in `evidence.basis` (e.g.
 * fargate/entry-not-in-iac, seen between two snapshots, cannot be seen again on the next one).
 */
export function originOf(f: Finding): Origin {
  const basis = f.evidence.basis;
  if (basis === 'state' || basis === 'transition' || basis === 'change') return basis;
  return ORIGIN_BY_RULE.get(f.ruleId) ?? 'state';
}

const CONFIRMED_BY = new Map<string, readonly string[] | undefined>(
  MONITOR_RULES.map((r) => [r.id, r.confirmedBy]),
);
/** Change rules whose change, once settled, is the damage itself (`Rule.settledIsDamage`). */
const SETTLED_IS_DAMAGE = new Set(MONITOR_RULES.filter((r) => r.settledIsDamage).map((r) => r.id));

/**
 * Whether the state finding `state` is the damage the change finding of `prediction` foretold:
 * the same subject, of a rule the change rule names (any state rule if it names none).
 */
export function confirmsPrediction(state: Finding, prediction: AlertRecord): boolean {
  if (prediction.origin !== 'change' || originOf(state) !== 'state') return false;
  if (state.subject.toLowerCase() !== prediction.finding.subject.toLowerCase()) return false;
  const { accountId, region, name } = state.cluster;
  const c = prediction.cluster;
  if (c.accountId !== accountId || c.region !== region || c.name !== name) return false;
  const rules = CONFIRMED_BY.get(prediction.ruleId);
  return rules === undefined || rules.includes(state.ruleId);
}

/** A blind cluster cannot prove anything fixed. */
function blind(findings: readonly Finding[]): boolean {
  return findings.some(blindsTheMonitor);
}

function enqueue(
  record: AlertRecord,
  kind: NoticeKind,
  finding: Finding,
  now: string,
  channels: LifecycleInput['channels'],
  confirms?: ConfirmedPrediction,
): void {
  for (const channel of CHANNELS) {
    const policy = channels[channel];
    if (!policy) continue;
    // A resolved notice goes wherever the opening went: judge it by the severity it had.
    const severity = kind === 'resolved' ? record.severity : finding.severity;
    if (severityRank(severity) < severityRank(policy.minSeverity)) continue;
    const list = record.pending[channel] ?? [];
    list.push({ kind, finding, at: now, attempts: 0, ...(confirms ? { confirms } : {}) });
    record.pending[channel] = list;
  }
}

/**
 * Above this many findings of one rule on one cluster they are grouped into one digest. 20 keeps
 * every real incident itemised (the scenarios raise at most a handful per rule) while bounding a
 * cluster's state to about 20 records per rule, well inside one DynamoDB item.
 */
export const GROUP_ABOVE = 20;
/** A digest names this many subjects, the most severe first, and counts the rest. */
export const GROUP_LISTS = 10;

const groupKey = (f: Pick<Finding, 'ruleId' | 'cluster'>) =>
  `${f.cluster.accountId}\u0000${f.cluster.region}\u0000${f.cluster.name}\u0000${f.ruleId}`;

function digestOf(members: readonly Finding[]): Finding {
  const sorted = [...members].sort(compareFindings);
  const first = sorted[0] as Finding;
  const listed = sorted.slice(0, GROUP_LISTS);
  const more = sorted.length - listed.length;
  const { accountId, region, name } = first.cluster;
  return {
    ruleId: first.ruleId,
    severity: first.severity,
    cluster: first.cluster,
    subject: `${sorted.length} subjects`,
    title: `${sorted.length} findings of ${first.ruleId} on ${name} (grouped), e.g. ${first.title}`,
    detail: [
      ...listed.map((f) => `- ${f.subject}: ${f.title}`),
      ...(more > 0 ? [`…and ${more} more of the same rule.`] : []),
    ].join('\n'),
    evidence: { grouped: sorted.length, subjects: listed.map((f) => f.subject) },
    ...(first.remediation === undefined ? {} : { remediation: { summary: first.remediation.summary } }),
    trigger: first.trigger,
    fingerprint: fingerprintOf([first.ruleId, accountId, region, name, 'digest', '']),
  };
}

/** Findings with every rule of more than `GROUP_ABOVE` findings on a cluster replaced by its digest. */
export function groupFindings(findings: readonly Finding[]): { findings: Finding[]; grouped: Set<string> } {
  const byRule = new Map<string, Finding[]>();
  for (const f of findings) {
    const list = byRule.get(groupKey(f)) ?? [];
    list.push(f);
    byRule.set(groupKey(f), list);
  }
  const grouped = new Set([...byRule].filter(([, list]) => list.length > GROUP_ABOVE).map(([k]) => k));
  const out: Finding[] = [];
  for (const f of findings) {
    const k = groupKey(f);
    if (!grouped.has(k)) out.push(f);
    else if (byRule.get(k)?.[0] === f) out.push(digestOf(byRule.get(k) ?? []));
  }
  return { findings: out, grouped };
}

export function planAlerts(input: LifecycleInput): LifecycleResult {
  const { scope, now, channels } = input;
  const byPrint = new Map(input.records.map((r) => [r.fingerprint, structuredClone(r)] as const));
  const seen = new Set<string>();
  const { findings, grouped } = groupFindings(input.findings);
  /** Predictions open before this evaluation, that a state finding opening now may confirm. */
  const openPredictions = [...byPrint.values()].filter((r) => r.status === 'open' && r.origin === 'change');

  for (const finding of findings) {
    seen.add(finding.fingerprint);
    const record = byPrint.get(finding.fingerprint);
    if (!record || record.status === 'resolved') {
      const fresh: AlertRecord = record ?? {
        fingerprint: finding.fingerprint,
        cluster: finding.cluster,
        ruleId: finding.ruleId,
        origin: originOf(finding),
        status: 'open',
        severity: finding.severity,
        finding,
        firstSeen: now,
        lastSeen: now,
        pending: {},
      };
      Object.assign(fresh, { status: 'open', severity: finding.severity, finding, lastSeen: now });
      const prediction = openPredictions.find((p) => confirmsPrediction(finding, p));
      if (prediction)
        enqueue(fresh, 'confirmed', finding, now, channels, {
          fingerprint: prediction.fingerprint,
          ruleId: prediction.ruleId,
          title: prediction.finding.title,
          predictedAt: prediction.firstSeen,
        });
      else enqueue(fresh, 'opened', finding, now, channels);
      byPrint.set(finding.fingerprint, fresh);
      continue;
    }
    const escalated = severityRank(finding.severity) > severityRank(record.severity);
    record.lastSeen = now;
    record.finding = finding;
    if (escalated) {
      record.severity = finding.severity;
      enqueue(record, 'escalated', finding, now, channels);
    }
  }

  const mayResolve = (r: AlertRecord): boolean => {
    if (r.status !== 'open' || seen.has(r.fingerprint)) return false;
    if (scope.kind === 'settled') return r.origin === 'change' && scope.fingerprints.includes(r.fingerprint);
    if (scope.kind === 'state') return r.origin !== 'change' && !blind(input.findings);
    return false;
  };
  // A settled prediction whose subject is an open state finding (the outage it foretold — its
  // confirmation — or what remains of it) closes without a "resolved" notice: the risk is not
  // gone, and the state finding carries on.
  const openStateSubjects = new Set(
    [...byPrint.values()]
      .filter((r) => r.status === 'open' && r.origin === 'state')
      .map((r) => r.finding.subject.toLowerCase()),
  );
  const cameTrue = (r: AlertRecord) =>
    SETTLED_IS_DAMAGE.has(r.finding.ruleId) || openStateSubjects.has(r.finding.subject.toLowerCase());
  for (const r of byPrint.values()) {
    // Absorbed into a digest: closed silently, its pending notices dropped (the digest carries them).
    if (
      scope.kind !== 'change' &&
      r.status === 'open' &&
      !seen.has(r.fingerprint) &&
      grouped.has(groupKey(r.finding))
    ) {
      r.status = 'resolved';
      r.lastSeen = now;
      r.pending = {};
      continue;
    }
    if (!mayResolve(r)) continue;
    r.status = 'resolved';
    r.lastSeen = now;
    if (scope.kind === 'settled' && (scope.unsettled === true || cameTrue(r))) continue;
    // Something that happened (a mapping removed) is not undone by the next evaluation: it was
    // reported once, and it closes without a "resolved" notice.
    if (r.origin === 'transition') continue;
    enqueue(r, 'resolved', r.finding, now, channels);
  }

  const outbox: Record<Channel, PendingNotice[]> = { sns: [], slack: [] };
  const records = [...byPrint.values()].sort((a, b) => a.fingerprint.localeCompare(b.fingerprint));
  for (const r of records) {
    for (const channel of CHANNELS) outbox[channel].push(...(r.pending[channel] ?? []));
  }
  for (const channel of CHANNELS) outbox[channel].sort((a, b) => a.at.localeCompare(b.at));
  return { records, outbox };
}

/**
 * After sending: drop what was delivered, keep what failed with its attempt count and error.
 * `delivered` holds the notices (by identity within the outbox) a channel accepted.
 */
export function recordDeliveries(
  records: readonly AlertRecord[],
  results: Partial<Record<Channel, { delivered: ReadonlySet<PendingNotice>; error?: string }>>,
  outbox: Record<Channel, PendingNotice[]>,
): AlertRecord[] {
  const keyOf = (n: Notice) => `${n.kind}\u0000${n.finding.fingerprint}\u0000${n.at}`;
  const next = records.map((r) => structuredClone(r));
  for (const channel of CHANNELS) {
    const result = results[channel];
    if (!result) continue;
    const done = new Set([...result.delivered].map(keyOf));
    const tried = new Set(outbox[channel].map(keyOf));
    for (const r of next) {
      const list = r.pending[channel];
      if (!list) continue;
      const left = list
        .filter((n) => !done.has(keyOf(n)))
        .map((n) =>
          tried.has(keyOf(n))
            ? { ...n, attempts: n.attempts + 1, ...(result.error ? { lastError: result.error } : {}) }
            : n,
        );
      if (left.length > 0) r.pending[channel] = left;
      else delete r.pending[channel];
    }
  }
  return next;
}

/** Resolved records with nothing left to deliver need not be kept. */
export function isSpent(r: AlertRecord): boolean {
  return r.status === 'resolved' && CHANNELS.every((c) => !r.pending[c]?.length);
}
