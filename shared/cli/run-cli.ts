/**
 * The CLI's logic, free of process and file-system globals: it takes the arguments and an `io`
 * and returns the exit code. 0 nothing at or above the threshold, 1 findings at or above it,
 * 2 bad usage or input (or a cluster that could not be read), 3 internal error. The live
 * commands reach AWS only through `io.live`, so tests drive them against the sandbox.
 */
import { type ParsedArgs, parseCommandLine } from './args.ts';
import { formatErrorLine, isCliError } from './errors.ts';
import { helpText } from './help.ts';
import type { CliIo } from './io.ts';
import { EXIT, versionLine } from './output.ts';
import { readVersion } from './version.ts';

export type { CliIo, LiveIo, LocalSnapshotStore } from './io.ts';

async function runCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  switch (args.kind) {
    case 'help':
      io.stdout(helpText(args.command));
      return EXIT.ok;
    case 'version':
      io.stdout(versionLine(await readVersion(io)));
      return EXIT.ok;
    default: {
      // Loaded here: the engine, renderers, schemas and `yaml` serve every command but these two.
      const { runCommand: runOther } = await import('./commands.ts');
      return runOther(args, io);
    }
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
