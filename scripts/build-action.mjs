// Builds the GitHub Action's CLI: one self-contained ES module, `action/cli.mjs`, committed with
// the release so that the Action runs it on Node 22 with nothing installed and nothing built per
// job. Everything is bundled (the AWS SDK v3 clients, @kubernetes/client-node, zod), tree-shaken
// and minified; the package version is built in, since the Action's checkout is read from no
// package.json but its own. The build is deterministic: test/deploy/action-bundle.test.ts rebuilds
// it elsewhere and requires the committed file to be byte-identical.
//   node scripts/build-action.mjs [--outfile FILE]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { KEEP_NAMES_BANNER, keepClassNames } from './keep-class-names.mjs';
import { nodeFetchUsesNodeUrl } from './node-fetch-uses-node-url.mjs';

const { values } = parseArgs({
  options: { outfile: { type: 'string', default: 'action/cli.mjs' } },
});
const root = resolve(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
if (typeof version !== 'string') throw new Error('package.json has no version');

await build({
  absWorkingDir: root,
  entryPoints: ['shared/cli/main.ts'],
  outfile: resolve(values.outfile),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // The packages' ES-module builds, which esbuild can tree-shake (their CommonJS builds it cannot):
  // 3.7 MB instead of 4.0 MB.
  mainFields: ['module', 'main'],
  minify: true,
  // Error classes keep their source names (see keep-class-names.mjs).
  plugins: [keepClassNames, nodeFetchUsesNodeUrl],
  define: { __SENTINEL_VERSION__: JSON.stringify(version) },
  // Bundled CommonJS packages (the SDK's) `require` Node's built-ins.
  banner: {
    js: `import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url); ${KEEP_NAMES_BANNER}`,
  },
  legalComments: 'none',
  logLevel: 'warning',
});
