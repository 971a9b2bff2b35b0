import { type AwsAuthIssue, issueCount, repeatsText } from '../aws-auth/index.ts';
import type { AwsAuthConfigMap, Severity } from '../model.ts';
import { lastWriterOf, writerActor } from './aws-auth-entry-removed.ts';
import { firstOf, kindCounts, MAX_LISTED, moreLine } from './listing.ts';
import type { FindingDraft, Rule } from './types.ts';

const KNOWN_KEYS = ['mapRoles', 'mapUsers', 'mapAccounts'];

function where(i: AwsAuthIssue): string {
  const at = i.line !== undefined ? ` line ${i.line}${i.column !== undefined ? `:${i.column}` : ''}` : '';
  const entry = i.entryIndex !== undefined ? ` entry ${i.entryIndex}` : '';
  return `${i.dataKey}${entry}${at}`;
}

const MAX_LINE_CHARS = 200;
/** What one finding lists at most; the rest is counted ("… and 39,980 more"), so an alert stays readable. */
export const MAX_LISTED_ISSUES = MAX_LISTED;
export const MAX_BROKEN_LINES = MAX_LISTED;

/**
 * The lines of a key's raw value, split once (an alias bomb has tens of thousands of issues, each
 * pointing at a line), with the last non-blank line at or before each line.
 */
class RawLines {
  private readonly all: string[];
  private readonly lastNonBlank: Int32Array;

  constructor(raw: string) {
    this.all = raw.split(/\r\n?|\n/);
    this.lastNonBlank = new Int32Array(this.all.length + 1);
    for (let n = 1; n <= this.all.length; n++) {
      this.lastNonBlank[n] = (this.all[n - 1] ?? '').trim() === '' ? (this.lastNonBlank[n - 1] ?? 0) : n;
    }
  }

  /**
   * The offending line (1-based), cut at 200 characters; renderers sanitise it. A parser that
   * reports the end of the value (an unclosed quote) points at a blank line or past the end: the
   * last non-blank line before it is the one to show.
   */
  broken(line: number | undefined): { line: number; text: string } | undefined {
    if (line === undefined || line < 1) return undefined;
    const n = this.lastNonBlank[Math.min(line, this.all.length)] ?? 0;
    if (n === 0) return undefined;
    const text = (this.all[n - 1] ?? '').trimEnd();
    return { line: n, text: text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text };
  }
}

/** An issue as the evidence keeps it: at most the first entries it repeats at, and their count. */
function evidenceIssue(i: AwsAuthIssue): AwsAuthIssue & { repeatCount?: number } {
  if (i.repeats === undefined) return i;
  return { ...i, repeats: i.repeats.slice(0, MAX_LISTED), repeatCount: i.repeats.length };
}

/**
 * `kind:entryIndex` of every problem, in the parser's order (by entry, a drop after its causes):
 * the repeats of an issue are expanded where their entries stand, so that the fingerprint is the
 * one of the same problems listed one by one.
 */
function fingerprintOf(issues: readonly AwsAuthIssue[]): string {
  const own = (i: AwsAuthIssue) => `${i.kind}:${i.entryIndex ?? ''}`;
  if (!issues.some((i) => i.repeats !== undefined)) return issues.map(own).join(',');
  const at: Array<[entry: number, rank: number, issue: number]> = [];
  issues.forEach((i, n) => {
    const rank = i.kind === 'invalid-entry' ? 1 : 0;
    at.push([i.entryIndex ?? -1, rank, n]);
    for (const e of i.repeats ?? []) at.push([e, rank, n]);
  });
  at.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  return at.map(([e, , n]) => `${(issues[n] as AwsAuthIssue).kind}:${e < 0 ? '' : e}`).join(',');
}

/** The distinct broken lines of `issues` in order of first mention: the first `max` and the total. */
function brokenLinesOf(
  raw: string | undefined,
  issues: readonly AwsAuthIssue[],
  max: number,
): { shown: Array<{ line: number; text: string }>; total: number } {
  if (raw === undefined) return { shown: [], total: 0 };
  const lines = new RawLines(raw);
  const seen = new Set<number>();
  const shown: Array<{ line: number; text: string }> = [];
  for (const i of issues) {
    const b = lines.broken(i.line);
    if (b === undefined || seen.has(b.line)) continue;
    seen.add(b.line);
    if (shown.length < max) shown.push(b);
  }
  return { shown, total: seen.size };
}

/**
 * Issues that lose no mapping: unknown fields, and content after the first document that decodes
 * to no mapping. Content after the first document that maps principals is critical: the mappings
 * read as in force but do not exist for EKS.
 */
function isHint(i: AwsAuthIssue): boolean {
  return (
    i.kind === 'unknown-field' || (i.kind === 'ignored-after-first-document' && i.lost.startsWith('nothing'))
  );
}

/** Keys the authenticator ignores that were obviously meant as one of its keys (`maproles`). */
function isNearMiss(key: string): boolean {
  return KNOWN_KEYS.some((k) => k.toLowerCase() === key.trim().toLowerCase() && k !== key);
}

export const awsAuthParseFailure: Rule = {
  id: 'aws-auth/parse-failure',
  severity: 'critical',
  kinds: ['state'],
  title: 'aws-auth does not parse: mappings are lost',
  meaning:
    'The authenticator parses mapRoles, mapUsers and mapAccounts each on its own and keeps nothing of a key that fails to parse; invalid entries are dropped one by one. One YAML slip in mapRoles unmaps every role, nodes included.',
  fix: 'Fix the YAML at the line given (quote values starting with "{", indent list items consistently) and re-apply; validate with `eks-auth-sentinel assess` before applying.',
  evaluate({ current: a }) {
    if (!a.awsAuth || a.mode === 'API') return [];
    const byKey = new Map<string, AwsAuthIssue[]>();
    for (const issue of a.awsAuth.issues) {
      const relevant =
        issue.kind === 'key-parse-failure' ||
        issue.kind === 'invalid-entry' ||
        issue.kind === 'type-mismatch' ||
        issue.kind === 'unknown-field' ||
        issue.kind === 'ignored-after-first-document' ||
        (issue.kind === 'ignored-key' && isNearMiss(issue.dataKey));
      if (!relevant) continue;
      const list = byKey.get(issue.dataKey) ?? [];
      list.push(issue);
      byKey.set(issue.dataKey, list);
    }
    const configMap: AwsAuthConfigMap | undefined =
      a.snapshot.awsAuth.status === 'ok' ? a.snapshot.awsAuth.data : undefined;
    const out: FindingDraft[] = [];
    for (const [dataKey, issues] of [...byKey].sort(([x], [y]) => x.localeCompare(y))) {
      const onlyHints = issues.every(isHint);
      const onlyLaterDocuments = issues.every((i) => i.kind === 'ignored-after-first-document');
      const severity: Severity = onlyHints ? 'medium' : 'critical';
      const failed = issues.find((i) => i.kind === 'key-parse-failure');
      const raw = configMap?.data[dataKey];
      const broken = brokenLinesOf(raw, issues, MAX_BROKEN_LINES);
      // An issue with repeats stands for several problems (aliases of one node): counted each.
      const total = issues.reduce((n, i) => n + issueCount(i), 0);
      const { listed } = firstOf(issues, MAX_LISTED_ISSUES);
      const unlisted = total - listed.reduce((n, i) => n + issueCount(i), 0);
      const writer = configMap === undefined ? undefined : lastWriterOf(configMap.managedFields, dataKey);
      out.push({
        severity,
        subject: dataKey,
        fingerprintKey: fingerprintOf(issues),
        title: failed
          ? `aws-auth ${dataKey} does not parse: the authenticator keeps none of its mappings`
          : onlyLaterDocuments
            ? `aws-auth ${dataKey}: content after the first YAML document is ignored by the authenticator`
            : onlyHints
              ? `aws-auth ${dataKey} has fields the authenticator ignores`
              : `aws-auth ${dataKey}: ${total} problem(s), entries dropped`,
        detail: [
          // The count first: a channel that cuts a long detail (Slack) still says how much broke.
          ...(unlisted > 0
            ? [
                `${total} problems in ${dataKey} (${kindCounts(issues, (i) => i.kind, issueCount)}); the first ${listed.length}:`,
              ]
            : []),
          ...listed.map((i) => `${where(i)}: ${i.message} — lost: ${i.lost}${repeatsText(i)}`),
          ...moreLine(unlisted, `problem(s) in ${dataKey}`),
          ...broken.shown.map((l) => `${dataKey} line ${l.line}: ${l.text}`),
          ...moreLine(broken.total - broken.shown.length, `broken line(s) in ${dataKey}`),
          ...(writer === undefined
            ? []
            : [
                `Last writer of ${dataKey}: ${writer.manager} (${writer.operation}${writer.time ? `, ${writer.time}` : ''}).`,
              ]),
        ].join('\n'),
        evidence: {
          dataKey,
          issues: listed.map(evidenceIssue),
          brokenLines: broken.shown,
          writer: writer ?? null,
          ...(unlisted > 0 ? { issueCount: total } : {}),
          ...(broken.total > broken.shown.length ? { brokenLineCount: broken.total } : {}),
        },
        ...writerActor(writer),
        remediation: {
          summary: failed
            ? `Fix the YAML of ${dataKey} at ${where(failed)}; until then every mapping in ${dataKey} is ignored.`
            : onlyLaterDocuments
              ? `Keep ${dataKey} one YAML document: move the entries after the "---" at ${where(issues[0] as AwsAuthIssue)} into the first document's list (or remove them).`
              : `Correct or remove the entries listed in ${dataKey}.`,
          notes: [
            'Check a change before applying it: eks-auth-sentinel assess --snapshot <file>.',
            'Move node and Fargate roles to access entries so one YAML slip cannot unmap them.',
          ],
        },
      });
    }
    return out;
  },
};
