// Bundles the CLI with esbuild (Node 20+, ESM): dist/cli.js is the entry (the `bin`), and what it
// loads only on demand — the live adapters (AWS SDK clients, @kubernetes/client-node), imported by
// node-io.ts when a live command runs — goes into chunks under dist/cli-chunks/. A file-only command
// (assess --snapshot, diff, whatif --snapshot, rules, demo) loads the entry and never the chunks.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunk names carry a content hash: drop the previous build's so dist/ holds one build's chunks.
rmSync('dist/cli-chunks', { recursive: true, force: true });

await build({
  entryPoints: { cli: 'shared/cli/main.ts' },
  outdir: 'dist',
  chunkNames: 'cli-chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: {
    // Every output file is a module of its own: each gets `require` for the CommonJS it bundles.
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});
