/** The package version, read cheaply (no schema) so that `--version` stays light. */
import { join } from 'node:path';
import type { CliIo } from './io.ts';
import { inputName, readInput } from './read-input.ts';

/**
 * The version a self-contained build carries (scripts/build-action.mjs defines it): the Action's
 * single-file CLI runs where no package.json of ours is to be found.
 */
declare const __SENTINEL_VERSION__: string | undefined;

export async function readVersion(io: CliIo): Promise<string> {
  if (typeof __SENTINEL_VERSION__ === 'string') return __SENTINEL_VERSION__;
  const path = join(io.packageRoot, 'package.json');
  const text = await readInput(io, path);
  let pkg: { version?: unknown };
  try {
    pkg = JSON.parse(text) as { version?: unknown };
  } catch {
    // Only a broken package.json pays for the JSON fault finder (it lives with the snapshot schema).
    const { parseJsonText } = await import('../app/commands/decode-input.ts');
    pkg = parseJsonText(text, inputName(path)) as { version?: unknown };
  }
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}
