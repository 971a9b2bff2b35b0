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
import type { AlertRecord, Notice, PendingNotice } from './lifecycle.ts';
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

/** The notices of one thread of the channel: its replies, then the edit of its first message. */
export interface ThreadReplies<N extends Notice = PendingNotice> {
  thread: SlackThreadRef;
  notices: N[];
  /**
   * The notices whose reply is also shown in the channel (`reply_broadcast`): those that open or
   * escalate something; a resolution stays in the thread. A message carrying one is broadcast.
   */
  broadcast: ReadonlySet<N>;
  /** What the thread's first message shows after this run (`threadBoard`); empty: not edited. */
  board: Notice[];
}

/** Where each notice of one Slack send goes (bot-token mode). */
export interface SlackThreadPlan<N extends Notice = PendingNotice> {
  /**
   * New incidents: posted to the channel, the first message starting the thread that the rest of
   * them (an alert storm split over several messages) continue.
   */
  fresh: N[];
  /** Notices that continue a thread of this channel, one entry per thread in first-seen order. */
  replies: ThreadReplies<N>[];
}

/**
 * The threading of `notices` sent to `channel`: a notice whose record has a thread in this channel
 * (its own or a record's on the same subject, `threadOfRecord`) is a reply there; any other starts
 * a new incident (a thread in another channel cannot be replied to).
 */
export function planSlackThreads<N extends Notice>(
  notices: readonly N[],
  records: readonly ThreadedRecord[],
  channel: string,
): SlackThreadPlan<N> {
  const byPrint = new Map(records.map((r) => [r.fingerprint, r] as const));
  const fresh: N[] = [];
  const replies = new Map<string, ThreadReplies<N> & { broadcast: Set<N> }>();
  for (const n of notices) {
    const record = byPrint.get(n.finding.fingerprint);
    const thread = record === undefined ? undefined : threadOfRecord(record, records);
    if (thread === undefined || thread.channel !== channel) {
      fresh.push(n);
      continue;
    }
    const key = threadKey(thread);
    let group = replies.get(key);
    if (group === undefined) {
      group = { thread, notices: [], broadcast: new Set(), board: threadBoard(thread, records) };
      replies.set(key, group);
    }
    group.notices.push(n);
    if (n.kind !== 'resolved') group.broadcast.add(n);
  }
  return { fresh, replies: [...replies.values()] };
}
