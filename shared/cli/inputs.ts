/** Reading and decoding the CLI's input files: size limit, JSON with line:column, snapshot validation. */

import type { ClusterSnapshot } from '../core/model.ts';
import { acceptSnapshot, findJsonSyntaxFault } from '../core/snapshot/index.ts';
import { CliError } from './errors.ts';
import type { CliIo } from './io.ts';
import { inputName, readInput } from './read-input.ts';

export { inputName, readInput, STDIN, tooLargeError } from './read-input.ts';

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** Parses JSON text; a syntax error names the file (`-`: stdin) and line:column, never quotes the input. */
export function parseJsonText(text: string, file: string): unknown {
  const path = inputName(file);
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    const fault = findJsonSyntaxFault(body);
    if (fault === undefined) throw new CliError('not valid JSON', { where: path, cause: error });
    const { line, column } = lineAndColumn(body, fault.offset);
    throw new CliError(`not valid JSON: ${fault.reason}`, {
      where: `${path}, line ${line}:${column}`,
      cause: error,
    });
  }
}

export async function loadJsonFile(io: CliIo, path: string): Promise<unknown> {
  return parseJsonText(await readInput(io, path), path);
}

/** Reads and validates a ClusterSnapshot file; the first problem names the file and JSON path. */
export async function loadSnapshot(io: CliIo, path: string): Promise<ClusterSnapshot> {
  const value = await loadJsonFile(io, path);
  // A valid snapshot passes the precompiled checks; zod and the schema are loaded for the rest.
  const accepted = acceptSnapshot(value);
  if (accepted !== undefined) return accepted;
  const { validateSnapshot } = await import('../core/snapshot/snapshot-schema.ts');
  const result = validateSnapshot(value);
  if (result.ok) return result.snapshot;
  const [first] = result.errors;
  const more = result.errors.length - 1 + result.omitted;
  const suffix = more > 0 ? ` (and ${more} more ${more === 1 ? 'error' : 'errors'})` : '';
  throw new CliError(`not a valid cluster snapshot: ${first?.message ?? 'rejected'}${suffix}`, {
    where: first === undefined ? inputName(path) : `${inputName(path)}, ${first.path}`,
  });
}
