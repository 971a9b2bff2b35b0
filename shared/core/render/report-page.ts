/**
 * `report --format html`: the report's result (command-result.ts) as one self-contained page.
 * Apart from command-output.ts because the page's layout library is large: the CLI loads this
 * file only for this format, and code that imports the renderers' entry never bundles it.
 */

import type { ToolInfo } from './command-output.ts';
import { unreadableLine } from './command-output.ts';
import type { CommandResult } from './command-result.ts';
import { renderHtmlReport } from './html-report.ts';

export function renderReportPage(result: Extract<CommandResult, { kind: 'report' }>, tool: ToolInfo): string {
  return renderHtmlReport({
    title: 'EKS authentication report',
    tool,
    clusters: result.clusters.map((r) => ({ snapshot: r.snapshot, findings: r.findings, whatIf: r.whatIf })),
    unreadable: result.unreadable.map(unreadableLine),
  });
}
