/**
 * One cluster's block in `report` and `demo`: its assessment and what-ifs (from
 * `assessWithWhatIfs`, shared/app/build-report.ts), as text or Markdown sections under a heading,
 * or as JSON.
 */
import type { ClusterReport } from '../app/build-report.ts';
import type { ClusterRef, Finding } from '../core/model.ts';
import { renderFindings, toJsonReport } from '../core/render/index.ts';
import type { CommonArgs } from './args.ts';
import type { CliIo } from './io.ts';
import { renderOptions } from './output.ts';

export type Assessed = Pick<ClusterReport, 'findings' | 'whatIf'>;

/** Every finding of the assessment and of the what-ifs (what --fail-on looks at). */
export function allFindings(assessed: Assessed): Finding[] {
  return [...assessed.findings, ...assessed.whatIf.flatMap((w) => w.findings)];
}

/** `heading` then the assessment and each what-if, compact unless a what-if predicts an outage. */
export function renderClusterBlock(
  io: CliIo,
  args: CommonArgs,
  heading: string,
  cluster: ClusterRef,
  assessed: Assessed,
): string {
  const sections = [
    renderFindings(
      args.format,
      assessed.findings,
      renderOptions(io, args, { title: 'Assessment', cluster, compact: true }),
    ),
    ...assessed.whatIf.map((w) =>
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
    ),
  ];
  return `${heading}${sections.map((s) => s.trimEnd()).join(args.format === 'markdown' ? '\n\n' : '\n')}\n`;
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
