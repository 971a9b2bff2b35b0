/** The scenario files `demo` runs: every `*.json` of a directory, sorted (default: the package's scenarios/). */
import { join } from 'node:path';
import { CliError } from './errors.ts';
import type { CliIo } from './io.ts';

export async function listScenarios(io: CliIo, dir: string): Promise<{ name: string; file: string }[]> {
  let names: string[];
  try {
    names = await io.listDir(dir);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOTDIR') throw new CliError(`${dir} is a file, expected a directory`, { cause: error });
    throw new CliError(
      `cannot read the scenarios directory ${dir}: ${typeof code === 'string' ? code : String(error)}`,
    );
  }
  const files = names.filter((n) => n.endsWith('.json')).sort();
  if (files.length === 0) throw new CliError(`no scenarios (*.json) in ${dir}`);
  return files.map((f) => ({ name: f.slice(0, -'.json'.length), file: join(dir, f) }));
}

/** The scenarios directory of `demo`. */
export function scenariosDir(io: CliIo, given: string | undefined): string {
  return given ?? join(io.packageRoot, 'scenarios');
}
