/** Reading one input file with the size limit; no schema, so `--version` can use it cheaply. */
import { CliError, isCliError } from './errors.ts';
import { type CliIo, MAX_INPUT_BYTES } from './io.ts';

export function tooLargeError(path: string, size: number): CliError {
  const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return new CliError(`refusing to read ${path}: ${mb(size)} is over the ${mb(MAX_INPUT_BYTES)} limit`);
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

/** The file's text; a read failure becomes `cannot read FILE: CODE`. */
export async function readInput(io: CliIo, path: string): Promise<string> {
  let text: string;
  try {
    text = await io.readFile(path);
  } catch (error) {
    if (isCliError(error)) throw error;
    throw new CliError(`cannot read ${path}: ${errorCode(error)}`, { cause: error });
  }
  if (text.length > MAX_INPUT_BYTES) throw tooLargeError(path, text.length);
  return text;
}
