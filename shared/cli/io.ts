import type { LiveCapture, LocalSnapshotStore } from '../app/commands/command-inputs.ts';

export type { LocalSnapshotStore };

/** What the live commands (snapshot, report, --cluster) need besides the rest of `CliIo`. */
export type LiveIo = LiveCapture;

/** What the CLI needs from the outside world; `createNodeIo` (node-io.ts) is the real one. */
export interface CliIo {
  /** The whole file as UTF-8 text; rejects with a Node error (`code`) or a `CliError`. */
  readFile(path: string): Promise<string>;
  /** All of standard input as UTF-8 text (a file option given `-`); absent: stdin is not offered. */
  readStdin?(): Promise<string>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stdout is a terminal (colour is on only then). */
  isTTY: boolean;
  env: Record<string, string | undefined>;
  /** The package's root directory (holds package.json and scenarios/). */
  packageRoot: string;
  /** The names of a directory's entries. */
  listDir(path: string): Promise<string[]>;
  /** Whether stderr is a terminal (progress lines are written only then). */
  stderrIsTTY?: boolean;
  /** Live collection; absent: the live commands exit 2 saying so. */
  live?: LiveIo;
  /** A CloudWatch Logs subscription event's message (`whatif --event`); absent: such events are refused. */
  decodeLogsSubscription?(event: unknown): unknown;
  /**
   * A signal that aborts on SIGINT or SIGTERM (`watch` stops on it and exits 0). Installed on
   * first call only: the other commands keep the default Ctrl-C. Absent: not interruptible.
   */
  interrupts?(): AbortSignal;
}

/** Input files above this size are refused: a snapshot of even a very large cluster is far smaller. */
export const MAX_INPUT_BYTES = 50 * 1024 * 1024;
