/**
 * `report --format html`: one self-contained page — inline CSS and SVG, no script, no external
 * asset, and a Content-Security-Policy of `default-src 'none'` so that even a string that escaped
 * the escaping could not load anything. It holds the findings by severity, every finding in full
 * (detail, blast radius, fix, evidence), each what-if, and per cluster a picture of who depends on
 * what (dependency-graph.ts).
 *
 * Layout: @dagrejs/dagre (layered graph drawing, the Sugiyama method; ≈ 50 KB minified, no
 * dependency beyond its graphlib, no I/O) runs here, at render time, and the page gets the
 * result as static SVG. Inlining the library instead would put a script in every page — which
 * the CSP then could not forbid — and make the picture depend on the reader's browser running
 * it; computing it once in Node keeps the page inert and its size independent of the library.
 *
 * Every string from a snapshot or finding is attacker-written and goes through `escapeHtml`.
 * Pure.
 */
import dagre from '@dagrejs/dagre';
import { type ClusterSnapshot, clusterRefOf, type Finding, SEVERITIES, type Severity } from '../model.ts';
import { escapeHtml } from '../quote/html.ts';
import { jsonText } from '../quote/json.ts';
import { blastRadiusView, podsRunOnLine } from './blast-radius.ts';
import { buildDependencyGraph, type DependencyGraph, type GraphNode } from './dependency-graph.ts';
import {
  countBySeverity,
  namesList,
  nodesLabel,
  planAddressOf,
  sortFindings,
  terraformLabel,
} from './layout.ts';

export interface HtmlWhatIf {
  label: string;
  effects: readonly { summary: string; assumed: boolean }[];
  findings: readonly Finding[];
}

export interface HtmlReportCluster {
  snapshot: ClusterSnapshot;
  findings: readonly Finding[];
  whatIf: readonly HtmlWhatIf[];
}

export interface HtmlReportInput {
  title: string;
  tool: { name: string; version?: string };
  clusters: readonly HtmlReportCluster[];
  /** Clusters or Regions that could not be read, one line each. */
  unreadable?: readonly string[];
}

const h = escapeHtml;

const CSS = `
:root{--critical:#b00020;--high:#d35400;--medium:#b7950b;--low:#2471a3;--info:#566573;--ok:#1e8449;--risk:#d68910}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:16px 24px;color:#1b1b1b}
h1{font-size:22px}h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}h3{font-size:16px}
table.summary{border-collapse:collapse}table.summary td,table.summary th{border:1px solid #ccc;padding:4px 10px;text-align:right}
table.summary td:first-child,table.summary th:first-child{text-align:left}
.sev{display:inline-block;min-width:64px;text-align:center;color:#fff;border-radius:3px;font-size:12px;font-weight:600;padding:1px 6px;text-transform:uppercase}
.sev-critical{background:var(--critical)}.sev-high{background:var(--high)}.sev-medium{background:var(--medium)}.sev-low{background:var(--low)}.sev-info{background:var(--info)}
.finding{border:1px solid #ddd;border-left:6px solid var(--info);border-radius:4px;padding:8px 14px;margin:12px 0}
.finding.critical{border-left-color:var(--critical)}.finding.high{border-left-color:var(--high)}.finding.medium{border-left-color:var(--medium)}.finding.low{border-left-color:var(--low)}
.finding h4{margin:4px 0 6px;font-size:15px}.meta{color:#555;font-size:12px}
pre{background:#f6f6f6;border:1px solid #e3e3e3;padding:8px;overflow:auto;white-space:pre-wrap;word-break:break-all;font-size:12px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0}dt{color:#555}dd{margin:0}
.graph{overflow:auto;border:1px solid #ddd;border-radius:4px;padding:6px}
.graph text{font:12px system-ui,sans-serif;fill:#1b1b1b}.graph text.sub{font-size:10px;fill:#555}
.graph rect{stroke-width:1.5;fill:#fff}
.graph .principal rect{fill:#eef4fb;stroke:#2471a3}.graph .authorization rect{fill:#fdf7e7;stroke:#9a7d0a}.graph .compute rect{fill:#eef8f0;stroke:#1e8449}
.graph .at-risk rect{stroke:var(--risk);stroke-width:3;stroke-dasharray:6 3}.graph .broken rect{stroke:var(--critical);stroke-width:3}
.graph path{fill:none;stroke:#888;stroke-width:1.5}.graph path.at-risk{stroke:var(--risk);stroke-width:2.5;stroke-dasharray:6 3}.graph path.broken{stroke:var(--critical);stroke-width:2.5}
.legend span{margin-right:14px}.legend i{display:inline-block;width:22px;height:0;border-top:3px solid #888;vertical-align:middle;margin-right:4px}
.legend i.broken{border-color:var(--critical)}.legend i.at-risk{border-top-style:dashed;border-color:var(--risk)}
.effects li.assumed{color:#7d6608}
`;

// ---------------------------------------------------------------------------------------------
// The picture

const CHAR_WIDTH = 6.6;
const MAX_LABEL = 64;
const NODE_HEIGHT = 38;

function clipped(s: string): string {
  return s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s;
}

function nodeWidth(n: GraphNode): number {
  const longest = Math.max(clipped(n.label).length, clipped(n.sublabel ?? '').length * 0.85);
  return Math.ceil(longest * CHAR_WIDTH + 20);
}

const KIND_NAME = {
  principal: 'principal',
  authorization: 'how it is authorized',
  compute: 'compute',
} as const;

/** The graph laid out by dagre (left to right: principal → authorization → compute), as SVG. */
export function renderGraphSvg(graph: DependencyGraph): string {
  if (graph.nodes.length === 0) return '<p>No principal or compute in this snapshot.</p>';
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 14, ranksep: 70, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) g.setNode(n.id, { width: nodeWidth(n), height: NODE_HEIGHT });
  for (const e of graph.edges) g.setEdge(e.from, e.to);
  dagre.layout(g);
  const num = (x: number) => (Math.round(x * 10) / 10).toString();
  const parts: string[] = [];
  for (const e of graph.edges) {
    const points: readonly { x: number; y: number }[] = g.edge(e.from, e.to)?.points ?? [];
    if (points.length === 0) continue;
    const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${num(p.x)},${num(p.y)}`).join(' ');
    parts.push(`<path class="edge ${e.state}" data-state="${e.state}" d="${d}" marker-end="url(#arrow)"/>`);
  }
  for (const n of graph.nodes) {
    const box = g.node(n.id);
    if (!box) continue;
    const x = box.x - box.width / 2;
    const y = box.y - box.height / 2;
    const full = `${KIND_NAME[n.kind]}: ${n.label}${n.sublabel ? ` — ${n.sublabel}` : ''}${n.state === 'ok' ? '' : ` (${n.state})`}`;
    parts.push(
      `<g class="node ${n.kind} ${n.state}" data-kind="${n.kind}" data-state="${n.state}" data-label="${h(n.label)}"><title>${h(full)}</title>` +
        `<rect x="${num(x)}" y="${num(y)}" width="${num(box.width)}" height="${num(box.height)}" rx="5"/>` +
        `<text x="${num(x + 10)}" y="${num(y + 16)}">${h(clipped(n.label))}</text>` +
        (n.sublabel
          ? `<text class="sub" x="${num(x + 10)}" y="${num(y + 30)}">${h(clipped(n.sublabel))}</text>`
          : '') +
        '</g>',
    );
  }
  const size = g.graph();
  const width = Math.ceil(size.width ?? 0);
  const height = Math.ceil(size.height ?? 0);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="who depends on what" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#888"/></marker></defs>',
    ...parts,
    '</svg>',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Findings

function sevBadge(s: Severity): string {
  return `<span class="sev sev-${s}">${s}</span>`;
}

function renderFinding(f: Finding): string {
  const rows: Array<[string, string]> = [
    ['rule', h(f.ruleId)],
    ['subject', h(f.subject)],
    ['trigger', h(f.trigger)],
  ];
  const address = planAddressOf(f);
  if (address !== undefined) rows.push(['plan address', `<code class="plan-address">${h(address)}</code>`]);
  if (f.actor) {
    const a = f.actor;
    const who = [a.arn ?? a.manager, a.sessionName, a.sourceIp, a.userAgent, a.time].filter(
      (x): x is string => !!x,
    );
    rows.push(['changed by', h(who.join(' · '))]);
  }
  const b = f.blastRadius;
  if (b) {
    const view = blastRadiusView(b);
    const listOf = (names: readonly string[], total: number) => namesList(names, total, h);
    rows.push(['blast radius', view.headline((n) => `<code>${h(n)}</code>`)]);
    for (const row of view.rows) {
      rows.push([
        h(row.label),
        row.label === 'nodes' ? nodesLabel(row.total, row.names, h) : listOf(row.names, row.total),
      ]);
    }
    if (view.podsRunOn.length > 0) rows.push(['where it breaks', podsRunOnLine(view.podsRunOn, listOf)]);
    if (view.timeToImpact !== undefined) rows.push(['time to impact', h(view.timeToImpact)]);
  }
  rows.push(['fingerprint', h(f.fingerprint)]);
  const fix: string[] = [];
  const r = f.remediation;
  if (r) {
    fix.push(`<p><strong>Fix:</strong> ${h(r.summary)}</p>`);
    for (const [label, code] of [
      ['AWS CLI', r.awsCli],
      ...(r.alternatives ?? []).map((x) => [x.label, x.shell] as const),
      [terraformLabel(r), r.terraform],
      ['aws-auth YAML', r.awsAuthYaml],
    ] as const) {
      if (code !== undefined) fix.push(`<p class="meta">${h(label)}</p><pre><code>${h(code)}</code></pre>`);
    }
    if (r.notes && r.notes.length > 0)
      fix.push(`<ul>${r.notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>`);
  }
  return [
    `<article class="finding ${f.severity}" data-rule="${h(f.ruleId)}" data-severity="${f.severity}">`,
    `<h4>${sevBadge(f.severity)} ${h(f.title)}</h4>`,
    `<p>${h(f.detail)}</p>`,
    `<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`,
    ...fix,
    `<details><summary>evidence</summary><pre>${h(jsonText(f.evidence, 2))}</pre></details>`,
    '</article>',
  ].join('\n');
}

function renderFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return '<p>No findings.</p>';
  return sortFindings(findings).map(renderFinding).join('\n');
}

function countsRow(label: string, findings: readonly Finding[]): string {
  const counts = countBySeverity(findings);
  return `<tr><td>${label}</td>${SEVERITIES.map((s) => `<td class="count-${s}">${counts[s]}</td>`).join('')}</tr>`;
}

function renderCluster(c: HtmlReportCluster, index: number): string {
  const ref = clusterRefOf(c.snapshot);
  const predicted = c.whatIf.flatMap((w) => w.findings);
  const graph = buildDependencyGraph(c.snapshot, c.findings, predicted);
  const whatIfs = c.whatIf.map(
    (w) =>
      `<section class="whatif"><h3>What if: ${h(w.label)}</h3>` +
      (w.effects.length > 0
        ? `<ul class="effects">${w.effects.map((e) => `<li${e.assumed ? ' class="assumed"' : ''}>${h(e.summary)}${e.assumed ? ' (assumed)' : ''}</li>`).join('')}</ul>`
        : '') +
      `${renderFindings(w.findings)}</section>`,
  );
  return [
    `<section class="cluster" id="cluster-${index}">`,
    `<h2>Cluster ${h(ref.name)} <span class="meta">account ${h(ref.accountId)}, region ${h(ref.region)}, mode ${h(c.snapshot.cluster.authenticationMode)}, captured ${h(c.snapshot.capturedAt)}</span></h2>`,
    '<h3>Who depends on what</h3>',
    '<p class="legend"><span><i></i>works</span><span><i class="at-risk"></i>at risk (a what-if below breaks it)</span><span><i class="broken"></i>broken now</span> — principal → how it is authorized → compute that uses it</p>',
    `<div class="graph">${renderGraphSvg(graph)}</div>`,
    `<h3>Assessment (${c.findings.length} finding${c.findings.length === 1 ? '' : 's'})</h3>`,
    renderFindings(c.findings),
    ...whatIfs,
    '</section>',
  ].join('\n');
}

/** The whole page. */
export function renderHtmlReport(input: HtmlReportInput): string {
  const summary = [
    '<table class="summary"><thead><tr><th>cluster</th>',
    ...SEVERITIES.map((s) => `<th>${sevBadge(s)}</th>`),
    '</tr></thead><tbody>',
    ...input.clusters.flatMap((c) => {
      const ref = clusterRefOf(c.snapshot);
      return [
        countsRow(`${h(ref.name)} (${h(ref.accountId)}, ${h(ref.region)})`, c.findings),
        countsRow(
          `<span class="meta">what-ifs of ${h(ref.name)}</span>`,
          c.whatIf.flatMap((w) => w.findings),
        ),
      ];
    }),
    '</tbody></table>',
  ].join('');
  const unreadable = input.unreadable ?? [];
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${h(input.title)}</title>`,
    `<style>${CSS}</style></head><body>`,
    `<h1>${h(input.title)}</h1>`,
    `<p class="meta">${h(input.tool.name)}${input.tool.version === undefined ? '' : ` ${h(input.tool.version)}`} — current-state findings by severity, then each cluster in full</p>`,
    summary,
    ...(unreadable.length > 0
      ? [`<h2>Could not be read</h2><ul>${unreadable.map((u) => `<li>${h(u)}</li>`).join('')}</ul>`]
      : []),
    ...input.clusters.map(renderCluster),
    '</body></html>',
    '',
  ].join('\n');
}
