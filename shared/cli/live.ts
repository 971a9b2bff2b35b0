/**
 * The live commands: `snapshot`, `report`, and the live capture behind `assess`/`whatif --cluster`.
 * AWS and Kubernetes are reached only through `io.live` (real adapters in node-io.ts, the sandbox
 * in tests). A cluster that cannot be read is one line on stderr naming what failed; it never
 * stops the other clusters.
 */

import { assessWithWhatIfs } from '../app/build-report.ts';
import { type CaptureOutcome, captureSnapshot, captureSnapshots } from '../app/capture-snapshot.ts';
import { listClusters } from '../app/list-clusters.ts';
import type { ClusterSnapshot } from '../core/model.ts';
import { podIdentityPlanOf } from '../core/parity/index.ts';
import { deletionChanges } from '../core/predict/index.ts';
import { countBySeverity, renderFixSection } from '../core/render/index.ts';
import { safeErrorMessage } from '../errors.ts';
import type { CaptureTarget } from '../ports.ts';
import type { ParsedArgs, SnapshotSource } from './args.ts';
import {
  type Assessed,
  allFindings,
  clusterJson,
  renderReportBlocks,
  summaryTable,
} from './cluster-report.ts';
import { CliError, formatErrorLine } from './errors.ts';
import { inputName, loadSnapshot } from './inputs.ts';
import type { CliIo, LiveIo } from './io.ts';
import { clusterOf, EXIT, exitFor, stamped, toolInfo } from './output.ts';
import { readVersion } from './version.ts';

type SnapshotArgs = Extract<ParsedArgs, { kind: 'snapshot' }>;
type ReportArgs = Extract<ParsedArgs, { kind: 'report' }>;

/** A cluster or Region that could not be read at all. */
interface Unreadable {
  region: string;
  clusterName?: string;
  error: string;
}

function liveOf(io: CliIo): LiveIo {
  if (io.live === undefined) throw new CliError('live collection is not available in this build');
  return io.live;
}

function label(target: { region: string; clusterName?: string }): string {
  return target.clusterName === undefined
    ? `Region ${target.region}`
    : `cluster ${target.clusterName} (${target.region})`;
}

function unreadableLine(u: Unreadable): string {
  return `${label(u)} could not be read: ${u.error}`;
}

function reportUnreadable(io: CliIo, u: Unreadable): void {
  io.stderr(formatErrorLine(unreadableLine(u)));
}

function progress(io: CliIo, text: string): void {
  if (io.stderrIsTTY === true) io.stderr(`${text}\n`);
}

/** The snapshot a command works on: read from its file, or captured live (exit 2 when it cannot be). */
export async function obtainSnapshot(
  io: CliIo,
  source: SnapshotSource,
): Promise<{ snapshot: ClusterSnapshot; where: string }> {
  if (source.kind === 'file')
    return { snapshot: await loadSnapshot(io, source.path), where: inputName(source.path) };
  const deps = await liveOf(io).captureDeps();
  const target = { region: source.region, clusterName: source.clusterName };
  try {
    return { snapshot: await captureSnapshot(deps, target), where: label(target) };
  } catch (error) {
    throw new CliError(unreadableLine({ ...target, error: safeErrorMessage(error) }), { cause: error });
  }
}

/** The clusters to read: the one named, or every cluster of the Regions (a Region that fails is unreadable). */
async function targetsOf(
  io: CliIo,
  deps: Awaited<ReturnType<LiveIo['captureDeps']>>,
  clusterName: string | undefined,
  regions: string[],
): Promise<{ targets: CaptureTarget[]; unreadable: Unreadable[] }> {
  if (clusterName !== undefined) {
    return { targets: regions.map((region) => ({ region, clusterName })), unreadable: [] };
  }
  const listing = await listClusters(deps, regions);
  const unreadable = listing.errors.map((e) => ({ region: e.region, error: e.error }));
  for (const u of unreadable) reportUnreadable(io, u);
  const listed = regions.filter((r) => !unreadable.some((u) => u.region === r));
  progress(
    io,
    `${listing.clusters.length} cluster(s) in ${listed.length > 0 ? listed.join(', ') : 'no readable Region'}`,
  );
  return { targets: listing.clusters, unreadable };
}

async function captureAll(
  io: CliIo,
  args: { clusterName: string | undefined; regions: string[]; concurrency: number },
): Promise<{ outcomes: CaptureOutcome[]; unreadable: Unreadable[]; onDone: (summary: string) => void }> {
  const deps = await liveOf(io).captureDeps();
  const { targets, unreadable } = await targetsOf(io, deps, args.clusterName, args.regions);
  const started = Date.now();
  let done = 0;
  const outcomes = await captureSnapshots(deps, targets, args.concurrency, (outcome) => {
    done += 1;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const where = `${outcome.target.region}/${outcome.target.clusterName}`;
    progress(
      io,
      `[${done}/${targets.length}] ${where}: ${outcome.ok ? 'read' : 'could not be read'} (${seconds} s)`,
    );
  });
  for (const outcome of outcomes) {
    if (outcome.ok) continue;
    const u = { ...outcome.target, error: safeErrorMessage(outcome.error) };
    unreadable.push(u);
    reportUnreadable(io, u);
  }
  return {
    outcomes,
    unreadable,
    onDone: (summary) => progress(io, `${summary} in ${((Date.now() - started) / 1000).toFixed(1)} s`),
  };
}

// ---------------------------------------------------------------------------------------------
// snapshot

function writeError(path: string, error: unknown): CliError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EISDIR') return new CliError(`${path} is a directory, expected a file`, { cause: error });
  return new CliError(`cannot write ${path}: ${typeof code === 'string' ? code : safeErrorMessage(error)}`, {
    cause: error,
  });
}

export async function runSnapshot(args: SnapshotArgs, io: CliIo): Promise<number> {
  const live = liveOf(io);
  const written: Array<{ cluster: string; region: string; path: string }> = [];
  let unreadable: Unreadable[] = [];

  if (args.destination.kind === 'file') {
    const region = args.regions[0] as string;
    const { snapshot } = await obtainSnapshot(io, {
      kind: 'live',
      clusterName: args.clusterName ?? '',
      region,
    });
    const text = `${JSON.stringify(snapshot, null, 2)}\n`;
    if (args.destination.path === '-') {
      io.stdout(text);
      return EXIT.ok;
    }
    try {
      await live.writeFileAtomic(args.destination.path, text);
    } catch (error) {
      throw writeError(args.destination.path, error);
    }
    written.push({ cluster: snapshot.clusterName, region: snapshot.region, path: args.destination.path });
  } else {
    const store = await live.snapshotStore(args.destination.dir);
    const capture = await captureAll(io, args);
    unreadable = capture.unreadable;
    for (const outcome of capture.outcomes) {
      if (!outcome.ok) continue;
      const { snapshot } = outcome;
      const path = store.pathOf({
        accountId: snapshot.accountId,
        region: snapshot.region,
        clusterName: snapshot.clusterName,
      });
      try {
        await store.put(snapshot);
      } catch (error) {
        throw writeError(path, error);
      }
      written.push({ cluster: snapshot.clusterName, region: snapshot.region, path });
    }
    capture.onDone(`${written.length} snapshot(s) written`);
  }

  if (args.format === 'json') {
    io.stdout(`${JSON.stringify({ written, unreadable }, null, 2)}\n`);
  } else {
    for (const w of written) io.stdout(`${w.region}/${w.cluster}: ${w.path}\n`);
  }
  return unreadable.length > 0 ? EXIT.usage : EXIT.ok;
}

// ---------------------------------------------------------------------------------------------
// report

interface ReportedCluster {
  snapshot: ClusterSnapshot;
  assessed: Assessed;
}

function summaryText(reports: ReportedCluster[], unreadable: Unreadable[], regions: string[]): string {
  const counts = countBySeverity(reports.flatMap((r) => allFindings(r.assessed)));
  const bySeverity = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  return `${reports.length} cluster(s) read in ${regions.join(', ')}${
    unreadable.length > 0 ? `, ${unreadable.length} could not be read` : ''
  }; findings (assessments and what-ifs): ${bySeverity === '' ? 'none' : bySeverity}`;
}

/** The clusters of a report: the one snapshot of --snapshot FILE, or every cluster read live. */
async function reportedClusters(
  io: CliIo,
  args: ReportArgs,
): Promise<{ reports: ReportedCluster[]; unreadable: Unreadable[]; regions: string[] }> {
  const assessed = (snapshot: ClusterSnapshot): ReportedCluster => ({
    snapshot,
    assessed: assessWithWhatIfs(snapshot, deletionChanges(snapshot)),
  });
  if (args.snapshotFile !== undefined) {
    const snapshot = await loadSnapshot(io, args.snapshotFile);
    return { reports: [assessed(snapshot)], unreadable: [], regions: [snapshot.region] };
  }
  const capture = await captureAll(io, args);
  const reports = capture.outcomes.flatMap((o) => (o.ok ? [assessed(o.snapshot)] : []));
  capture.onDone(summaryText(reports, capture.unreadable, args.regions));
  return { reports, unreadable: capture.unreadable, regions: args.regions };
}

/** The report to stdout, or whole to --out FILE. */
async function emit(io: CliIo, args: ReportArgs, text: string): Promise<void> {
  if (args.out === undefined || args.out === '-') {
    io.stdout(text);
    return;
  }
  try {
    await liveOf(io).writeFileAtomic(args.out, text);
  } catch (error) {
    throw writeError(args.out, error);
  }
  io.stderr(`report written to ${args.out}\n`);
}

export async function runReport(args: ReportArgs, io: CliIo): Promise<number> {
  const { reports, unreadable, regions } = await reportedClusters(io, args);
  const summary = summaryText(reports, unreadable, regions);

  if (args.reportFormat === 'html') {
    // Loaded here: the page and its layout library serve only --format html.
    const { renderHtmlReport } = await import('../core/render/html-report.ts');
    await emit(
      io,
      args,
      renderHtmlReport({
        title: 'EKS authentication report',
        tool: toolInfo(await readVersion(io)),
        clusters: reports.map((r) => ({ snapshot: r.snapshot, ...r.assessed })),
        unreadable: unreadable.map(unreadableLine),
      }),
    );
  } else if (args.format === 'json') {
    const json = {
      regions,
      clusters: reports.map((r) => {
        const cluster = clusterOf(r.snapshot);
        const plan = podIdentityPlanOf(r.snapshot);
        return { cluster, ...clusterJson(cluster, r.assessed), ...(plan ? { podIdentityPlan: plan } : {}) };
      }),
      unreadable,
    };
    await emit(io, args, stamped('json', JSON.stringify(json), toolInfo(await readVersion(io))));
  } else {
    const table = summaryTable(
      args.format,
      reports.map((r) => ({ cluster: clusterOf(r.snapshot), assessed: r.assessed })),
    );
    const rows = reports.map((r) => ({ cluster: clusterOf(r.snapshot), assessed: r.assessed }));
    // The IRSA → Pod Identity plans come after every current state and what-if: advice, not alarm.
    const plans = reports.flatMap((r) => {
      const plan = podIdentityPlanOf(r.snapshot);
      const heading = `IRSA → Pod Identity plan for ${r.snapshot.clusterName}`;
      return plan
        ? [
            `\n${renderFixSection(args.format === 'markdown' ? 'markdown' : 'text', heading, plan.remediation)}`,
          ]
        : [];
    });
    const parts = [table, ...renderReportBlocks(io, args, rows), ...plans];
    if (unreadable.length > 0) {
      parts.push(
        args.format === 'markdown'
          ? `# Could not be read\n\n${unreadable.map((u) => `- ${unreadableLine(u)}`).join('\n')}\n`
          : `\n=== Could not be read ===\n${unreadable.map((u) => `${unreadableLine(u)}\n`).join('')}`,
      );
    }
    parts.push(args.format === 'markdown' ? `${summary}.\n` : `\n${summary}.\n`);
    await emit(io, args, parts.join(args.format === 'markdown' ? '\n' : ''));
  }

  const all = reports.flatMap((r) => allFindings(r.assessed));
  const byFindings = exitFor(all, args.failOn ?? 'critical');
  if (byFindings !== EXIT.ok) return byFindings;
  return unreadable.length > 0 ? EXIT.usage : EXIT.ok;
}
