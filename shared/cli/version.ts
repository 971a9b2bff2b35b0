/** The package version, read cheaply (no schema) so that `--version` stays light. */
import { join } from 'node:path';
import type { CliIo } from './io.ts';
import { inputName, readInput } from './read-input.ts';

export async function readVersion(io: CliIo): Promise<string> {
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
