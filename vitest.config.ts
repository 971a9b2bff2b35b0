import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Four projects (`npx vitest run` runs all of them side by side, `--project unit` one):
 *   unit      pure code and file-only CLI runs, in process;
 *   sandbox   real SDK clients and handlers against the local sandbox, DynamoDB, S3, browsers;
 *   build     what bundles or packages (esbuild, `serverless package`), each into a directory of
 *             its own, so that `npm start` or another build in the checkout cannot interfere;
 *   property  fast-check and differential runs at their full case counts.
 * `npm test` is the first three; `npm run test:property` the fourth, a step of its own in CI
 * (.ci/run): about a quarter of the suite's CPU time on a 2-core machine, for a few dozen files.
 * Workers: one more than the cores, at least 3. Vitest's default for `run` is cores − 1, a single
 * worker on the 2-core CI machines, while many files wait on child processes, servers or timers
 * (the incident demo, the AWS CLI, `serverless package`): on 2 cores `npm test` took 355 s with
 * 2 workers and 341 s with 3, both at idle (.ci/run's log).
 */
export const BUILD = [
  'test/deploy/action-bundle.test.ts',
  'test/deploy/serverless-package.test.ts',
  'test/deploy/function-bundles.test.ts',
  'test/e2e/cli-bundle.e2e.test.ts',
  'test/e2e/incident-demo.e2e.test.ts',
  'test/e2e/incident-demo-aws-auth.e2e.test.ts',
  'test/functions/smoke-node22.test.ts',
];
export const PROPERTY = ['test/**/*.property.test.ts', 'test/**/*.differential.test.ts'];
export const SANDBOX = [
  'test/adapters/**',
  'test/app/**',
  'test/e2e/**',
  'test/functions/**',
  'test/sandbox/**',
];

export default defineConfig({
  test: {
    // No `include` here: a project that extends this config would add its own to it.
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: Math.max(3, availableParallelism() + 1),
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...BUILD, ...PROPERTY, ...SANDBOX],
          // One module graph per worker, not per file: importing the core afresh for each of ~80
          // files was most of this project's time (test/core/ alone: 76 s of CPU isolated, 27 s
          // not). Safe because these files mock nothing and set no environment (those that do
          // are in the sandbox project, which keeps isolation).
          isolate: false,
        },
      },
      // A property test runs its full case count (10,000 by default) in one test: 10–25 s of CPU
      // on an idle 2-core machine, and a CPU-bound test takes about 4× as long at load 8. 240 s
      // keeps such a test under half its timeout there (scripts/test-times.mjs lists any over).
      {
        extends: true,
        test: {
          name: 'property',
          include: PROPERTY,
          exclude: BUILD,
          testTimeout: 240_000,
          // As in unit, one module graph per worker (the files' imports: 49 s of CPU isolated,
          // 26 s not, measured with 50 cases per property).
          isolate: false,
        },
      },
      { extends: true, test: { name: 'sandbox', include: SANDBOX, exclude: [...BUILD, ...PROPERTY] } },
      // Each test runs child processes of tens of seconds (the demo's own limit is 90 s): at load
      // 15 the default 60 s was met by the child alone.
      { extends: true, test: { name: 'build', include: BUILD, testTimeout: 180_000 } },
    ],
  },
});
