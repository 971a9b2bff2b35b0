/**
 * Writes the published JSON Schema of ClusterSnapshot, generated from the zod schema:
 *   npx tsx scripts/gen-schema.ts          write schema/cluster-snapshot.schema.json
 *   npx tsx scripts/gen-schema.ts --check  exit 1 when the committed file is stale
 * The file is formatted with the repo's Biome so `biome check` stays green; the freshness test
 * (test/core/snapshot-schema.test.ts) compares parsed JSON, so formatting cannot make it drift.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { buildSnapshotJsonSchema } from '../shared/core/snapshot/snapshot-schema.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'schema', 'cluster-snapshot.schema.json');
const schema = buildSnapshotJsonSchema();

if (process.argv.includes('--check')) {
  const committed: unknown = existsSync(target) ? JSON.parse(readFileSync(target, 'utf8')) : undefined;
  if (!isDeepStrictEqual(committed, schema)) {
    console.error(`${target} is stale: run npx tsx scripts/gen-schema.ts`);
    process.exit(1);
  }
  console.log(`${target} is up to date`);
} else {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
  const biome = join(root, 'node_modules', '.bin', 'biome');
  try {
    execFileSync(biome, ['format', '--write', target], { cwd: root, stdio: 'ignore' });
  } catch {
    console.warn('biome format failed: the schema was written unformatted');
  }
  console.log(`wrote ${target}`);
}
