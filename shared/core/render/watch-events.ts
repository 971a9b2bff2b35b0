/**
 * The events of `eks-auth-sentinel watch`, one per line as they happen: NDJSON (`--format json`,
 * one object per line) or one readable line each (`text`). Every string that came from the
 * cluster (ARNs, field managers, titles quoting them) is attacker-written: the text line makes
 * it one sanitised line, the JSON line is JSON-encoded (`jsonText`). Pure.
 */

import type { Actor, ClusterRef, Finding } from '../model.ts';
import { jsonText } from '../quote/index.ts';
import { findingToJson } from './json.ts';
import { actorLine, oneLine } from './layout.ts';

/** Where a change was seen: aws-auth (watch), or the EKS side (polled). */
export type WatchSource = 'aws-auth' | 'access-entries' | 'nodegroups' | 'fargate-profiles' | 'auth-mode';

/** One remediation action (or dry-run "would do"), as the watch reports it. */
export interface WatchAction {
  kind: 'create-access-entry' | 'restore-aws-auth-entries';
  principalArn: string;
  dryRun: boolean;
  result: 'done' | 'would-do' | 'already-present' | 'conflict' | 'forbidden' | 'failed';
  detail: string;
}

/** A finding of a change with what the alert lifecycle made of it. */
export interface WatchFinding {
  notice: 'opened' | 'escalated' | 'confirmed' | 'resolved';
  finding: Finding;
}

export type WatchEvent =
  | {
      type: 'ready';
      at: string;
      cluster: ClusterRef;
      authenticationMode: string;
      /** aws-auth's resourceVersion the watch follows from (absent: no aws-auth). */
      resourceVersion?: string;
      remediate: 'off' | 'dry-run' | 'on';
      /** Every state finding of the first read. */
      findings: readonly Finding[];
    }
  | {
      type: 'change' | 'prediction';
      at: string;
      source: WatchSource;
      /** What was seen, one line (`nodegroup ng-a DELETING`, `aws-auth resourceVersion 4243`). */
      summary: string;
      resourceVersion?: string;
      actor?: Actor;
      /** aws-auth: the entries no longer mapped and the ones mapped anew (ARNs as written). */
      removed?: readonly string[];
      added?: readonly string[];
      findings: readonly WatchFinding[];
      actions: readonly WatchAction[];
    }
  | { type: 'note'; at: string; text: string }
  | { type: 'unreadable'; at: string; source: WatchSource; error: string }
  | { type: 'end'; at: string; reason: 'duration' | 'signal' | 'error'; changes: number };

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function actorJson(a: Actor): Json {
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(a)) if (typeof value === 'string') out[key] = value;
  return out;
}

function eventJson(e: WatchEvent): Json {
  switch (e.type) {
    case 'ready': {
      const out: { [key: string]: Json } = {
        type: e.type,
        at: e.at,
        cluster: { accountId: e.cluster.accountId, region: e.cluster.region, name: e.cluster.name },
        authenticationMode: e.authenticationMode,
      };
      if (e.resourceVersion !== undefined) out.resourceVersion = e.resourceVersion;
      out.remediate = e.remediate;
      out.findings = e.findings.map(findingToJson);
      return out;
    }
    case 'change':
    case 'prediction': {
      const out: { [key: string]: Json } = { type: e.type, at: e.at, source: e.source, summary: e.summary };
      if (e.resourceVersion !== undefined) out.resourceVersion = e.resourceVersion;
      if (e.actor !== undefined) out.actor = actorJson(e.actor);
      if (e.removed !== undefined) out.removed = [...e.removed];
      if (e.added !== undefined) out.added = [...e.added];
      out.findings = e.findings.map((w) => ({ notice: w.notice, ...(findingToJson(w.finding) as object) }));
      out.actions = e.actions.map((a) => ({ ...a }));
      return out;
    }
    default:
      return { ...e };
  }
}

function findingWord(n: number): string {
  return `${n} finding${n === 1 ? '' : 's'}`;
}

function eventText(e: WatchEvent): string {
  switch (e.type) {
    case 'ready':
      return `${e.at} ready ${oneLine(e.cluster.region)}/${oneLine(e.cluster.name)} (${oneLine(e.authenticationMode)}${e.resourceVersion === undefined ? ', no aws-auth' : `, aws-auth resourceVersion ${oneLine(e.resourceVersion)}`}): ${findingWord(e.findings.length)}, remediation ${e.remediate}`;
    case 'change':
    case 'prediction': {
      const who = actorLine(e.actor);
      const head = `${e.at} ${e.type} ${e.source}: ${oneLine(e.summary)}${who === undefined ? '' : ` by ${who}`}`;
      const notices = e.findings.map(
        (w) =>
          `; ${w.notice} ${w.finding.severity.toUpperCase()} ${w.finding.ruleId}: ${oneLine(w.finding.title)}`,
      );
      const actions = e.actions.map(
        (a) => `; action ${a.kind} ${oneLine(a.principalArn)}: ${a.result}${a.dryRun ? ' (dry-run)' : ''}`,
      );
      return `${head}${notices.length === 0 ? ' (no new finding)' : notices.join('')}${actions.join('')}`;
    }
    case 'note':
      return `${e.at} note: ${oneLine(e.text)}`;
    case 'unreadable':
      return `${e.at} unreadable ${e.source}: ${oneLine(e.error)}`;
    case 'end':
      return `${e.at} end (${e.reason}): ${e.changes} change(s) seen`;
  }
}

/** One event as one line (newline included): NDJSON for `json`, readable for `text`. */
export function renderWatchEvent(event: WatchEvent, format: 'text' | 'json'): string {
  return format === 'json' ? `${jsonText(eventJson(event))}\n` : `${eventText(event)}\n`;
}
