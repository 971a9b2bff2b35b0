/**
 * Use case of `report` (invoke only): for one cluster or every cluster of the configured Regions,
 * a fresh capture (default) or the last stored snapshot → the state findings plus a what-if for
 * the deletion of every managed node group and Fargate profile ("who would lose access if I
 * delete X?") → a JSON document with a Markdown rendering inside. Read-only: nothing is stored
 * and nothing is alerted.
 */

import { mapLimit } from '../core/concurrency.ts';
import { dedupeFixCommands } from '../core/fixes/index.ts';
import type { ClusterId, ClusterSnapshot, Finding } from '../core/model.ts';
import {
  assessSnapshot,
  type Change,
  deletionChanges,
  describeChange,
  type EvaluateOptions,
  type SimulationEffect,
  whatIf,
} from '../core/predict/index.ts';
import { renderMarkdown } from '../core/render/index.ts';
import { safeErrorMessage } from '../errors.ts';
import type { CaptureDeps, CaptureTarget, SnapshotStore } from '../ports.ts';
import { captureSnapshot } from './capture-snapshot.ts';
import { ReportRequestError } from './errors.ts';
import { listClusters } from './list-clusters.ts';

export interface BuildReportDeps {
  capture: CaptureDeps;
  snapshots: SnapshotStore;
}

export interface ReportRequest {
  cluster?: string;
  region?: string;
  /** `fresh` (default): capture now; `stored`: the worker's last snapshot. */
  source?: 'fresh' | 'stored';
  /** `html`: the response also carries the self-contained HTML page (`report --format html`). */
  format?: 'markdown' | 'html';
}

export interface ReportSettings {
  /** The account (from the function ARN); without it clusters are keyed by their ARN's account. */
  accountId?: string;
  regions: readonly string[];
  monitorPrincipalArn: string;
  concurrency: number;
  /** Upper bound of the whole Markdown rendering (Lambda responses are at most 6 MB). */
  maxMarkdownChars?: number;
}

export interface WhatIfReport {
  change: Change;
  label: string;
  effects: SimulationEffect[];
  findings: Finding[];
}

export interface ClusterReport {
  cluster: string;
  region: string;
  source: 'fresh' | 'stored';
  capturedAt?: string;
  findings: Finding[];
  whatIf: WhatIfReport[];
  error?: string;
}

export interface Report {
  generatedAt: string;
  accountId?: string;
  clusters: ClusterReport[];
  /** Regions whose cluster list could not be read. */
  errors: Array<{ region: string; error: string }>;
  markdown: string;
  /** The HTML page, when the request asked for `format: "html"`. */
  html?: string;
}

const DEFAULT_MAX_MARKDOWN = 1_000_000;

const accountOf = (settings: ReportSettings) =>
  settings.accountId === undefined ? {} : { accountId: settings.accountId };

async function targetsOf(
  deps: BuildReportDeps,
  request: ReportRequest,
  settings: ReportSettings,
): Promise<{ targets: CaptureTarget[]; errors: Report['errors'] }> {
  if (request.cluster !== undefined && request.region !== undefined) {
    return {
      targets: [{ region: request.region, clusterName: request.cluster, ...accountOf(settings) }],
      errors: [],
    };
  }
  const regions = request.region === undefined ? settings.regions : [request.region];
  const listing = await listClusters(deps.capture, regions);
  const targets = listing.clusters
    .filter((c) => request.cluster === undefined || c.clusterName === request.cluster)
    .map((c) => ({ ...c, ...accountOf(settings) }));
  if (request.cluster !== undefined && targets.length === 0 && listing.errors.length === 0) {
    throw new ReportRequestError(`no cluster ${request.cluster} in ${regions.join(', ')}`);
  }
  return { targets, errors: listing.errors };
}

async function reportOne(
  deps: BuildReportDeps,
  target: CaptureTarget,
  source: 'fresh' | 'stored',
  settings: ReportSettings,
  /** Called with the snapshot reported on (the HTML page draws from it). */
  onSnapshot?: (snapshot: ClusterSnapshot, report: ClusterReport) => void,
): Promise<ClusterReport> {
  const base = { cluster: target.clusterName, region: target.region, source };
  let snapshot: ClusterSnapshot | undefined;
  try {
    if (source === 'stored') {
      if (settings.accountId === undefined)
        throw new ReportRequestError('a stored snapshot needs the account ID');
      const key: ClusterId = {
        accountId: settings.accountId,
        region: target.region,
        clusterName: target.clusterName,
      };
      snapshot = await deps.snapshots.latest(key);
      if (snapshot === undefined)
        return { ...base, findings: [], whatIf: [], error: 'no stored snapshot yet' };
    } else {
      snapshot = await captureSnapshot(deps.capture, target);
    }
  } catch (error) {
    return { ...base, findings: [], whatIf: [], error: safeErrorMessage(error) };
  }
  const report: ClusterReport = {
    ...base,
    capturedAt: snapshot.capturedAt,
    ...assessWithWhatIfs(snapshot, deletionChanges(snapshot), settings),
  };
  onSnapshot?.(snapshot, report);
  return report;
}

/** The state findings of one snapshot and a what-if for each of `changes` (the CLI's report and demo too). */
export function assessWithWhatIfs(
  snapshot: ClusterSnapshot,
  changes: readonly Change[],
  options: Pick<EvaluateOptions, 'monitorPrincipalArn'> = {},
): Pick<ClusterReport, 'findings' | 'whatIf'> {
  const engine =
    options.monitorPrincipalArn === undefined ? {} : { monitorPrincipalArn: options.monitorPrincipalArn };
  return {
    findings: dedupeFixCommands(assessSnapshot(snapshot, { ...engine, trigger: 'manual' })),
    whatIf: changes.map((change) => {
      const result = whatIf(snapshot, change, { ...engine, trigger: 'whatif' });
      return {
        change,
        label: describeChange(change),
        effects: result.effects,
        findings: dedupeFixCommands(result.findings),
      };
    }),
  };
}

export function renderReportMarkdown(
  clusters: readonly ClusterReport[],
  maxChars = DEFAULT_MAX_MARKDOWN,
): string {
  const sections = Math.max(
    1,
    clusters.reduce((n, c) => n + 1 + c.whatIf.length, 0),
  );
  const budget = Math.max(4_000, Math.floor(maxChars / sections));
  const refOf = (c: ClusterReport) => ({
    accountId: c.findings[0]?.cluster.accountId ?? '',
    region: c.region,
    name: c.cluster,
  });
  // Every cluster's current state first (what is broken now), then the what-ifs (hypothetical).
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

/** The HTML page of `format: "html"`: the clusters read, in the report's order, and what could not be. */
async function reportHtml(
  pages: Array<{ snapshot: ClusterSnapshot; report: ClusterReport }>,
  clusters: readonly ClusterReport[],
  errors: Report['errors'],
): Promise<string> {
  // Loaded here: the page and its layout library serve only this format.
  const { renderHtmlReport } = await import('../core/render/html-report.ts');
  const order = new Map(clusters.map((c, i) => [c, i] as const));
  pages.sort((a, b) => (order.get(a.report) ?? 0) - (order.get(b.report) ?? 0));
  return renderHtmlReport({
    title: 'EKS authentication report',
    tool: { name: 'eks-auth-sentinel' },
    clusters: pages.map((p) => ({
      snapshot: p.snapshot,
      findings: p.report.findings,
      whatIf: p.report.whatIf,
    })),
    unreadable: [
      ...clusters.flatMap((c) => (c.error === undefined ? [] : [`${c.region}/${c.cluster}: ${c.error}`])),
      ...errors.map((e) => `Region ${e.region}: ${e.error}`),
    ],
  });
}

export async function buildReport(
  deps: BuildReportDeps,
  request: ReportRequest,
  settings: ReportSettings,
  now: Date,
): Promise<Report> {
  const source = request.source ?? 'fresh';
  const { targets, errors } = await targetsOf(deps, request, settings);
  const pages: Array<{ snapshot: ClusterSnapshot; report: ClusterReport }> = [];
  const onSnapshot =
    request.format === 'html'
      ? (snapshot: ClusterSnapshot, report: ClusterReport) => pages.push({ snapshot, report })
      : undefined;
  const clusters = await mapLimit(targets, settings.concurrency, (t) =>
    reportOne(deps, t, source, settings, onSnapshot),
  );
  return {
    generatedAt: now.toISOString(),
    ...accountOf(settings),
    clusters,
    errors,
    markdown: renderReportMarkdown(clusters, settings.maxMarkdownChars),
    ...(request.format === 'html' ? { html: await reportHtml(pages, clusters, errors) } : {}),
  };
}
