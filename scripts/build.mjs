// Bundles the CLI into dist/cli.js with esbuild (one file, Node 20+, ESM).
import { build } from 'esbuild';

await build({
  entryPoints: { cli: 'shared/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});
