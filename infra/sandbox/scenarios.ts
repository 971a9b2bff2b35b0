/** Loads scenario files (ClusterSnapshot JSON) as sandbox seeds, each cluster named after its file. */
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseSnapshotJson } from '../../shared/core/snapshot/snapshot-schema.ts';
import type { SandboxOptions } from './types.ts';

export async function loadScenarios(dir: string): Promise<SandboxOptions['clusters']> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const seeds: SandboxOptions['clusters'] = [];
  const problems: string[] = [];
  for (const file of files) {
    const parsed = parseSnapshotJson(await readFile(join(dir, file), 'utf8'), file);
    if (!parsed.ok) {
      problems.push(`${file}: ${parsed.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`);
      continue;
    }
    seeds.push({ snapshot: parsed.snapshot, name: basename(file, '.json') });
  }
  if (problems.length > 0) throw new Error(`invalid scenario files:\n${problems.join('\n')}`);
  return seeds;
}
