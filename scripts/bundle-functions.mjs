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
// Our own classes keep their names: minification renames `ConfigError` to `py`, and while Lambda
// reports `errorType` from `error.name` (set explicitly on every error class here), `serverless
// invoke local` and anything else reading `constructor.name` would see `py`. esbuild's
// `keepNames` would do it for every function of the bundle, the SDK's included: +55 KB (5 %) on
// onEksEvent, past its 0.97 MiB budget (BENCHMARKS.md). So the plugin below names only the
// top-level `…Error` classes of functions/ and shared/ — what a handler can throw — with
// `__kn(C, 'C')` appended to their module (`__kn` is in the banner): about 400 bytes on onEksEvent.
//
// Usage: node scripts/bundle-functions.mjs [--outdir DIR] [name ...]
//   (default: every function, into dist/functions)
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const FUNCTIONS = {
  scheduler: 'functions/scheduler.ts',
  snapshotWorker: 'functions/snapshot-worker.ts',
  onEksEvent: 'functions/on-eks-event.ts',
  report: 'functions/report.ts',
};

/** `class NameError extends …` (`export`, `abstract` too) at the start of a line. */
const ERROR_CLASS = /^(?:export\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*Error)\s+extends\b/gm;

/** Keeps the names of the error classes of our own modules through minification (`__kn`: banner). */
export const keepClassNames = {
  name: 'keep-class-names',
  setup(b) {
    b.onLoad({ filter: /[\\/](?:functions|shared)[\\/].*\.ts$/ }, async (args) => {
      if (args.path.includes('node_modules')) return undefined;
      const source = await readFile(args.path, 'utf8');
      const names = [...source.matchAll(ERROR_CLASS)].map((m) => m[1]);
      if (names.length === 0) return undefined;
      const naming = names.map((n) => `__kn(${n}, '${n}');`);
      return { contents: `${source}\n${naming.join('\n')}\n`, loader: 'ts', resolveDir: dirname(args.path) };
    });
  },
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
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url); const __kn=(c,n)=>Object.defineProperty(c,'name',{value:n});",
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
