/**
 * Decoding a command's input text: JSON with the line:column of a syntax fault (never quoting the
 * input), and a cluster snapshot checked against the snapshot contract, its first problem named by
 * JSON path. `name` is how the input is named in messages (a path, or `stdin`).
 */
import type { ClusterSnapshot } from '../../core/model.ts';
import { acceptSnapshot, findJsonSyntaxFault, lineAndColumn } from '../../core/snapshot/index.ts';
import { CommandInputError } from '../errors.ts';

/** Parses JSON text; a syntax error names the input and line:column, never quotes it. */
export function parseJsonText(text: string, name: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    const fault = findJsonSyntaxFault(body);
    if (fault === undefined) throw new CommandInputError('not valid JSON', { where: name, cause: error });
    const { line, column } = lineAndColumn(body, fault.offset);
    throw new CommandInputError(`not valid JSON: ${fault.reason}`, {
      where: `${name}, line ${line}:${column}`,
      cause: error,
    });
  }
}

/** A parsed JSON value as a ClusterSnapshot; the first problem names the input and JSON path. */
export async function decodeSnapshot(value: unknown, name: string): Promise<ClusterSnapshot> {
  // A valid snapshot passes the precompiled checks; zod and the schema are loaded for the rest.
  const accepted = acceptSnapshot(value);
  if (accepted !== undefined) return accepted;
  const { validateSnapshot } = await import('../../core/snapshot/snapshot-schema.ts');
  const result = validateSnapshot(value);
  if (result.ok) return result.snapshot;
  const [first] = result.errors;
  const more = result.errors.length - 1 + result.omitted;
  const suffix = more > 0 ? ` (and ${more} more ${more === 1 ? 'error' : 'errors'})` : '';
  throw new CommandInputError(`not a valid cluster snapshot: ${first?.message ?? 'rejected'}${suffix}`, {
    where: first === undefined ? name : `${name}, ${first.path}`,
  });
}
