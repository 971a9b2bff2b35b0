/**
 * The Markdown of the `report` function's response: every cluster's current state first (what is
 * broken now), then the what-ifs (hypothetical), each section within its share of the bound. Pure.
 */
import type { Finding } from '../model.ts';
import type { WhatIfReport } from './command-result.ts';
import { renderMarkdown } from './markdown.ts';

const DEFAULT_MAX_MARKDOWN = 1_000_000;

/** One cluster of the response: read (its findings and what-ifs), or not (`error`). */
export interface ReportMarkdownCluster {
  cluster: string;
  region: string;
  source: 'fresh' | 'stored';
  capturedAt?: string;
  findings: Finding[];
  whatIf: WhatIfReport[];
  error?: string;
}

export function renderReportMarkdown(
  clusters: readonly ReportMarkdownCluster[],
  maxChars = DEFAULT_MAX_MARKDOWN,
): string {
  const sections = Math.max(
    1,
    clusters.reduce((n, c) => n + 1 + c.whatIf.length, 0),
  );
  const budget = Math.max(4_000, Math.floor(maxChars / sections));
  const refOf = (c: ReportMarkdownCluster) => ({
    accountId: c.findings[0]?.cluster.accountId ?? '',
    region: c.region,
    name: c.cluster,
  });
  const parts: string[] = clusters.map((c) =>
    c.error !== undefined
      ? `# ${c.region}/${c.cluster}\n\nNot reported: ${c.error}\n`
      : renderMarkdown(c.findings, {
          title: `${c.region}/${c.cluster} (${c.source} snapshot ${c.capturedAt ?? ''})`,
          cluster: refOf(c),
          maxChars: budget,
        }),
  );
  for (const c of clusters) {
    if (c.error !== undefined) continue;
    const ref = refOf(c);
    for (const w of c.whatIf) {
      parts.push(
        renderMarkdown(w.findings, {
          title: `What if: ${w.label} (${c.region}/${c.cluster})`,
          cluster: ref,
          change: w.label,
          effects: w.effects,
          maxChars: budget,
          compact: true,
        }),
      );
    }
  }
  return parts.join('\n');
}
