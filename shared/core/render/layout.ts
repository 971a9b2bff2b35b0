/**
 * What the text, Markdown and JSON renderers share: the order of findings, severity counts,
 * the size bound (keep the most severe findings whole, count the rest) and code fences.
 * Pure; imports nothing but core types.
 */
import type { ConfirmedPrediction, Notice } from '../alerts/lifecycle.ts';
import {
  type Actor,
  type ClusterRef,
  compareFindings,
  type Finding,
  type Remediation,
  SEVERITIES,
  type Severity,
  severityRank,
} from '../model.ts';
import type { SimulationEffect } from '../predict/engine.ts';
import { showInvisible } from '../quote/unicode.ts';

export interface RenderOptions {
  /** A heading for the report; a default one is used when absent. */
  title?: string;
  /** Upper bound on the output length in characters (UTF-16 code units). */
  maxChars?: number;
  /** ANSI colour (text only). */
  color?: boolean;
  /** The cluster the report is about: named in the heading and in an empty result. */
  cluster?: ClusterRef;
  /** A what-if's change, as a human label (see `describeChange`). */
  change?: string;
  /** A what-if's simulated side effects, printed above the findings. */
  effects?: ReadonlyArray<SimulationEffect>;
  /** One line per finding instead of the full block (text and Markdown). */
  compact?: boolean;
  /** Who made the change a what-if replays (its CloudTrail record or audit event); JSON only. */
  actor?: Actor;
}

export const DEFAULT_MAX_CHARS = 200_000;

/**
 * The Terraform resource address of the plan change a finding comes from (`whatif
 * --terraform-plan` puts it in `evidence.planAddress`); attacker-influenced text, sanitised by
 * the renderers like every other field.
 */
export function planAddressOf(f: Finding): string | undefined {
  const address = f.evidence.planAddress;
  return typeof address === 'string' && address !== '' ? address : undefined;
}
export const DEFAULT_TITLE = 'EKS authentication findings';

export type SeverityCounts = Record<Severity, number>;

export { compareFindings };

export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(compareFindings);
}

/**
 * The indexes of `notices` in the order one message shows them: open notices most severe first
 * (CRITICAL before HIGH before …), then resolved ones, each group in its given order otherwise.
 */
export function noticeOrder(notices: readonly Notice[]): number[] {
  const rank = (n: Notice) => (n.kind === 'resolved' ? 0 : 10) + severityRank(n.finding.severity);
  return notices
    .map((_, i) => i)
    .sort((a, b) => rank(notices[b] as Notice) - rank(notices[a] as Notice) || a - b);
}

export function emptyCounts(): SeverityCounts {
  return { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
}

export function countBySeverity(findings: readonly Pick<Finding, 'severity'>[]): SeverityCounts {
  const counts = emptyCounts();
  for (const f of findings) counts[f.severity] += 1;
  return counts;
}

/** `1 critical, 2 high` — only the severities that occur, most severe first. */
export function formatCounts(counts: SeverityCounts): string {
  return SEVERITIES.filter((s) => counts[s] > 0)
    .map((s) => `${counts[s]} ${s}`)
    .join(', ');
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `3 findings (1 critical, 2 high)` */
export function summaryLine(counts: SeverityCounts): string {
  const total = SEVERITIES.reduce((sum, s) => sum + counts[s], 0);
  return total === 0 ? 'No findings' : `${plural(total, 'finding')} (${formatCounts(counts)})`;
}

/** How many of a what-if's effects are plan changes left unsimulated (values unknown until apply). */
export function unknownCount(effects: RenderOptions['effects']): number {
  return effects?.filter((e) => e.unknown === true).length ?? 0;
}

/**
 * What a report found, in one sentence; an empty result names the cluster. With `unknown` plan
 * changes (not simulated), the sentence says the findings come from the known values only: "No
 * findings" above an UNKNOWN line would read as an all-clear.
 */
export function resultLine(
  findings: readonly Finding[],
  cluster: ClusterRef | undefined,
  label: (c: ClusterRef) => string,
  unknown = 0,
): string {
  if (unknown > 0) {
    const found = findings.length > 0 ? summaryLine(countBySeverity(findings)) : 'No findings';
    const where = findings.length === 0 && cluster !== undefined ? ` for cluster ${label(cluster)}` : '';
    return `${found} from the known values${where} — ${plural(unknown, 'change')} UNKNOWN until apply, listed below.`;
  }
  if (findings.length > 0) return summaryLine(countBySeverity(findings));
  return cluster === undefined ? 'No findings.' : `No findings for cluster ${label(cluster)}.`;
}

/** `… 5 more findings (2 critical, 3 high) not shown` */
export function omittedLine(counts: SeverityCounts): string {
  const total = SEVERITIES.reduce((sum, s) => sum + counts[s], 0);
  return `… ${total} more ${total === 1 ? 'finding' : 'findings'} (${formatCounts(counts)}) not shown`;
}

/** The cluster shared by every finding, if there is exactly one. */
export function commonCluster(findings: readonly Finding[]): ClusterRef | undefined {
  const first = findings[0];
  if (first === undefined) return undefined;
  const same = findings.every(
    (f) =>
      f.cluster.accountId === first.cluster.accountId &&
      f.cluster.region === first.cluster.region &&
      f.cluster.name === first.cluster.name,
  );
  return same ? first.cluster : undefined;
}

// Control characters (except tab and newline), DEL and the C1 CSI: never let snapshot data drive
// the terminal (an ESC in a node name would otherwise reach the user's terminal as a command).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Removes control characters (CRLF/CR normalised to LF first) and shows every invisible format
 * character as `<U+202E>`: a right-to-left override or a zero-width space in a user name cannot
 * reorder or hide what a reader sees. Code blocks go through it too; the quoting layers never put
 * such a character raw into code, so there it changes nothing.
 */
export function sanitize(s: string): string {
  return showInvisible(s.replace(/\r\n?/g, '\n').replace(CONTROL, ''));
}

/** One line: every run of whitespace (newlines included) becomes one space. */
export function oneLine(s: string): string {
  return sanitize(s).replace(/\s+/g, ' ').trim();
}

function shortLine(s: string, max: number): string {
  const line = oneLine(s);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * Who made the change, one sanitised line: `jane.doe (assumed-role Admin) from 203.0.113.7 via
 * aws-cli/2.15`, or for aws-auth the last writer `kubectl-edit (Update at 2026-…)`.
 */
export function actorLine(actor: Actor | undefined): string | undefined {
  if (actor === undefined) return undefined;
  const when = [actor.operation, actor.time === undefined ? undefined : `at ${actor.time}`].filter(
    (x) => x !== undefined,
  );
  const who =
    actor.sessionName !== undefined
      ? `${shortLine(actor.sessionName, 120)} (assumed-role ${shortLine(actor.roleName ?? '?', 120)})`
      : actor.manager !== undefined
        ? `${shortLine(actor.manager, 120)}${when.length > 0 ? ` (${shortLine(when.join(' '), 120)})` : ''}`
        : shortLine(actor.arn ?? actor.username ?? actor.principalId ?? actor.type ?? 'unknown', 200);
  const parts = [who];
  if (actor.sourceIp !== undefined) parts.push(`from ${shortLine(actor.sourceIp, 64)}`);
  if (actor.userAgent !== undefined) parts.push(`via ${shortLine(actor.userAgent, 120)}`);
  return parts.join(' ');
}

const FENCE_LIKE = /^[ \t]*(`{3,}|~{3,})/;

/** A prose line that would read as a code fence gets a leading backslash (Markdown's escape). */
export function defuseFence(line: string): string {
  return FENCE_LIKE.test(line) ? line.replace(/^[ \t]*/, (indent) => `${indent}\\`) : line;
}

/** The fence for a code block: three backticks, or one more than the longest run inside. */
export function fenceFor(code: string): string {
  let longest = 0;
  for (const run of code.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** A fenced code block, content exactly as given (control characters removed), ending in a newline. */
export function codeBlock(code: string, language: string): string {
  const body = sanitize(code).replace(/\n+$/, '');
  const fence = fenceFor(body);
  return `${fence}${language}\n${body}\n${fence}\n`;
}

/** Greedy word wrap; words longer than the width stand on their own line. Blank lines are kept. */
export function wrap(text: string, width: number, indent: string): string[] {
  const out: string[] = [];
  const room = Math.max(20, width - indent.length);
  for (const paragraph of sanitize(text).split('\n')) {
    const words = paragraph.split(/[ \t]+/).filter((w) => w.length > 0);
    if (words.length === 0) {
      out.push('');
      continue;
    }
    let line = '';
    for (const word of words) {
      if (line.length === 0) line = word;
      else if (line.length + 1 + word.length <= room) line += ` ${word}`;
      else {
        out.push(defuseFence(`${indent}${line}`));
        line = word;
      }
    }
    out.push(defuseFence(`${indent}${line}`));
  }
  return out;
}

export interface Block {
  text: string;
  severity: Severity;
}

/**
 * Joins `head`, as many `blocks` as fit (in order, each whole) and, when some are left out, the
 * line `omitted(counts)`, so that the result never exceeds `maxChars`. Blocks are never cut; if
 * not even the head and the omission line fit, the head is cut at a line end (it holds no code).
 */
export function fitBlocks(
  head: string,
  blocks: readonly Block[],
  maxChars: number,
  omitted: (counts: SeverityCounts) => string,
): string {
  const limit = Math.max(0, Math.floor(maxChars));
  let total = head.length;
  for (const b of blocks) total += b.text.length;
  if (total <= limit) return head + blocks.map((b) => b.text).join('');

  // Walk back from "all shown" until what remains fits together with the omission line.
  const rest = emptyCounts();
  let shownLength = total - head.length;
  for (let k = blocks.length - 1; k >= 0; k--) {
    const b = blocks[k] as Block;
    rest[b.severity] += 1;
    shownLength -= b.text.length;
    const tail = omitted(rest);
    if (head.length + shownLength + tail.length <= limit) {
      return (
        head +
        blocks
          .slice(0, k)
          .map((x) => x.text)
          .join('') +
        tail
      );
    }
  }
  return clip(head + omitted(countBySeverity(blocks)), limit);
}

/**
 * The simulated effects a head lists: as many as fit in half of `maxChars` (estimated by their
 * summaries), and how many more are left out — said in the head, never cut off silently (100,000
 * effects were clipped mid-list with no word that any were missing).
 */
export function effectsWithin<E extends { summary: string }>(
  effects: readonly E[],
  maxChars: number | undefined,
): { shown: readonly E[]; more: number } {
  const budget = Math.floor((maxChars ?? DEFAULT_MAX_CHARS) / 2);
  let used = 0;
  for (let i = 0; i < effects.length; i++) {
    used += (effects[i] as E).summary.length + 12;
    if (used > budget) return { shown: effects.slice(0, i), more: effects.length - i };
  }
  return { shown: effects, more: 0 };
}

export const moreEffectsLine = (more: number) =>
  `… and ${more} more simulated effect(s), not listed here (the JSON format lists them all)`;

/** Room kept for the omission line when deciding whether a block could ever fit. */
const OMITTED_RESERVE = 160;

/** The note under a finding shown in its short form because its full block exceeds the budget. */
export const TOO_LONG_NOTE = 'too long to show in full here; the JSON format has the whole detail and fix';

/**
 * Blocks that could not fit within `maxChars` even alone (a finding listing thousands of
 * principals) in their short form `short(i)`: such a finding is named, never silently dropped.
 */
export function shortenOversized(
  head: string,
  blocks: readonly Block[],
  maxChars: number,
  short: (i: number) => string,
): Block[] {
  const room = Math.floor(maxChars) - head.length - OMITTED_RESERVE;
  return blocks.map((b, i) => (b.text.length <= room ? b : { severity: b.severity, text: short(i) }));
}

/** Cuts text (free of code blocks) to at most `limit` characters, at a line end where possible. */
export function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let cut = text.slice(0, limit);
  const lastNewline = cut.lastIndexOf('\n');
  if (lastNewline > 0) cut = cut.slice(0, lastNewline + 1);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}

export function clusterLabel(c: ClusterRef): string {
  return `${oneLine(c.name)} (account ${oneLine(c.accountId)}, region ${oneLine(c.region)})`;
}

/** `a, b (+10 more)`: the first few of `total` names, each shown with `show`; `—` when none. */
export function namesList(names: readonly string[], total: number, show: (name: string) => string): string {
  const shown = names.map(oneLine).filter((n) => n.length > 0);
  if (shown.length === 0) return '—';
  const more = total - shown.length;
  return `${shown.map(show).join(', ')}${more > 0 ? ` (+${more} more)` : ''}`;
}

/** `12: ip-10-0-1-1, i-0abc (+10 more)`, each name shown with `show`. */
export function nodesLabel(
  nodeCount: number,
  firstNodes: readonly string[],
  show: (name: string) => string,
): string {
  const list = namesList(firstNodes, nodeCount, show);
  return list === '—' ? String(nodeCount) : `${nodeCount}: ${list}`;
}

/** `Terraform`, or for a fragment `Terraform — add to <what>` (never a file of its own). */
export function terraformLabel(r: Pick<Remediation, 'terraformFragmentOf'>): string {
  return r.terraformFragmentOf === undefined
    ? 'Terraform'
    : `Terraform — add to ${oneLine(r.terraformFragmentOf)}`;
}

/** The remediation's code, in the order shown: label, body, fence language. Empty ones left out. */
export function fixCode(r: Remediation): Array<{ label: string; code: string; language: string }> {
  const all = [
    { label: 'AWS CLI', code: r.awsCli, language: 'sh' },
    ...(r.alternatives ?? []).map((x) => ({ label: x.label, code: x.shell, language: 'sh' })),
    { label: terraformLabel(r), code: r.terraform, language: 'hcl' },
    { label: 'aws-auth YAML', code: r.awsAuthYaml, language: 'yaml' },
    {
      label: r.trustPolicyReplaces
        ? 'Trust policy statements to use instead'
        : 'Trust policy statements to add',
      code: r.trustPolicyJson,
      language: 'json',
    },
  ];
  return all.flatMap(({ label, code, language }) =>
    code === undefined || code.trim().length === 0 ? [] : [{ label, code, language }],
  );
}

/** `Prediction confirmed: "<title>" (cluster/auth-mode-drops-principals, 12:00:01Z) happened.` */
export function confirmationLine(p: ConfirmedPrediction): string {
  return `Prediction confirmed: "${oneLine(p.title)}" (${oneLine(p.ruleId)}, predicted ${oneLine(p.predictedAt)}) happened; the damage is open until this finding resolves.`;
}
