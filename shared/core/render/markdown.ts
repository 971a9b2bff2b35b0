/**
 * GitHub-flavoured Markdown rendering (issues, PR comments, wiki pages). Prose from the snapshot
 * is escaped so it cannot open a code fence, a heading or a table; identifiers go in inline code;
 * the fix is in fenced code blocks whose fence is longer than any backtick run inside.
 */
import type { ClusterRef, Finding, Remediation } from '../model.ts';
import { blastRadiusView, capitalize, podsRunOnLine } from './blast-radius.ts';
import {
  actorLine,
  type Block,
  codeBlock,
  commonCluster,
  DEFAULT_MAX_CHARS,
  DEFAULT_TITLE,
  effectsWithin,
  fitBlocks,
  fixCode,
  moreEffectsLine,
  namesList,
  nodesLabel,
  omittedLine,
  oneLine,
  planAddressOf,
  type RenderOptions,
  resultLine,
  sanitize,
  shortenOversized,
  sortFindings,
  TOO_LONG_NOTE,
  unknownCount,
} from './layout.ts';
import { alertLinks } from './links.ts';

/** Escapes inline Markdown so that text renders literally. */
export function escapeMarkdown(text: string): string {
  // `_` inside a word (EC2_LINUX, AWSReservedSSO_Admin) never emphasises in GFM: left as is.
  return text
    .replace(/[\\`*[\]<>|~#]/g, (c) => `\\${c}`)
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_');
}

/** Escaped prose: each line trimmed at the start (no indented code) and its block markers escaped. */
function prose(text: string): string {
  return sanitize(text)
    .trim()
    .split('\n')
    .map((line) =>
      escapeMarkdown(line.trim())
        .replace(/^[+\-=]/, '\\$&')
        .replace(/^(\d+)([.)])/, '$1\\$2'),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}

/** Inline code that survives backticks in the value. */
export function inlineCode(value: string): string {
  const v = oneLine(value);
  if (v.length === 0) return '""';
  let longest = 0;
  for (const run of v.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const tick = '`'.repeat(longest + 1);
  const pad = v.startsWith('`') || v.endsWith('`') ? ' ' : '';
  return `${tick}${pad}${v}${pad}${tick}`;
}

function clusterMd(c: ClusterRef): string {
  return `${inlineCode(c.name)} (account ${inlineCode(c.accountId)}, region ${inlineCode(c.region)})`;
}

/** `- **Links:** [EKS console (access)](<https://…>) · [CloudTrail event](<…>)`; the URLs are percent-encoded (links.ts). */
function linkItems(f: Finding): string[] {
  const links = alertLinks(f);
  if (links.length === 0) return [];
  return [`- **Links:** ${links.map((l) => `[${escapeMarkdown(l.label)}](<${l.url}>)`).join(' · ')}`];
}

function renderFindingBlock(f: Finding): string {
  const parts: string[] = [];
  parts.push(
    `### ${f.severity.toUpperCase()} · ${inlineCode(f.ruleId)} · ${escapeMarkdown(oneLine(f.title))}`,
    [
      `- **Cluster:** ${clusterMd(f.cluster)}`,
      `- **Subject:** ${inlineCode(f.subject)}`,
      `- **Trigger:** ${inlineCode(f.trigger)}`,
      ...(planAddressOf(f) === undefined
        ? []
        : [`- **Plan address:** ${inlineCode(planAddressOf(f) ?? '')}`]),
      ...(f.actor === undefined ? [] : [`- **Changed by:** ${escapeMarkdown(actorLine(f.actor) ?? '')}`]),
      ...linkItems(f),
    ].join('\n'),
  );
  if (f.detail.trim().length > 0) parts.push(prose(f.detail));
  const br = f.blastRadius;
  if (br !== undefined) {
    const view = blastRadiusView(br);
    const listOf = (names: readonly string[], total: number) => namesList(names, total, inlineCode);
    const lines = [`**Blast radius** — ${view.headline(inlineCode)}`];
    const items = view.rows.map(
      (row) =>
        `- ${capitalize(row.label)}: ${row.label === 'nodes' ? nodesLabel(row.total, row.names, inlineCode) : listOf(row.names, row.total)}`,
    );
    if (view.podsRunOn.length > 0) items.push(`- Where it breaks: ${podsRunOnLine(view.podsRunOn, listOf)}`);
    if (view.timeToImpact !== undefined) items.push(`- Time to impact: ${escapeMarkdown(view.timeToImpact)}`);
    if (items.length > 0) lines.push('', ...items);
    parts.push(lines.join('\n'));
  }
  const r = f.remediation;
  if (r !== undefined) {
    parts.push(`**Fix:** ${prose(r.summary)}`);
    for (const { label, code, language } of fixCode(r))
      parts.push(`${escapeMarkdown(label)}:`, codeBlock(code, language).trimEnd());
    if (r.notes !== undefined && r.notes.length > 0) {
      parts.push(`Notes:\n\n${r.notes.map((n) => `- ${prose(n).replace(/\n/g, '\n  ')}`).join('\n')}`);
    }
  }
  return `${parts.join('\n\n')}\n\n`;
}

function renderCompactLine(f: Finding): string {
  const address = planAddressOf(f);
  return `- **${f.severity.toUpperCase()}** ${inlineCode(f.ruleId)} ${inlineCode(f.subject)}${address === undefined ? '' : ` at ${inlineCode(address)}`} — ${escapeMarkdown(oneLine(f.title))}\n`;
}

function effectList(all: NonNullable<RenderOptions['effects']>, maxChars?: number): string {
  const { shown, more } = effectsWithin(all, maxChars);
  const lines = shown.map(
    (e) => `- ${prose(e.summary).replace(/\n/g, '\n  ')}${e.assumed ? ' _(assumed)_' : ''}`,
  );
  if (more > 0) lines.push(`- ${escapeMarkdown(moreEffectsLine(more))}`);
  return lines.join('\n');
}

function renderHead(findings: readonly Finding[], options: RenderOptions): string {
  const cluster = options.cluster ?? commonCluster(findings);
  const title = escapeMarkdown(oneLine(options.title ?? DEFAULT_TITLE));
  const result = resultLine(findings, cluster, clusterMd, unknownCount(options.effects));
  const change = options.change === undefined ? undefined : escapeMarkdown(oneLine(options.change));
  const effects = options.effects;
  if (options.compact === true) {
    const parts = [`**${title}${change === undefined ? '' : `: ${change}`}** — ${result}`];
    if (effects !== undefined && effects.length > 0) parts.push(effectList(effects, options.maxChars));
    return `${parts.join('\n\n')}\n\n`;
  }
  const parts = [`## ${cluster === undefined ? title : `${title} — ${clusterMd(cluster)}`}`];
  parts.push(findings.length > 0 ? `**${result}**` : result);
  if (change !== undefined) parts.push(`**What if:** ${change}`);
  if (effects !== undefined) {
    parts.push(
      effects.length === 0
        ? 'Simulated effects: none'
        : `Simulated effects:\n\n${effectList(effects, options.maxChars)}`,
    );
  }
  return `${parts.join('\n\n')}\n\n`;
}

/** Renders findings as Markdown, most severe first, within `maxChars` (default 200 000). */
/** A fix outside a finding (compare's whole list, the IRSA → Pod Identity plan). */
export function renderFixMarkdown(heading: string, r: Remediation): string {
  const parts = [`## ${escapeMarkdown(oneLine(heading))}`, prose(r.summary)];
  for (const { label, code, language } of fixCode(r))
    parts.push(`${escapeMarkdown(label)}:`, codeBlock(code, language).trimEnd());
  if (r.notes?.length) parts.push(r.notes.map((n) => `- ${prose(n).replace(/\n/g, '\n  ')}`).join('\n'));
  return `${parts.join('\n\n')}\n\n`;
}

export function renderMarkdown(findings: readonly Finding[], options: RenderOptions = {}): string {
  const sorted = sortFindings(findings);
  const compact = options.compact === true;
  const blocks: Block[] = sorted.map((f) => ({
    severity: f.severity,
    text: compact ? renderCompactLine(f) : renderFindingBlock(f),
  }));
  const head = renderHead(sorted, options);
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const shown = shortenOversized(
    head,
    blocks,
    maxChars,
    (i) =>
      `${renderCompactLine(sorted[i] as Finding).trimEnd()} _(${TOO_LONG_NOTE})_\n${compact ? '' : '\n'}`,
  );
  const out = fitBlocks(head, shown, maxChars, (rest) => `${compact ? '\n' : ''}${omittedLine(rest)}\n`);
  return out.replace(/\n\n+$/, '\n');
}
