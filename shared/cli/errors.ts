/**
 * The CLI's one error type: something the user can fix (bad usage, a missing or malformed file).
 * It becomes one line on stderr, `eks-auth-sentinel: <what> (<where>)`, and exit code 2. The use
 * cases (shared/app/commands/) throw its base class, `CommandInputError`, for the same kind of
 * problem; anything else that escapes is an internal error (exit 3).
 */
import { CommandInputError } from '../app/errors.ts';

export class CliError extends CommandInputError {
  override readonly name: string = 'CliError';
}

/** A usage or input error of the CLI or of a command's use case. */
export function isCliError(error: unknown): error is CommandInputError {
  return error instanceof CommandInputError;
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
