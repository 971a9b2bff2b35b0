/**
 * Use case of `report`, for the Lambda `report` function and the CLI's `report` alike: for one
 * cluster or every cluster of the Regions, a fresh capture (default) or the last stored snapshot
 * → the state findings plus a what-if for the deletion of every managed node group and Fargate
 * profile ("who would lose access if I delete X?"). Read-only: nothing is stored and nothing is
 * alerted. The Lambda answers with JSON and its Markdown inside (`buildReport`); the CLI renders
 * the result in the format asked for (`reportCommand`).
 */
import { dedupeFixCommands } from '../../core/fixes/index.ts';
import type { ClusterId, ClusterSnapshot } from '../../core/model.ts';
import { podIdentityPlanOf } from '../../core/parity/index.ts';
import {
  assessSnapshot,
  type Change,
  deletionChanges,
  describeChange,
  type EvaluateOptions,
  whatIf,
} from '../../core/predict/index.ts';
import {
  type AssessedCluster,
  type CommandResult,
  type ReportedCluster,
  type ReportMarkdownCluster,
  renderReportMarkdown,
  severitiesOf,
  type Unreadable,
} from '../../core/render/index.ts';
import type { CaptureDeps, CaptureTarget, SnapshotStore } from '../../ports.ts';
import { captureSnapshot } from '../capture-snapshot.ts';
import { ReportRequestError } from '../errors.ts';
import {
  type ClusterScope,
  type CommandPorts,
  type CommandProgress,
  liveOf,
  readClusters,
  targetsOf,
} from './command-inputs.ts';

/** The state findings of one snapshot and a what-if for each of `changes` (the report and the demo). */
export function assessWithWhatIfs(
  snapshot: ClusterSnapshot,
  changes: readonly Change[],
  options: Pick<EvaluateOptions, 'monitorPrincipalArn'> = {},
): AssessedCluster {
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

export interface ReportOptions {
  /** `fresh`: capture now; `stored`: the worker's last snapshot (needs `accountId`). */
  source: 'fresh' | 'stored';
  concurrency: number;
  /** The account; without it clusters are keyed by their ARN's account. */
  accountId?: string;
  monitorPrincipalArn?: string;
  /** Also plan each cluster's IRSA → Pod Identity move (the CLI's report shows it). */
  podIdentityPlans?: boolean;
}

export interface ReportDeps {
  capture: CaptureDeps;
  /** For a stored report. */
  snapshots?: SnapshotStore;
}

/** One cluster of a report: read and assessed, or why not. */
export type ReportedTarget =
  | { target: CaptureTarget; ok: true; reported: ReportedCluster }
  | { target: CaptureTarget; ok: false; error: string };

const accountOf = (accountId: string | undefined) => (accountId === undefined ? {} : { accountId });

/** The snapshot a stored report starts from; a cluster the worker has not read yet is unreadable. */
async function storedSnapshot(
  deps: ReportDeps,
  target: CaptureTarget,
  accountId: string | undefined,
): Promise<ClusterSnapshot | { missing: string }> {
  if (accountId === undefined) throw new ReportRequestError('a stored snapshot needs the account ID');
  if (deps.snapshots === undefined) throw new ReportRequestError('no snapshot store here');
  const key: ClusterId = { accountId, region: target.region, clusterName: target.clusterName };
  const snapshot = await deps.snapshots.latest(key);
  return snapshot ?? { missing: 'no stored snapshot yet' };
}

/** One snapshot's report: its findings, the what-if of each deletion, the IRSA → Pod Identity plan. */
export function reportSnapshot(
  snapshot: ClusterSnapshot,
  options: Pick<ReportOptions, 'monitorPrincipalArn' | 'podIdentityPlans'> = {},
): ReportedCluster {
  const plan = options.podIdentityPlans === true ? podIdentityPlanOf(snapshot) : undefined;
  return {
    snapshot,
    ...assessWithWhatIfs(snapshot, deletionChanges(snapshot), options),
    ...(plan ? { podIdentityPlan: plan } : {}),
  };
}

/** Reads and reports every cluster of `scope`, in the order listed. */
export async function reportClusters(
  deps: ReportDeps,
  scope: ClusterScope,
  options: ReportOptions,
  progress?: CommandProgress,
): Promise<{ clusters: ReportedTarget[]; regionErrors: Unreadable[]; unreadable: Unreadable[] }> {
  const { targets, regionErrors } = await targetsOf(deps.capture, scope, options.accountId, progress);
  const read = (target: CaptureTarget) =>
    options.source === 'stored'
      ? storedSnapshot(deps, target, options.accountId)
      : captureSnapshot(deps.capture, target);
  const { reads, unreadable } = await readClusters(targets, options.concurrency, read, progress);
  const clusters = reads.map(
    (r): ReportedTarget =>
      r.ok
        ? { target: r.target, ok: true, reported: reportSnapshot(r.snapshot, options) }
        : { target: r.target, ok: false, error: r.error },
  );
  return { clusters, regionErrors, unreadable: [...regionErrors, ...unreadable] };
}

// ---------------------------------------------------------------------------------------------
// the CLI's `report`

export interface ReportCommandInput {
  /** undefined: every cluster of the Regions. */
  clusterName: string | undefined;
  regions: string[];
  concurrency: number;
  /** Report on this snapshot file instead of reading clusters live. */
  snapshotFile?: string;
}

export async function reportCommand(ports: CommandPorts, input: ReportCommandInput): Promise<CommandResult> {
  if (input.snapshotFile !== undefined) {
    const snapshot = await ports.files.loadSnapshot(input.snapshotFile);
    const clusters = [reportSnapshot(snapshot, { podIdentityPlans: true })];
    return {
      kind: 'report',
      regions: [snapshot.region],
      clusters,
      unreadable: [],
      exit: { severities: severitiesOf(clusters), failOnDefault: 'critical' },
    };
  }
  const capture = await liveOf(ports).captureDeps();
  const scope: ClusterScope =
    input.clusterName === undefined
      ? { kind: 'listed', regions: input.regions }
      : { kind: 'named', clusterName: input.clusterName, regions: input.regions };
  const read = await reportClusters(
    { capture },
    scope,
    { source: 'fresh', concurrency: input.concurrency, podIdentityPlans: true },
    ports.progress,
  );
  const clusters = read.clusters.flatMap((c) => (c.ok ? [c.reported] : []));
  return {
    kind: 'report',
    regions: input.regions,
    clusters,
    unreadable: read.unreadable,
    exit: {
      severities: severitiesOf(clusters),
      failOnDefault: 'critical',
      ...(read.unreadable.length > 0 ? { incomplete: 'after' as const } : {}),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// the Lambda's `report`

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

export type ClusterReport = ReportMarkdownCluster;

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

/** The HTML page of `format: "html"`: the clusters read, in the report's order, and what could not be. */
async function reportHtml(clusters: readonly ReportedTarget[], errors: Report['errors']): Promise<string> {
  // Loaded here: the page and its layout library serve only this format.
  const { renderHtmlReport } = await import('../../core/render/html-report.ts');
  return renderHtmlReport({
    title: 'EKS authentication report',
    tool: { name: 'eks-auth-sentinel' },
    clusters: clusters.flatMap((c) =>
      c.ok
        ? [{ snapshot: c.reported.snapshot, findings: c.reported.findings, whatIf: c.reported.whatIf }]
        : [],
    ),
    unreadable: [
      ...clusters.flatMap((c) => (c.ok ? [] : [`${c.target.region}/${c.target.clusterName}: ${c.error}`])),
      ...errors.map((e) => `Region ${e.region}: ${e.error}`),
    ],
  });
}

export async function buildReport(
  deps: Required<ReportDeps>,
  request: ReportRequest,
  settings: ReportSettings,
  now: Date,
): Promise<Report> {
  const source = request.source ?? 'fresh';
  const scope: ClusterScope =
    request.cluster !== undefined && request.region !== undefined
      ? { kind: 'named', clusterName: request.cluster, regions: [request.region] }
      : {
          kind: 'listed',
          regions: request.region === undefined ? settings.regions : [request.region],
          ...(request.cluster === undefined ? {} : { clusterName: request.cluster }),
        };
  const read = await reportClusters(deps, scope, {
    source,
    concurrency: settings.concurrency,
    ...accountOf(settings.accountId),
    monitorPrincipalArn: settings.monitorPrincipalArn,
  });
  const clusters = read.clusters.map((c): ClusterReport => {
    const base = { cluster: c.target.clusterName, region: c.target.region, source };
    if (!c.ok) return { ...base, findings: [], whatIf: [], error: c.error };
    const { findings, whatIf: whatIfs, snapshot } = c.reported;
    return { ...base, capturedAt: snapshot.capturedAt, findings, whatIf: whatIfs };
  });
  const errors = read.regionErrors.map((e) => ({ region: e.region, error: e.error }));
  return {
    generatedAt: now.toISOString(),
    ...accountOf(settings.accountId),
    clusters,
    errors,
    markdown: renderReportMarkdown(clusters, settings.maxMarkdownChars),
    ...(request.format === 'html' ? { html: await reportHtml(read.clusters, errors) } : {}),
  };
}
