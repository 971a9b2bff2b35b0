/** Reading one input file with the size limit; no schema, so `--version` can use it cheaply. */
import { CliError, isCliError } from './errors.ts';
import { type CliIo, MAX_INPUT_BYTES } from './io.ts';

/** The file name that means standard input (every file option takes it; one per command). */
export const STDIN = '-';

/** How an input is named in messages: `stdin` for `-`, else its path. */
export function inputName(path: string): string {
  return path === STDIN ? 'stdin' : path;
}

export function tooLargeError(path: string, size: number): CliError {
  const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return new CliError(
    `refusing to read ${inputName(path)}: ${mb(size)} is over the ${mb(MAX_INPUT_BYTES)} limit`,
  );
}

/** A path given for a file that is a directory: said so, not as `EISDIR`. */
export function directoryError(path: string, cause?: unknown): CliError {
  return new CliError(`${path} is a directory, expected a file`, { cause });
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return String(error);
}

/** The file's text (`-`: standard input); a read failure becomes `cannot read FILE: CODE`. */
export async function readInput(io: CliIo, path: string): Promise<string> {
  let text: string;
  try {
    if (path !== STDIN) text = await io.readFile(path);
    else if (io.readStdin === undefined) throw new CliError('standard input cannot be read here');
    else text = await io.readStdin();
  } catch (error) {
    if (isCliError(error)) throw error;
    const code = errorCode(error);
    if (code === 'EISDIR') throw directoryError(path, error);
    throw new CliError(`cannot read ${inputName(path)}: ${code}`, { cause: error });
  }
  if (text.length > MAX_INPUT_BYTES) throw tooLargeError(path, text.length);
  return text;
}
