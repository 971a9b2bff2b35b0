/**
 * deliverAlerts: the alert lifecycle (shared/core/alerts/lifecycle.ts) wired to its state and its channels.
 *
 *   load → planAlerts → save the plan, notices pending → send per channel, in parallel (one
 *   failing channel never stops another) → recordDeliveries → save again, notices marked sent.
 *   State is saved before anything is (re-)sent: a state that cannot be stored (too large, a
 *   store failure) sends nothing, instead of sending every notice again on every run. Saves are
 *   optimistic: on ConcurrentUpdateError the whole plan runs once more on the state the other
 *   writer saved, without re-sending what this run delivered.
 *   → if a notice has now failed `maxAttempts` times, throw `DeliveryError` — after saving, so the
 *   pending notices stay stored while the Lambda retries, the message goes to the DLQ and the
 *   alarm fires.
 *
 * Channels without a sender are left out of the plan: a notice is only ever queued for a channel
 * that can deliver it.
 *
 * Slack threads (bot-token mode, shared/core/alerts/threads.ts): each sender is told which thread a
 * notice continues and what a thread's first message shows after this run; the thread a sender
 * reports for a delivered notice is stored on its record, and a resolved record stays stored while
 * its thread still has an open alert.
 */

import {
  type AlertRecord,
  CHANNELS,
  type Channel,
  type ChannelPolicy,
  type EvaluationScope,
  type LifecycleResult,
  type PendingNotice,
  planAlerts,
  planSlackThreads,
  recordDeliveries,
  recordsToKeep,
  type SlackThreadRef,
  type ThreadedRecord,
} from '../core/alerts/index.ts';
import type { ClusterId, Finding } from '../core/model.ts';
import { ConcurrentUpdateError } from '../errors.ts';
import type {
  AlertStore,
  Clock,
  DeliveryResult,
  DeliverySummary,
  NoticeSender,
  SendContext,
} from '../ports.ts';
import { DeliveryError } from './errors.ts';

/** A notice that failed this many sends makes `deliverAlerts` throw (after saving). */
export const DEFAULT_MAX_ATTEMPTS = 3;

export interface DeliverAlertsDeps {
  alerts: AlertStore;
  senders: readonly NoticeSender[];
  clock: Clock;
}

export interface DeliverAlertsOptions {
  /** Default 3. */
  maxAttempts?: number;
}

/** What identifies a notice across two plans of the same run (`at` differs between plans). */
function identity(channel: Channel, n: PendingNotice): string {
  return `${channel}\u0000${n.kind}\u0000${n.finding.fingerprint}\u0000${n.finding.severity}`;
}

function safeMessage(error: unknown): string {
  // Senders report their own safe messages; an exception that escapes one is summarised by name only.
  return error instanceof Error ? `${error.name} while sending` : 'unknown error while sending';
}

/** Where each notice goes in a Slack channel, from the plan's records. */
function sendContext(records: readonly ThreadedRecord[]): SendContext {
  return { slackThreads: (notices, channel) => planSlackThreads(notices, records, channel) };
}

async function sendAll(
  senders: readonly NoticeSender[],
  plan: LifecycleResult,
  alreadyDelivered: ReadonlySet<string>,
): Promise<{
  results: Partial<Record<Channel, { delivered: ReadonlySet<PendingNotice>; error?: string }>>;
  delivered: string[];
  threads: Map<string, SlackThreadRef>;
  sent: number;
  failed: number;
  errors: Partial<Record<Channel, string>>;
}> {
  const context = sendContext(plan.records);
  const threads = new Map<string, SlackThreadRef>();
  const results: Partial<Record<Channel, { delivered: ReadonlySet<PendingNotice>; error?: string }>> = {};
  const delivered: string[] = [];
  const errors: Partial<Record<Channel, string>> = {};
  let sent = 0;
  let failed = 0;
  await Promise.all(
    senders.map(async (sender) => {
      const { channel } = sender;
      const outbox = plan.outbox[channel];
      if (outbox.length === 0) return;
      // Delivered by the first attempt of this run: record it without sending again.
      const done = outbox.filter((n) => alreadyDelivered.has(identity(channel, n)));
      const toSend = outbox.filter((n) => !alreadyDelivered.has(identity(channel, n)));
      let result: DeliveryResult = { delivered: new Set() };
      if (toSend.length > 0) {
        try {
          result = await sender.send(toSend, context);
        } catch (error) {
          result = { delivered: new Set(), error: safeMessage(error) };
        }
      }
      const accepted = new Set<PendingNotice>([...done, ...toSend.filter((n) => result.delivered.has(n))]);
      for (const [n, thread] of result.threads ?? []) threads.set(n.finding.fingerprint, thread);
      results[channel] =
        result.error === undefined ? { delivered: accepted } : { delivered: accepted, error: result.error };
      for (const n of toSend) {
        if (accepted.has(n)) {
          sent += 1;
          delivered.push(identity(channel, n));
        } else failed += 1;
      }
      if (toSend.some((n) => !accepted.has(n)))
        errors[channel] = result.error ?? 'not accepted by the channel';
    }),
  );
  return { results, delivered, threads, sent, failed, errors };
}

/** Records with the threads this run started or joined (carried over a re-plan too). */
function withThreads(
  records: readonly AlertRecord[],
  threads: ReadonlyMap<string, SlackThreadRef>,
): ThreadedRecord[] {
  return records.map((r) => {
    const thread = threads.get(r.fingerprint);
    return thread === undefined ? r : { ...r, slackThread: thread };
  });
}

function pendingCount(records: readonly AlertRecord[]): number {
  let n = 0;
  for (const r of records) for (const list of Object.values(r.pending)) n += list?.length ?? 0;
  return n;
}

function clusterName(key: ClusterId): string {
  return `${key.clusterName} (account ${key.accountId}, region ${key.region})`;
}

export async function deliverAlerts(
  deps: DeliverAlertsDeps,
  key: ClusterId,
  findings: readonly Finding[],
  scope: EvaluationScope,
  channels: Partial<Record<Channel, ChannelPolicy>>,
  options: DeliverAlertsOptions = {},
): Promise<Required<DeliverySummary>> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const served = new Set(deps.senders.map((s) => s.channel));
  const policy: Partial<Record<Channel, ChannelPolicy>> = {};
  for (const [channel, p] of Object.entries(channels) as Array<[Channel, ChannelPolicy | undefined]>) {
    if (p !== undefined && served.has(channel)) policy[channel] = p;
  }

  const deliveredThisRun = new Set<string>();
  const threadsThisRun = new Map<string, SlackThreadRef>();
  let sent = 0;
  let failed = 0;
  let errors: Partial<Record<Channel, string>> = {};
  let saved: AlertRecord[] | undefined;

  for (let attempt = 1; saved === undefined; attempt++) {
    const { records, version } = await deps.alerts.load(key);
    const planned = planAlerts({
      records,
      findings,
      scope,
      now: deps.clock.now().toISOString(),
      channels: policy,
    });
    const plan = { ...planned, records: withThreads(planned.records, threadsThisRun) };
    const anything = CHANNELS.some((c) => plan.outbox[c].length > 0);
    let current = version;
    if (anything) {
      try {
        current = await deps.alerts.save(key, recordsToKeep(plan.records), version);
      } catch (error) {
        if (!(error instanceof ConcurrentUpdateError) || attempt >= 3) throw error;
        continue;
      }
    }
    const run = await sendAll(deps.senders, plan, deliveredThisRun);
    for (const id of run.delivered) deliveredThisRun.add(id);
    for (const [fingerprint, thread] of run.threads) threadsThisRun.set(fingerprint, thread);
    sent += run.sent;
    failed = run.failed;
    errors = run.errors;
    const next = recordsToKeep(
      withThreads(recordDeliveries(plan.records, run.results, plan.outbox), threadsThisRun),
    );
    try {
      await deps.alerts.save(key, next, current);
      saved = next;
    } catch (error) {
      if (!(error instanceof ConcurrentUpdateError) || attempt >= 3) throw error;
    }
  }

  const summary: Required<DeliverySummary> = { sent, failed, pending: pendingCount(saved), errors };
  const exhausted: DeliveryError['exhausted'] = {};
  for (const r of saved) {
    for (const [channel, list] of Object.entries(r.pending) as Array<
      [Channel, PendingNotice[] | undefined]
    >) {
      for (const n of list ?? []) {
        if (n.attempts < maxAttempts) continue;
        const entry = exhausted[channel] ?? { notices: 0 };
        entry.notices += 1;
        if (n.lastError !== undefined) entry.lastError = n.lastError;
        exhausted[channel] = entry;
      }
    }
  }
  const failing = Object.entries(exhausted) as Array<[Channel, { notices: number; lastError?: string }]>;
  if (failing.length > 0) {
    const what = failing
      .map(
        ([c, e]) =>
          `${c}: ${e.notices} notice${e.notices === 1 ? '' : 's'}${e.lastError ? ` (${e.lastError})` : ''}`,
      )
      .join('; ');
    throw new DeliveryError(
      `Alert delivery for cluster ${clusterName(key)} failed ${maxAttempts} or more times — ${what}; the notices stay stored and are retried on the next run`,
      { cluster: key, exhausted, summary },
    );
  }
  return summary;
}
