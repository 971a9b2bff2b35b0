// The esbuild options of the function bundles, in one place: scripts/bundle-functions.mjs builds
// with them, scripts/bundle-report.mjs analyses a build with them, and bench/cold-start.ts builds
// its one-client baseline with them (so the ratio compares like with like).
//
// ESM for Node 22, minified (identifiers, whitespace, syntax), tree-shaken (esbuild's default when
// bundling), linked source maps without the sources' text (stack traces map back to file:line).
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
};

const REQUIRE_BANNER =
  "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

/** esbuild options for one function bundle (add `entryPoints`/`stdin`, `outfile`, `absWorkingDir`). */
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
    mainFields: ['module', 'main'],
    plugins: [keepClassNames, sdkSchemaKeys, sdkPackageVersion],
    logLevel: 'warning',
    banner: { js: `${REQUIRE_BANNER} ${KEEP_NAMES_BANNER}` },
  };
}
