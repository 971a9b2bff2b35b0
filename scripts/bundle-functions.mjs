// Bundles each Lambda handler of functions/ into dist/functions/<name>/index.js (ESM, Node 22,
// minified, linked source maps) with esbuild, and writes dist/functions/meta.json (inputs and
// sizes per function) so that a test can check what each bundle contains — onEksEvent must not
// contain @aws-sdk/client-ec2 or @aws-sdk/client-iam.
//
// The AWS SDK is bundled (pinned versions), not taken from the Lambda runtime.
// ESM output of @kubernetes/client-node calls require(): the createRequire banner provides it.
// `index.js` + a `package.json` with `"type": "module"` (rather than `index.mjs`): the Lambda
// runtime loads it as ESM either way, and `serverless invoke local` (which only tries .js/.cjs)
// can load it too.
// Our own error classes keep their names through minification: scripts/keep-class-names.mjs.
//
// Usage: node scripts/bundle-functions.mjs [--outdir DIR] [name ...]
//   (default: every function, into dist/functions)
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { KEEP_NAMES_BANNER, keepClassNames } from './keep-class-names.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const FUNCTIONS = {
  scheduler: 'functions/scheduler.ts',
  snapshotWorker: 'functions/snapshot-worker.ts',
  onEksEvent: 'functions/on-eks-event.ts',
  report: 'functions/report.ts',
};

const args = process.argv.slice(2);
const outIndex = args.indexOf('--outdir');
const outRoot = outIndex === -1 ? join(root, 'dist', 'functions') : resolve(args[outIndex + 1] ?? '');
if (outIndex !== -1) args.splice(outIndex, 2);
const wanted = args;
const names = wanted.length === 0 ? Object.keys(FUNCTIONS) : wanted;
for (const name of names) {
  if (!(name in FUNCTIONS))
    throw new Error(`unknown function ${name} (known: ${Object.keys(FUNCTIONS).join(', ')})`);
}

const meta = {};
for (const name of names) {
  const outdir = join(outRoot, name);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [FUNCTIONS[name]],
    outfile: join(outdir, 'index.js'),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    metafile: true,
    mainFields: ['module', 'main'],
    plugins: [keepClassNames],
    logLevel: 'warning',
    banner: {
      js: `import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url); ${KEEP_NAMES_BANNER}`,
    },
  });
  await writeFile(join(outdir, 'package.json'), '{ "type": "module" }\n');
  const output = result.metafile.outputs[Object.keys(result.metafile.outputs).find((o) => o.endsWith('.js'))];
  const packages = new Set();
  for (const input of Object.keys(result.metafile.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m) packages.add(m[1]);
  }
  meta[name] = { bytes: output.bytes, packages: [...packages].sort() };
  process.stdout.write(`${name.padEnd(15)} ${(output.bytes / 1024).toFixed(0).padStart(6)} KB\n`);
}
await writeFile(join(outRoot, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
