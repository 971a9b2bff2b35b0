/**
 * The commands other than `--help` and `--version`, imported by run-cli.ts only when one runs: a
 * help or version line loads none of the engine, the renderers, the zod schemas or `yaml`. Each
 * command is parse (args.ts) → its use case (shared/app/commands/) → the renderer
 * (core/render) → the exit code; the use cases read files and clusters through the ports built here.
 */
// Static: the bundled core script cannot import() a Node module at run time.
import { setTimeout as wait } from 'node:timers/promises';
import type { CommandPorts, CommandProgress, WatchPorts } from '../app/commands/command-inputs.ts';
import {
  type CommandResult,
  type OutputFormat,
  renderCommandResult,
  renderWatchEvent,
  reportSummaryLine,
  uncheckedLine,
  unreadableLine,
} from '../core/render/index.ts';
import { safeErrorMessage } from '../errors.ts';
import type { ParsedArgs } from './args.ts';
import { CliError, formatErrorLine } from './errors.ts';
import { commandFiles } from './input-files.ts';
import type { CliIo } from './io.ts';
import { exitCode, toolInfo, useColor } from './output.ts';
import { listScenarios, scenariosDir } from './scenario-files.ts';
import { readVersion } from './version.ts';

export type FileOrLiveArgs = Exclude<ParsedArgs, { kind: 'help' | 'version' }>;
type WatchArgs = Extract<ParsedArgs, { kind: 'watch' }>;

/** Progress lines go to a terminal only; a cluster or Region that cannot be read is always said. */
function progressOf(io: CliIo): CommandProgress & { since(): string } {
  let started = Date.now();
  const progress = (text: string) => {
    if (io.stderrIsTTY === true) io.stderr(`${text}\n`);
  };
  return {
    unreadable: (u) => io.stderr(formatErrorLine(unreadableLine(u))),
    event(e) {
      switch (e.kind) {
        case 'listed':
          progress(
            `${e.clusters} cluster(s) in ${e.regions.length > 0 ? e.regions.join(', ') : 'no readable Region'}`,
          );
          return;
        case 'capturing':
          started = Date.now();
          return;
        case 'captured': {
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          progress(
            `[${e.done}/${e.total}] ${e.where}: ${e.ok ? 'read' : 'could not be read'} (${seconds} s)`,
          );
          return;
        }
      }
    },
    since: () => ((Date.now() - started) / 1000).toFixed(1),
  };
}

function portsOf(io: CliIo, progress: CommandProgress): CommandPorts {
  return {
    files: commandFiles(io),
    ...(io.decodeLogsSubscription === undefined ? {} : { decodeLogsSubscription: io.decodeLogsSubscription }),
    ...(io.live === undefined ? {} : { live: io.live }),
    progress,
  };
}

/** The use case of a command line, and the format its result is written in. */
async function runUseCase(
  args: Exclude<FileOrLiveArgs, WatchArgs>,
  io: CliIo,
  ports: CommandPorts,
): Promise<{ result: CommandResult; format: OutputFormat | 'html' }> {
  switch (args.kind) {
    case 'rules': {
      const { rulesCommand } = await import('../app/commands/rules-command.ts');
      return { result: rulesCommand(), format: args.format };
    }
    case 'assess': {
      const { assessCommand } = await import('../app/commands/assess-command.ts');
      return { result: await assessCommand(ports, args), format: args.format };
    }
    case 'diff': {
      const { diffCommand } = await import('../app/commands/diff-command.ts');
      return { result: await diffCommand(ports, args), format: args.format };
    }
    case 'whatif': {
      // Loaded here: the CloudTrail parser and its schemas serve only `whatif`.
      const { whatIfCommand } = await import('../app/commands/whatif-command.ts');
      return { result: await whatIfCommand(ports, args), format: args.format };
    }
    case 'whatif-plan': {
      // Loaded here: the plan schema and the pre-apply simulation serve only these two.
      const { whatIfPlanCommand } = await import('../app/commands/whatif-plan-command.ts');
      return { result: await whatIfPlanCommand(ports, args), format: args.format };
    }
    case 'whatif-aws-auth': {
      const { whatIfAwsAuthCommand } = await import('../app/commands/whatif-aws-auth-command.ts');
      return { result: await whatIfAwsAuthCommand(ports, args), format: args.format };
    }
    case 'compare': {
      const { compareCommand } = await import('../app/commands/compare-command.ts');
      return { result: await compareCommand(ports, args), format: args.format };
    }
    case 'snapshot': {
      const { snapshotCommand } = await import('../app/commands/snapshot-command.ts');
      return { result: await snapshotCommand(ports, args), format: args.format };
    }
    case 'report': {
      const { reportCommand } = await import('../app/commands/report-command.ts');
      return { result: await reportCommand(ports, args), format: args.reportFormat };
    }
    case 'migrate': {
      // Loaded here: the plan and its renderers serve only `migrate`.
      const { migrateCommand } = await import('../app/commands/migrate-command.ts');
      return { result: await migrateCommand(ports, args), format: args.migrateFormat };
    }
    case 'demo': {
      const scenarios = await listScenarios(io, scenariosDir(io, args.scenarios));
      const { demoCommand } = await import('../app/commands/demo-command.ts');
      return { result: await demoCommand(ports, { scenarios }), format: args.format };
    }
  }
}

/** What a result says on stderr besides the output: the inputs that could not be read or checked. */
function stderrLines(result: CommandResult): string[] {
  switch (result.kind) {
    case 'plan':
      return result.unchecked.map((u) => `eks-auth-sentinel: ${uncheckedLine(u)}\n`);
    case 'demo':
      return result.scenarios.flatMap((s) => (s.ok ? [] : [formatErrorLine(s.message, s.where)]));
    default:
      return [];
  }
}

/** Whether the output carries the `tool` stamp (JSON reports, the HTML page) or is a findings report. */
function stampsTool(result: CommandResult, format: OutputFormat | 'html'): boolean {
  switch (result.kind) {
    case 'findings':
    case 'compare':
    case 'plan':
    case 'plan-irrelevant':
    case 'aws-auth':
      return true;
    case 'event-ignored':
      return format === 'json';
    case 'report':
      return format === 'json' || format === 'html';
    default:
      return false;
  }
}

function writeError(path: string, error: unknown): CliError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EISDIR') return new CliError(`${path} is a directory, expected a file`, { cause: error });
  return new CliError(`cannot write ${path}: ${typeof code === 'string' ? code : safeErrorMessage(error)}`, {
    cause: error,
  });
}

/** The report to stdout, or whole to --out FILE. */
async function emitReport(io: CliIo, out: string | undefined, text: string): Promise<void> {
  if (out === undefined || out === '-') {
    io.stdout(text);
    return;
  }
  if (io.live === undefined) throw new CliError('live collection is not available in this build');
  try {
    await io.live.writeFileAtomic(out, text);
  } catch (error) {
    throw writeError(out, error);
  }
  io.stderr(`report written to ${out}\n`);
}

/**
 * `watch` streams: each event is one line written at once (NDJSON with --format json), and the
 * exit code comes at the end (0 at --duration or on SIGINT/SIGTERM).
 */
async function runWatch(args: WatchArgs, io: CliIo): Promise<number> {
  const { watchCommand } = await import('../app/commands/watch-command.ts');
  const ports: WatchPorts = {
    ...portsOf(io, progressOf(io)),
    emit: (event) => io.stdout(renderWatchEvent(event, args.watchFormat)),
    clock: { now: () => new Date() },
    wait: (ms, signal) => wait(ms, undefined, { signal }).catch(() => undefined),
  };
  if (args.remediate !== 'off' && io.live?.watchRemediation !== undefined) {
    ports.remediate = await io.live.watchRemediation();
  }
  const outcome = await watchCommand(ports, {
    clusterName: args.clusterName,
    region: args.region,
    durationSeconds: args.durationSeconds,
    intervalSeconds: args.intervalSeconds,
    remediate: args.remediate,
    signal: io.interrupts?.() ?? new AbortController().signal,
  });
  return exitCode(outcome.exit, 'none');
}

export async function runCommand(args: FileOrLiveArgs, io: CliIo): Promise<number> {
  if (args.kind === 'watch') return runWatch(args, io);
  const progress = progressOf(io);
  const { result, format } = await runUseCase(args, io, portsOf(io, progress));
  if (result.kind === 'demo') for (const line of stderrLines(result)) io.stderr(line);
  if (result.kind === 'report' && args.kind === 'report' && args.snapshotFile === undefined) {
    const summary = reportSummaryLine(result.clusters, result.unreadable, result.regions);
    if (io.stderrIsTTY === true) io.stderr(`${summary} in ${progress.since()} s\n`);
  }
  if (result.kind === 'snapshots-written' && args.kind === 'snapshot' && args.destination.kind === 'store') {
    if (io.stderrIsTTY === true)
      io.stderr(`${result.written.length} snapshot(s) written in ${progress.since()} s\n`);
  }
  // package.json is read only for an output that shows the version: an unreadable one fails no other.
  const tool = toolInfo(stampsTool(result, format) ? await readVersion(io) : 'unknown');
  if (format === 'html') {
    if (result.kind !== 'report') throw new Error(`${result.kind} has no HTML form`);
    // Loaded here: the page and its layout library serve only --format html.
    const { renderReportPage } = await import('../core/render/report-page.ts');
    await emitReport(io, args.kind === 'report' ? args.out : undefined, renderReportPage(result, tool));
    return exitCode(result.exit, args.failOn);
  }
  const rendered = renderCommandResult(result, {
    format,
    color: useColor(io, args),
    ...(args.maxChars === undefined ? {} : { maxChars: args.maxChars }),
    tool,
  });
  if (!rendered.ok) throw new CliError(rendered.reason);
  if (args.kind === 'report') await emitReport(io, args.out, rendered.text);
  else io.stdout(rendered.text);
  if (result.kind === 'plan') for (const line of stderrLines(result)) io.stderr(line);
  return exitCode(result.exit, args.failOn);
}
