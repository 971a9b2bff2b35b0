// The esbuild options of the function bundles, in one place: scripts/bundle-functions.mjs builds
// with them, scripts/bundle-report.mjs analyses a build with them, and bench/cold-start.ts builds
// its one-client baseline with them (so the ratio compares like with like).
//
// ESM for Node 22, minified (identifiers, whitespace, syntax), tree-shaken (esbuild's default when
// bundling), linked source maps without the sources' text (stack traces map back to file:line).
// Code splitting: what the SDK loads with `import()` only when it needs it (the credential
// providers other than the environment's — SSO, INI profiles, web identity, process — with their
// STS/SSO clients, event streams, the browser user-agent parser) goes into `chunks/` files loaded
// on demand, which a Lambda with credentials in its environment never loads. In one file they
// would be parsed at every cold start, and esbuild would wrap every module they share with the
// clients (most of @smithy/core) in a lazy-init function — compiled twice. Splitting took 5–8 % of
// the CPU time off onEksEvent's init (2026-12-01). The entry is `index.js`; `outputSizes` says how much of the code it loads.
// `mainFields: ['module', 'main']` picks the SDK's ES modules (`dist-es`), which tree-shake; the
// CommonJS builds (`dist-cjs`) would be bundled whole.
// ESM output of @kubernetes/client-node calls require(): the createRequire banner provides it.
// Our own error classes keep their names through minification: scripts/keep-class-names.mjs.
// The SDK's unused shapes and manifests are dropped: scripts/sdk-bundle-plugins.mjs.
import { KEEP_NAMES_BANNER, keepClassNames } from './keep-class-names.mjs';
import { sdkPackageVersion, sdkSchemaKeys } from './sdk-bundle-plugins.mjs';

/** The Lambda handlers: function name → entry point. */
export const FUNCTIONS = {
  scheduler: 'functions/scheduler.ts',
  snapshotWorker: 'functions/snapshot-worker.ts',
  onEksEvent: 'functions/on-eks-event.ts',
  report: 'functions/report.ts',
  awsAuthCheck: 'functions/aws-auth-check.ts',
  awsAuthWatch: 'functions/aws-auth-watch.ts',
  onAuditEvent: 'functions/on-audit-event.ts',
};

const REQUIRE_BANNER =
  "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

/**
 * esbuild options for one function bundle: add `absWorkingDir`, `outdir` and
 * `entryPoints: { index: <entry> }` (code splitting needs an entry file, not `stdin`).
 */
export function functionBuildOptions() {
  return {
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    metafile: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    mainFields: ['module', 'main'],
    plugins: [keepClassNames, sdkSchemaKeys, sdkPackageVersion],
    logLevel: 'warning',
    banner: { js: `${REQUIRE_BANNER} ${KEEP_NAMES_BANNER}` },
  };
}

/**
 * Sizes of one build (its esbuild metafile) whose entry output ends with `entry` (e.g.
 * `/index.js`): `bytes`, all its JavaScript (what is deployed, without source maps); `initBytes`,
 * the entry and the chunks it imports statically (what a cold start loads).
 */
export function outputSizes(metafile, entry = '/index.js') {
  const js = Object.entries(metafile.outputs).filter(([file]) => /\.m?js$/.test(file));
  const start = js.find(([file]) => file.endsWith(entry));
  if (start === undefined) throw new Error(`no output ends with ${entry}`);
  const loaded = new Set();
  const visit = (file) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const i of metafile.outputs[file]?.imports ?? [])
      if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit(start[0]);
  const sum = (files) => files.reduce((total, file) => total + (metafile.outputs[file]?.bytes ?? 0), 0);
  return { bytes: sum(js.map(([file]) => file)), initBytes: sum([...loaded]), loaded };
}
