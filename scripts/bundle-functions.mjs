// Bundles each Lambda handler of functions/ into dist/functions/<name>/index.js (ESM, Node 22,
// minified, linked source maps; what the SDK loads only on demand in dist/functions/<name>/chunks/)
// with esbuild, and writes dist/functions/meta.json (per function: size of all its JavaScript,
// size loaded at init, npm packages, and our own source files with a byte in the output) so that a test can
// check what each bundle contains — onEksEvent must not contain @aws-sdk/client-ec2,
// @aws-sdk/client-iam or the parity rules.
//
// The AWS SDK is bundled (pinned versions), not taken from the Lambda runtime. The esbuild options
// are in scripts/bundle-options.mjs; where the bytes of a bundle come from: scripts/bundle-report.mjs.
// `index.js` + a `package.json` with `"type": "module"` (rather than `index.mjs`): the Lambda
// runtime loads it as ESM either way, and `serverless invoke local` (which only tries .js/.cjs)
// can load it too.
//
// Usage: node scripts/bundle-functions.mjs [--outdir DIR] [name ...]
//   (default: every function, into dist/functions)
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { FUNCTIONS, functionBuildOptions, outputSizes } from './bundle-options.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

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
    ...functionBuildOptions(),
    absWorkingDir: root,
    entryPoints: { index: FUNCTIONS[name] },
    outdir,
  });
  await writeFile(join(outdir, 'package.json'), '{ "type": "module" }\n');
  const { bytes, initBytes } = outputSizes(result.metafile);
  const packages = new Set();
  for (const input of Object.keys(result.metafile.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m) packages.add(m[1]);
  }
  const sources = new Set();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const input of Object.keys(output.inputs))
      if (/^(?:functions|shared)\//.test(input)) sources.add(input);
  }
  meta[name] = { bytes, initBytes, packages: [...packages].sort(), sources: [...sources].sort() };
  process.stdout.write(
    `${name.padEnd(15)} ${(bytes / 1024).toFixed(0).padStart(6)} KiB (${(initBytes / 1024).toFixed(0)} KiB loaded at init)\n`,
  );
}
await writeFile(join(outRoot, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
