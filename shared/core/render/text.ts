/**
 * Plain-text rendering for a terminal (80–120 columns) or an e-mail body. Prose is wrapped at 80
 * columns; code (AWS CLI, Terraform, aws-auth YAML) is printed flush left between two indented
 * frame lines (`    --- sh ---` … `    --- end ---`, no Markdown fences), never wrapped or
 * indented, so it can be copied exactly.
 */
import type { Finding, Remediation, Severity } from '../model.ts';
import { blastRadiusView, podsRunOnLine } from './blast-radius.ts';
import {
  actorLine,
  type Block,
  clusterLabel,
  commonCluster,
  DEFAULT_MAX_CHARS,
  DEFAULT_TITLE,
  defuseFence,
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
  wrap,
} from './layout.ts';

const WIDTH = 80;

/**
 * A code block framed by two indented lines (`    --- sh ---` … `    --- end ---`); the code itself
 * flush left, as it is copied. The dash run grows until no line of the code could pass for a frame.
 */
function framedCode(code: string, language: string): string {
  const body = sanitize(code).replace(/\n+$/, '');
  let dashes = '---';
  while (body.split('\n').some((line) => line.trimStart().startsWith(dashes))) dashes += '-';
  return `    ${dashes} ${language === '' ? 'code' : language} ${dashes}\n${body}\n    ${dashes} end ${dashes}\n`;
}

const ANSI: Record<Severity, string> = {
  critical: '\u001b[1;97;41m',
  high: '\u001b[1;31m',
  medium: '\u001b[1;33m',
  low: '\u001b[36m',
  info: '\u001b[2m',
};
const BOLD = '\u001b[1m';
const RESET = '\u001b[0m';

function paint(on: boolean, style: string, s: string): string {
  return on ? `${style}${s}${RESET}` : s;
}

function severityTag(severity: Severity, color: boolean): string {
  const label = severity.toUpperCase();
  return color ? paint(true, ANSI[severity], ` ${label} `) : label;
}

/** `  label             value`, the value wrapped under itself. */
function field(label: string, value: string, indent = '  '): string {
  const hang = `${indent}${' '.repeat(18)}`;
  const [first = '', ...more] = wrap(value, WIDTH, hang);
  return [`${indent}${label.padEnd(18)}${first.slice(hang.length)}`, ...more].join('\n');
}

function renderFindingBlock(f: Finding, color: boolean): string {
  const lines: string[] = [];
  lines.push(`${severityTag(f.severity, color)}  ${paint(color, BOLD, oneLine(f.ruleId))}`);
  lines.push(...wrap(oneLine(f.title), WIDTH, '  '));
  lines.push(field('cluster', clusterLabel(f.cluster)));
  lines.push(field('subject', oneLine(f.subject)));
  lines.push(field('trigger', oneLine(f.trigger)));
  const address = planAddressOf(f);
  if (address !== undefined) lines.push(field('plan address', oneLine(address)));
  const by = actorLine(f.actor);
  if (by !== undefined) lines.push(field('changed by', by));
  if (f.detail.trim().length > 0) {
    lines.push('');
    // No spread: a detail of tens of thousands of lines (an alias bomb's dropped entries) would
    // overflow the stack as call arguments.
    for (const line of wrap(f.detail.trim(), WIDTH, '  ')) lines.push(line);
  }
  const br = f.blastRadius;
  if (br !== undefined) {
    const view = blastRadiusView(br);
    const show = (n: string) => n;
    const listOf = (names: readonly string[], total: number) => namesList(names, total, show);
    lines.push('', ...wrap(`Blast radius — ${view.headline(show)}`, WIDTH, '  '));
    for (const row of view.rows) {
      const value =
        row.label === 'nodes' ? nodesLabel(row.total, row.names, show) : listOf(row.names, row.total);
      // The label column is 18 wide: `Karpenter node classes` would run into its value.
      lines.push(field(row.label.replace(/^Karpenter /, ''), value, '    '));
    }
    if (view.podsRunOn.length > 0)
      lines.push(field('where it breaks', podsRunOnLine(view.podsRunOn, listOf), '    '));
    if (view.timeToImpact !== undefined) lines.push(field('time to impact', view.timeToImpact, '    '));
  }
  let text = `${lines.join('\n')}\n`;
  const r = f.remediation;
  if (r !== undefined) {
    text += '\n  Fix\n';
    text += `${wrap(r.summary.trim(), WIDTH, '    ').join('\n')}\n`;
    for (const { label, code, language } of fixCode(r))
      text += `\n    ${label}:\n${framedCode(code, language)}`;
    if (r.notes !== undefined && r.notes.length > 0) {
      text += '\n    Notes:\n';
      for (const note of r.notes) {
        const [first = '', ...more] = wrap(note.trim(), WIDTH, '      ');
        text += `${[`    - ${first.trimStart()}`, ...more].join('\n')}\n`;
      }
    }
  }
  return `${text}\n`;
}

function renderCompactLine(f: Finding, color: boolean): string {
  const head = `  ${severityTag(f.severity, color)}  ${oneLine(f.ruleId)}  ${oneLine(f.subject)}`;
  return `${[head, ...wrap(oneLine(f.title), WIDTH, '      ')].join('\n')}\n`;
}

function effectLines(all: NonNullable<RenderOptions['effects']>, maxChars?: number): string[] {
  const { shown: effects, more } = effectsWithin(all, maxChars);
  const lines = effects.flatMap((e) => {
    const [first = '', ...more] = wrap(`${e.summary.trim()}${e.assumed ? ' (assumed)' : ''}`, WIDTH, '    ');
    return [`  - ${first.trimStart()}`, ...more];
  });
  if (more > 0) lines.push(`  ${moreEffectsLine(more)}`);
  return lines;
}

function renderHead(findings: readonly Finding[], options: RenderOptions): string {
  const color = options.color === true;
  const cluster = options.cluster ?? commonCluster(findings);
  const title = oneLine(options.title ?? DEFAULT_TITLE);
  const result = resultLine(findings, cluster, clusterLabel, unknownCount(options.effects));
  const change = options.change === undefined ? undefined : oneLine(options.change);
  const effects = options.effects;
  if (options.compact === true) {
    const heading = defuseFence(`${title}${change === undefined ? '' : `: ${change}`} — ${result}`);
    const lines = [paint(color, BOLD, heading)].concat(
      effects === undefined ? [] : effectLines(effects, options.maxChars),
    );
    return `${lines.join('\n')}\n`;
  }
  const heading = defuseFence(cluster === undefined ? title : `${title} — ${clusterLabel(cluster)}`);
  const lines = [paint(color, BOLD, heading), result];
  if (change !== undefined) lines.push('', `What if: ${change}`);
  // Not `push(...effectLines(effects))`: 100,000 effects are more arguments than the stack holds.
  const all =
    effects === undefined
      ? lines
      : lines.concat(
          effects.length === 0 ? 'Simulated effects: none' : 'Simulated effects:',
          effectLines(effects, options.maxChars),
        );
  return `${all.join('\n')}\n\n`;
}

/** Renders findings as terminal text, most severe first, within `maxChars` (default 200 000). */
/** A fix outside a finding (compare's whole list, the IRSA → Pod Identity plan), framed as in a finding. */
export function renderFixText(heading: string, r: Remediation): string {
  let text = `${oneLine(heading)}\n${wrap(r.summary.trim(), WIDTH, '  ').join('\n')}\n`;
  for (const { label, code, language } of fixCode(r)) text += `\n  ${label}:\n${framedCode(code, language)}`;
  for (const note of r.notes ?? []) text += `${wrap(`- ${note.trim()}`, WIDTH, '  ').join('\n')}\n`;
  return `${text}\n`;
}

export function renderText(findings: readonly Finding[], options: RenderOptions = {}): string {
  const color = options.color === true;
  const sorted = sortFindings(findings);
  const blocks: Block[] = sorted.map((f) => ({
    severity: f.severity,
    text: options.compact === true ? renderCompactLine(f, color) : renderFindingBlock(f, color),
  }));
  const head = renderHead(sorted, options);
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const shown = shortenOversized(
    head,
    blocks,
    maxChars,
    (i) => `${renderCompactLine(sorted[i] as Finding, color)}      (${TOO_LONG_NOTE})\n\n`,
  );
  const out = fitBlocks(head, shown, maxChars, (rest) => `${omittedLine(rest)}\n`);
  return out.replace(/\n\n+$/, '\n');
}
