/**
 * Slack threads of alerts (bot-token mode), pure. The first message of an incident is posted to
 * the channel; its `ts` is stored on the alert records it announced (`slackThread`). Later notices
 * about the same thing — an escalation, the state finding that confirms a prediction, the
 * resolution — are replies in that thread, and the first message is edited to show where each of
 * its alerts stands now.
 *
 * A record's thread is its own, or else the thread of another record of the cluster about the same
 * subject (case-insensitive): that is how the confirmation of a prediction (a state finding, a new
 * fingerprint) finds the prediction's thread. The field rides on the alert record as stored; the
 * lifecycle (alerts.ts) clones records whole, so it survives planning untouched.
 */
import type { AlertRecord, Notice } from './lifecycle.ts';
import { isSpent } from './lifecycle.ts';

/** A Slack message that starts a thread: channel ID and message `ts`. */
export interface SlackThreadRef {
  channel: string;
  ts: string;
}

/** An alert record as stored, with the Slack thread that announced it (bot-token mode). */
export type ThreadedRecord = AlertRecord & { slackThread?: SlackThreadRef };

const sameThread = (a: SlackThreadRef, b: SlackThreadRef) => a.channel === b.channel && a.ts === b.ts;

export function threadKey(t: SlackThreadRef): string {
  return `${t.channel}\u0000${t.ts}`;
}

/** The thread a record's notices go to: its own, else the newest one of a record on the same subject. */
export function threadOfRecord(
  record: ThreadedRecord,
  records: readonly ThreadedRecord[],
): SlackThreadRef | undefined {
  if (record.slackThread !== undefined) return record.slackThread;
  const subject = record.finding.subject.toLowerCase();
  let best: ThreadedRecord | undefined;
  for (const r of records) {
    if (r === record || r.slackThread === undefined) continue;
    if (r.finding.subject.toLowerCase() !== subject) continue;
    if (best === undefined || r.lastSeen > best.lastSeen) best = r;
  }
  return best?.slackThread;
}

/**
 * What the thread's first message shows after this run: each record of the thread as it stands,
 * open ones whole (as when they opened), resolved ones as resolved. Most severe first (the renderer
 * orders them).
 */
export function threadBoard(thread: SlackThreadRef, records: readonly ThreadedRecord[]): Notice[] {
  const out: Notice[] = [];
  for (const r of records) {
    const t = threadOfRecord(r, records);
    if (t === undefined || !sameThread(t, thread)) continue;
    out.push(
      r.status === 'resolved'
        ? { kind: 'resolved', finding: r.finding, at: r.lastSeen }
        : { kind: 'opened', finding: r.finding, at: r.firstSeen },
    );
  }
  return out;
}

/**
 * The records to store: spent ones are dropped (alerts.ts `isSpent`), except a resolved record
 * whose thread still has an open alert — the thread's first message is edited from the records, so
 * they stay until the whole thread is resolved.
 */
export function recordsToKeep(records: readonly ThreadedRecord[]): ThreadedRecord[] {
  const openThreads = new Set<string>();
  for (const r of records) {
    if (r.status !== 'open') continue;
    const t = threadOfRecord(r, records);
    if (t !== undefined) openThreads.add(threadKey(t));
  }
  return records.filter(
    (r) => !isSpent(r) || (r.slackThread !== undefined && openThreads.has(threadKey(r.slackThread))),
  );
}
