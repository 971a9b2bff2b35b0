/**
 * The CLI's logic, free of process and file-system globals: it takes the arguments and an `io`
 * and returns the exit code. 0 nothing at or above the threshold, 1 findings at or above it,
 * 2 bad usage or input (or a cluster that could not be read), 3 internal error. The live
 * commands reach AWS only through `io.live`, so tests drive them against the sandbox.
 */
import { join } from 'node:path';
import { describeChange } from '../core/change.ts';
import { assessSnapshot, diffSnapshots, whatIf } from '../core/engine.ts';
import { renderFindings } from '../core/render/index.ts';
import { RULES } from '../core/rules/registry.ts';
import { type ParsedArgs, parseCommandLine } from './args.ts';
import { runDemo } from './demo.ts';
import { CliError, formatErrorLine, isCliError } from './errors.ts';
import { helpText } from './help.ts';
import { loadSnapshot, parseJsonText, readInput } from './inputs.ts';
import type { CliIo } from './io.ts';
import { obtainSnapshot, runReport, runSnapshot } from './live.ts';
import { clusterOf, EXIT, exitFor, renderOptions } from './output.ts';
import { renderRuleCatalog } from './rules-catalog.ts';

export type { CliIo, LiveIo, LocalSnapshotStore } from './io.ts';

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

async function readVersion(io: CliIo): Promise<string> {
  const path = join(io.packageRoot, 'package.json');
  const pkg = parseJsonText(await readInput(io, path), path) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

async function runCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  switch (args.kind) {
    case 'help':
      io.stdout(helpText(args.command));
      return EXIT.ok;
    case 'version':
      io.stdout(`eks-auth-sentinel ${await readVersion(io)}\n`);
      return EXIT.ok;
    case 'rules':
      io.stdout(renderRuleCatalog(RULES, args.format));
      return EXIT.ok;
    case 'assess': {
      const { snapshot } = await obtainSnapshot(io, args.source);
      const findings = assessSnapshot(snapshot, { trigger: 'manual' });
      const options = renderOptions(io, args, { title: 'Assessment', cluster: clusterOf(snapshot) });
      io.stdout(ensureNewline(renderFindings(args.format, findings, options)));
      return exitFor(findings, args.failOn ?? 'critical');
    }
    case 'diff': {
      const before = await loadSnapshot(io, args.before);
      const after = await loadSnapshot(io, args.after);
      if (before.clusterArn !== after.clusterArn) {
        throw new CliError(`--before and --after are snapshots of different clusters`, {
          where: `${before.clusterArn} vs ${after.clusterArn}`,
        });
      }
      const findings = diffSnapshots(before, after, { trigger: 'manual' });
      const options = renderOptions(io, args, {
        title: `Changes from ${before.capturedAt} to ${after.capturedAt}`,
        cluster: clusterOf(after),
      });
      io.stdout(ensureNewline(renderFindings(args.format, findings, options)));
      return exitFor(findings, args.failOn ?? 'critical');
    }
    case 'whatif': {
      const { snapshot, where } = await obtainSnapshot(io, args.source);
      // Loaded here: the CloudTrail parser and its schemas serve only `whatif`.
      const { resolveWhatIf } = await import('./whatif-change.ts');
      const resolved = await resolveWhatIf(io, args.request, snapshot, where);
      if (resolved.kind === 'ignored') {
        io.stdout(
          args.format === 'json'
            ? `${JSON.stringify({ ignored: true, reason: resolved.reason }, null, 2)}\n`
            : `Event ignored: ${resolved.reason}\n`,
        );
        return EXIT.ok;
      }
      const result = whatIf(snapshot, resolved.change, { trigger: 'whatif' });
      const options = renderOptions(io, args, {
        title: 'What-if',
        cluster: clusterOf(snapshot),
        change: describeChange(resolved.change),
        effects: result.effects,
      });
      io.stdout(ensureNewline(renderFindings(args.format, result.findings, options)));
      return exitFor(result.findings, args.failOn ?? 'critical');
    }
    case 'snapshot':
      return runSnapshot(args, io);
    case 'report':
      return runReport(args, io);
    case 'demo':
      return runDemo(args, io);
  }
}

/** Runs one command line; never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const debug = argv.includes('--debug');
  try {
    return await runCommand(parseCommandLine(argv, io.env), io);
  } catch (error) {
    if (isCliError(error)) {
      io.stderr(formatErrorLine(error.message, error.where));
      return error.exitCode;
    }
    if (debug && error instanceof Error && error.stack !== undefined) {
      io.stderr(`${error.stack}\n`);
    } else {
      const message = error instanceof Error ? error.message : String(error);
      io.stderr(formatErrorLine(`internal error: ${message}`, 'run with --debug for the stack trace'));
    }
    return EXIT.internal;
  }
}
