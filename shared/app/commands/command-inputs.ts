/**
 * What the CLI's use cases read through: the input files (read and decoded by the CLI, which
 * names the file and line of a fault), live collection (AWS and Kubernetes through the capture
 * ports), and where progress goes. A cluster that cannot be read is an `Unreadable`, told to
 * `progress` as it is found; it never stops the other clusters.
 */

import { mapLimit } from '../../core/concurrency.ts';
import type { ClusterId, ClusterSnapshot, Finding, Severity } from '../../core/model.ts';
import type { Change } from '../../core/predict/index.ts';
import {
  type ExitIntent,
  targetLabel,
  type Unreadable,
  unreadableLine,
  type WatchAction,
  type WatchEvent,
} from '../../core/render/index.ts';
import { safeErrorMessage } from '../../errors.ts';
import type {
  AwsAuthWatcher,
  CaptureDeps,
  CaptureTarget,
  Clock,
  KubeClusterRef,
  SnapshotStore,
} from '../../ports.ts';
import type { AwsAuthAssessment } from '../assess-aws-auth-change.ts';
import { captureSnapshot } from '../capture-snapshot.ts';
import { CommandInputError, ReportRequestError } from '../errors.ts';
import { listClusters } from '../list-clusters.ts';

/** The input files of a command; each method rejects with a `CommandInputError` naming the file. */
export interface CommandFiles {
  /** A validated cluster snapshot. */
  loadSnapshot(path: string): Promise<ClusterSnapshot>;
  /** Any JSON document. */
  loadJson(path: string): Promise<unknown>;
  /** The text of a file. */
  readText(path: string): Promise<string>;
  /** How a path is named in messages (`stdin` for `-`). */
  nameOf(path: string): string;
}

/** A snapshot store in a local directory. */
export interface LocalSnapshotStore extends SnapshotStore {
  /** Where the snapshot of `key` is (or will be) written. */
  pathOf(key: ClusterId): string;
}

/** Live collection and local writing (the `snapshot` and `report` commands, `--cluster`). */
export interface LiveCapture {
  /** Readers over the user's credentials and endpoints; called once per command. */
  captureDeps(): Promise<CaptureDeps>;
  /** The local snapshot store in `dir` (undefined: the default); may load it first. */
  snapshotStore(dir: string | undefined): LocalSnapshotStore | Promise<LocalSnapshotStore>;
  /** Writes a whole file or nothing. */
  writeFileAtomic(path: string, text: string): Promise<void>;
  /** A Kubernetes watch on aws-auth over the user's credentials (`watch`); absent: not in this build. */
  awsAuthWatcher?(): Promise<AwsAuthWatcher>;
  /** `watch --remediate`: the remediation over the user's credentials; absent: not in this build. */
  watchRemediation?(): Promise<(request: WatchRemediationRequest) => Promise<readonly WatchAction[]>>;
}

/** What happens during a live capture of several clusters, as it happens. */
export type CaptureEvent =
  | { kind: 'listed'; clusters: number; regions: string[] }
  | { kind: 'capturing'; total: number }
  | { kind: 'captured'; done: number; total: number; where: string; ok: boolean };

export interface CommandProgress {
  /** A cluster or Region that could not be read. */
  unreadable(u: Unreadable): void;
  event(e: CaptureEvent): void;
}

export interface CommandPorts {
  files: CommandFiles;
  /**
   * The message of a CloudWatch Logs subscription event (`{awslogs: {data}}`: base64 of gzip),
   * for `whatif --event`; absent: such an event is refused, saying so.
   */
  decodeLogsSubscription?(event: unknown): unknown;
  /** Absent: the live commands fail saying so (exit 2). */
  live?: LiveCapture;
  progress?: CommandProgress;
}

/**
 * What `watch` needs besides the other commands' ports: where its events go as they happen (it
 * streams, so nothing is returned at the end but the exit), time, and the remediation to run.
 */
export interface WatchPorts extends CommandPorts {
  /** Each event as it happens (the CLI writes and flushes one line per event). */
  emit(event: WatchEvent): void;
  clock: Clock;
  /** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
  wait(ms: number, signal: AbortSignal): Promise<void>;
  /**
   * Acts on what the watch assessed (`--remediate dry-run|on`): the actions taken or, in dry-run,
   * that would be. Absent: remediation is not available, and `watch` says so once.
   */
  remediate?(request: WatchRemediationRequest): Promise<readonly WatchAction[]>;
}

/** What a remediation is asked to act on: an aws-auth write assessed, or a predicted change. */
export type WatchRemediationRequest =
  | { kind: 'aws-auth'; mode: 'dry-run' | 'on'; assessment: AwsAuthAssessment }
  | {
      kind: 'prediction';
      mode: 'dry-run' | 'on';
      cluster: KubeClusterRef;
      change: Change;
      /** The state the change was predicted on. */
      snapshot: ClusterSnapshot;
      findings: readonly Finding[];
    };

/** Where a command's snapshot comes from: a file, or a live capture of one cluster. */
export type SnapshotSource =
  | { kind: 'file'; path: string }
  | { kind: 'live'; clusterName: string; region: string };

export function liveOf(ports: CommandPorts): LiveCapture {
  if (ports.live === undefined) throw new CommandInputError('live collection is not available in this build');
  return ports.live;
}

/** The snapshot a command works on: read from its file, or captured live (exit 2 when it cannot be). */
export async function obtainSnapshot(
  ports: CommandPorts,
  source: SnapshotSource,
): Promise<{ snapshot: ClusterSnapshot; where: string }> {
  if (source.kind === 'file')
    return { snapshot: await ports.files.loadSnapshot(source.path), where: ports.files.nameOf(source.path) };
  const deps = await liveOf(ports).captureDeps();
  const target = { region: source.region, clusterName: source.clusterName };
  try {
    return { snapshot: await captureSnapshot(deps, target), where: targetLabel(target) };
  } catch (error) {
    throw new CommandInputError(unreadableLine({ ...target, error: safeErrorMessage(error) }), {
      cause: error,
    });
  }
}

/** One cluster read, or why not. */
export type ClusterRead =
  | { target: CaptureTarget; ok: true; snapshot: ClusterSnapshot }
  | { target: CaptureTarget; ok: false; error: string };

/**
 * Reads every target, `concurrency` at a time, telling `progress` of each as it completes; then
 * each one that failed as unreadable, in the targets' order. `read` returns the snapshot, or why
 * there is none to read (`{ missing }`), or throws.
 */
export async function readClusters(
  targets: readonly CaptureTarget[],
  concurrency: number,
  read: (target: CaptureTarget) => Promise<ClusterSnapshot | { missing: string }>,
  progress: CommandProgress | undefined,
): Promise<{ reads: ClusterRead[]; unreadable: Unreadable[] }> {
  progress?.event({ kind: 'capturing', total: targets.length });
  let done = 0;
  const reads = await mapLimit(targets, concurrency, async (target): Promise<ClusterRead> => {
    let outcome: ClusterRead;
    try {
      const snapshot = await read(target);
      outcome =
        'missing' in snapshot
          ? { target, ok: false, error: snapshot.missing }
          : { target, ok: true, snapshot };
    } catch (error) {
      outcome = { target, ok: false, error: safeErrorMessage(error) };
    }
    done += 1;
    progress?.event({
      kind: 'captured',
      done,
      total: targets.length,
      where: `${target.region}/${target.clusterName}`,
      ok: outcome.ok,
    });
    return outcome;
  });
  const unreadable: Unreadable[] = [];
  for (const r of reads) {
    if (r.ok) continue;
    const u = { ...r.target, error: r.error };
    unreadable.push(u);
    progress?.unreadable(u);
  }
  return { reads, unreadable };
}

/** The exit intent of a command that fails on its findings (at or above critical by default). */
export function findingsExit(findings: readonly { severity: Severity }[]): ExitIntent {
  return { severities: findings.map((f) => f.severity), failOnDefault: 'critical' };
}

/** Which clusters a command reads. */
export type ClusterScope =
  /** The named cluster in each Region, without listing. */
  | { kind: 'named'; clusterName: string; regions: readonly string[] }
  /** Every cluster the Regions list (only `clusterName`, when given: an error when none has it). */
  | { kind: 'listed'; regions: readonly string[]; clusterName?: string };

/** The clusters of `scope`; a Region that cannot be listed is unreadable, told to `progress`. */
export async function targetsOf(
  capture: CaptureDeps,
  scope: ClusterScope,
  accountId: string | undefined,
  progress: CommandProgress | undefined,
): Promise<{ targets: CaptureTarget[]; regionErrors: Unreadable[] }> {
  if (scope.kind === 'named') {
    return {
      targets: scope.regions.map((region) => ({
        region,
        clusterName: scope.clusterName,
        ...(accountId === undefined ? {} : { accountId }),
      })),
      regionErrors: [],
    };
  }
  const listing = await listClusters(capture, scope.regions);
  const regionErrors = listing.errors.map((e) => ({ region: e.region, error: e.error }));
  for (const u of regionErrors) progress?.unreadable(u);
  const listed = scope.regions.filter((r) => !regionErrors.some((u) => u.region === r));
  progress?.event({ kind: 'listed', clusters: listing.clusters.length, regions: listed });
  const targets = listing.clusters
    .filter((c) => scope.clusterName === undefined || c.clusterName === scope.clusterName)
    .map((c) => (accountId === undefined ? c : { ...c, accountId }));
  if (scope.clusterName !== undefined && targets.length === 0 && regionErrors.length === 0) {
    throw new ReportRequestError(`no cluster ${scope.clusterName} in ${scope.regions.join(', ')}`);
  }
  return { targets, regionErrors };
}
