/**
 * One cluster's block in `report` and `demo`: its assessment and what-ifs (from
 * `assessWithWhatIfs`, shared/app/build-report.ts), as text or Markdown sections under a heading,
 * or as JSON.
 */
import type { ClusterReport } from '../app/build-report.ts';
import { type ClusterRef, type Finding, SEVERITIES } from '../core/model.ts';
import { countBySeverity, renderFindings, toJsonReport } from '../core/render/index.ts';
import type { CommonArgs } from './args.ts';
import type { CliIo } from './io.ts';
import { renderOptions } from './output.ts';

export type Assessed = Pick<ClusterReport, 'findings' | 'whatIf'>;

/** Every finding of the assessment and of the what-ifs (what --fail-on looks at). */
export function allFindings(assessed: Assessed): Finding[] {
  return [...assessed.findings, ...assessed.whatIf.flatMap((w) => w.findings)];
}

/** The assessment in full: the current state is what is broken now, always whole, with its fix. */
function assessmentSection(io: CliIo, args: CommonArgs, cluster: ClusterRef, assessed: Assessed): string {
  return renderFindings(
    args.format,
    assessed.findings,
    renderOptions(io, args, { title: 'Assessment', cluster }),
  );
}

/** Each what-if, compact unless it predicts an outage. */
function whatIfSections(io: CliIo, args: CommonArgs, cluster: ClusterRef, assessed: Assessed): string[] {
  return assessed.whatIf.map((w) =>
    renderFindings(
      args.format,
      w.findings,
      renderOptions(io, args, {
        title: 'What-if',
        cluster,
        change: w.label,
        effects: w.effects,
        // a predicted outage is shown whole: who loses access and the fix to paste
        compact: !w.findings.some((f) => f.severity === 'critical'),
      }),
    ),
  );
}

function joinSections(args: CommonArgs, heading: string, sections: readonly string[]): string {
  return `${heading}${sections.map((s) => s.trimEnd()).join(args.format === 'markdown' ? '\n\n' : '\n')}\n`;
}

/** `heading` then the assessment in full, then each what-if, compact unless it predicts an outage. */
export function renderClusterBlock(
  io: CliIo,
  args: CommonArgs,
  heading: string,
  cluster: ClusterRef,
  assessed: Assessed,
): string {
  return joinSections(args, heading, [
    assessmentSection(io, args, cluster, assessed),
    ...whatIfSections(io, args, cluster, assessed),
  ]);
}

/**
 * `report` over several clusters: every cluster's current state first (what is broken now, in
 * full), then every cluster's what-ifs (hypothetical): a live outage of the second cluster is
 * never buried under the first cluster's what-ifs.
 */
export function renderReportBlocks(
  io: CliIo,
  args: CommonArgs,
  rows: readonly { cluster: ClusterRef; assessed: Assessed }[],
): string[] {
  const heading = (what: string, c: ClusterRef, first: boolean) =>
    args.format === 'markdown'
      ? `# ${what}: cluster \`${c.name}\` (account ${c.accountId}, region ${c.region})\n\n`
      : `${first ? '' : '\n'}=== ${what}: cluster ${c.name} — account ${c.accountId}, region ${c.region} ===\n`;
  const current = rows.map((r, i) =>
    joinSections(args, heading('Current state', r.cluster, i === 0), [
      assessmentSection(io, args, r.cluster, r.assessed),
    ]),
  );
  const whatIfs = rows
    .filter((r) => r.assessed.whatIf.length > 0)
    .map((r) =>
      joinSections(
        args,
        heading('What-ifs', r.cluster, false),
        whatIfSections(io, args, r.cluster, r.assessed),
      ),
    );
  return [...current, ...whatIfs];
}

/** The JSON form: the assessment and each what-if as a JSON report. */
export function clusterJson(cluster: ClusterRef, assessed: Assessed) {
  return {
    assessment: toJsonReport(assessed.findings, { cluster }),
    whatIf: assessed.whatIf.map((w) =>
      toJsonReport(w.findings, { cluster, change: w.label, effects: w.effects }),
    ),
  };
}

/**
 * The table `report` opens with: one row per cluster, the current-state findings by severity, then
 * the what-if findings (hypothetical) in their own column.
 */
export function summaryTable(
  format: CommonArgs['format'],
  rows: readonly { cluster: ClusterRef; assessed: Assessed }[],
): string {
  const header = ['cluster', ...SEVERITIES, 'what-if findings'];
  const body = rows.map(({ cluster, assessed }) => {
    const counts = countBySeverity(assessed.findings);
    return [
      `${cluster.name} (${cluster.accountId}, ${cluster.region})`,
      ...SEVERITIES.map((s) => String(counts[s])),
      String(assessed.whatIf.reduce((n, w) => n + w.findings.length, 0)),
    ];
  });
  if (format === 'markdown') {
    const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
    return `# Summary: current-state findings by severity\n\n${[
      line(header),
      line(header.map(() => '---')),
      ...body.map(line),
    ].join('\n')}\n\n`;
  }
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `Summary: current-state findings by severity\n${[line(header.map((h) => h.toUpperCase())), ...body.map(line)].join('\n')}\n\n`;
}
