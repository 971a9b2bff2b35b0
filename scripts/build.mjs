// Bundles the CLI with esbuild (Node 20+, ESM): dist/cli.js is the entry (the `bin`), and what it
// loads only on demand — the live adapters (AWS SDK clients, @kubernetes/client-node), imported by
// node-io.ts when a live command runs, and the CloudTrail parser of `whatif --event` — goes into
// chunks under dist/cli-chunks/. A file-only command loads the entry and its few shared chunks.
// `--outdir DIR` builds elsewhere; `--single-file` builds the one-file bundle of before the split
// (bench/cli-start.ts measures it side by side).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { KEEP_NAMES_BANNER, keepClassNames } from './keep-class-names.mjs';

const { values } = parseArgs({
  options: {
    outdir: { type: 'string', default: 'dist' },
    'single-file': { type: 'boolean', default: false },
  },
});
const splitting = !values['single-file'];

// Chunk names carry a content hash: drop the previous build's so the directory holds one build's chunks.
rmSync(join(values.outdir, 'cli-chunks'), { recursive: true, force: true });

const result = await build({
  entryPoints: { cli: 'shared/cli/main.ts' },
  outdir: values.outdir,
  chunkNames: 'cli-chunks/[name]-[hash]',
  bundle: true,
  splitting,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  // Error classes keep their source names (see keep-class-names.mjs: esbuild's keepNames for
  // every function would cost each start ≈ 10 ms).
  plugins: [keepClassNames],
  metafile: true,
  logLevel: 'warning',
  banner: {
    // Every output file is a module of its own: each gets `require` for the CommonJS it bundles.
    js: `import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url); ${KEEP_NAMES_BANNER}`,
  },
});

// What went into the build, for checks such as "no shipped bundle contains the `yaml` package".
writeFileSync(join(values.outdir, 'cli-meta.json'), `${JSON.stringify(result.metafile)}\n`);
