/**
 * The CLI's one error type: something the user can fix (bad usage, a missing or malformed file).
 * It becomes one line on stderr, `eks-auth-sentinel: <what> (<where>)`, and exit code 2.
 * Anything else that escapes is an internal error (exit 3).
 */
import { SentinelError } from '../errors.ts';

export class CliError extends SentinelError {
  override readonly name = 'CliError';
  readonly code = 'usage';
  /** Where the problem is: a file, a JSON path, a line:column, the option to look at. */
  readonly where: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: { where?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, options);
    this.where = options.where;
    this.exitCode = options.exitCode ?? 2;
  }
}

export function isCliError(error: unknown): error is CliError {
  return error instanceof CliError;
}

/** `eks-auth-sentinel: what (where)` on one line, control characters removed, length bounded. */
export function formatErrorLine(what: string, where?: string): string {
  const clean = (s: string) =>
    s
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
      .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  const bounded = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
  const place = where === undefined || where.trim() === '' ? '' : ` (${bounded(clean(where), 300)})`;
  return `eks-auth-sentinel: ${bounded(clean(what), 500)}${place}\n`;
}
