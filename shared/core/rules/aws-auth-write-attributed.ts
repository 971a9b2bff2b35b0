/**
 * Who wrote aws-auth, told after the alert. The detector (a poll or a watch) alerts on a write
 * within seconds with what Kubernetes recorded (the field manager); the audit log names the IAM
 * principal minutes later (CloudWatch Logs delivery is best effort). This finding carries that
 * writer to each alert the write opened: same subject, so in bot-token mode it is a reply in the
 * alert's Slack thread (core/alerts `threadOfRecord`), and same severity, so it reaches every
 * channel the alert reached. It is made by `attributeWrite` from the alert records, never by the
 * engine (a snapshot does not know who wrote it).
 */
import { fingerprintOf } from '../fingerprint.ts';
import { type Actor, type ClusterId, clusterRefOf, type Finding, type Severity } from '../model.ts';
import type { Rule } from './types.ts';

export const WRITE_ATTRIBUTED = 'aws-auth/write-attributed';

/** Alerts opened this long after the assessment that stored the write are still its own. */
export const ATTRIBUTION_WINDOW_MS = 10 * 60_000;

export const awsAuthWriteAttributed: Rule = {
  id: WRITE_ATTRIBUTED,
  severity: 'high',
  kinds: ['change'],
  title: 'Who wrote aws-auth (from the audit log)',
  meaning:
    'An alert about an aws-auth write was sent before the Kubernetes audit log named the writer. When the audit event arrives (CloudWatch Logs subscription, best effort), the IAM principal, Kubernetes user, user agent and source IP are added to the alert — in its Slack thread in bot-token mode.',
  fix: 'Nothing to fix on its own: it names who to ask about the alert it follows.',
  evaluate: () => [],
};

function who(actor: Actor): string {
  return actor.sessionName !== undefined
    ? `${actor.sessionName} (assumed-role ${actor.roleName ?? '?'})`
    : (actor.arn ?? actor.username ?? 'an unnamed principal');
}

/** What is read of an alert record (core/alerts `AlertRecord`; the rules do not import the lifecycle). */
export interface AlertSeen {
  fingerprint: string;
  status: 'open' | 'resolved';
  severity: Severity;
  firstSeen: string;
  finding: Finding;
}

export interface AttributedWrite {
  cluster: ClusterId;
  /** The resourceVersion the audit event's write left. */
  resourceVersion: string;
  /** When the write was assessed and stored (the time the stored snapshot of the write carries). */
  assessedAt: string;
  actor: Actor;
}

/**
 * One finding per alert the write opened: open records of an aws-auth path
 * (`event:aws-auth-*` trigger) first seen from the assessment on, within `ATTRIBUTION_WINDOW_MS`,
 * and not already attributed by the audit log. Empty when no alert is the write's.
 */
export function attributeWrite(records: readonly AlertSeen[], write: AttributedWrite): Finding[] {
  const from = Date.parse(write.assessedAt);
  if (Number.isNaN(from)) return [];
  const cluster = clusterRefOf(write.cluster);
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    const f = r.finding;
    if (r.status !== 'open' || f.ruleId === WRITE_ATTRIBUTED) continue;
    if (!f.trigger.startsWith('event:aws-auth-')) continue;
    if (f.actor?.source === 'audit') continue;
    const first = Date.parse(r.firstSeen);
    if (Number.isNaN(first) || first < from || first > from + ATTRIBUTION_WINDOW_MS) continue;
    const subject = f.subject;
    if (seen.has(subject.toLowerCase())) continue;
    seen.add(subject.toLowerCase());
    out.push({
      ruleId: WRITE_ATTRIBUTED,
      severity: r.severity,
      cluster,
      subject,
      title: `aws-auth write (resourceVersion ${write.resourceVersion}) was made by ${who(write.actor)}`,
      detail: `The Kubernetes audit log names the writer of the aws-auth change alerted as "${f.title}".`,
      evidence: { resourceVersion: write.resourceVersion, alert: r.fingerprint, alertRuleId: f.ruleId },
      trigger: 'event:aws-auth-audit',
      actor: write.actor,
      fingerprint: fingerprintOf([
        WRITE_ATTRIBUTED,
        cluster.accountId,
        cluster.region,
        cluster.name,
        subject,
        write.resourceVersion,
      ]),
    });
  }
  return out;
}
