// A vitest reporter that writes each test file's whole time to the JSON file named by
// TEST_TIMES_OUTPUT (nothing when unset), for scripts/test-times.mjs. Why beside vitest's JSON
// report: that report times a file from its first test's start to its last test's end, which
// leaves out the import and a beforeAll before the first test — most of a build test's time
// (bundling, packaging). Here: environment, harness, import and every test and hook.
// Also, per file, the test nearest its timeout (duration ÷ timeout): the JSON report has the
// durations but not the timeouts, which are the project's testTimeout unless a test sets its own.
import { writeFileSync } from 'node:fs';

/** The test of the module with the largest share of its timeout used, or undefined. */
function nearestTimeout(module, projectTimeout) {
  let nearest;
  for (const test of module.children.allTests()) {
    const d = test.diagnostic();
    if (d === undefined) continue;
    const timeoutMs = test.options.timeout ?? projectTimeout;
    if (typeof timeoutMs !== 'number' || timeoutMs <= 0) continue;
    const share = d.duration / timeoutMs;
    if (nearest === undefined || share > nearest.share)
      nearest = { name: test.fullName, ms: d.duration, timeoutMs, share };
  }
  return nearest;
}

export default class TestTimesReporter {
  onTestRunEnd(testModules) {
    const output = process.env.TEST_TIMES_OUTPUT;
    if (!output) return;
    try {
      const files = testModules.map((m) => {
        const d = m.diagnostic();
        return {
          file: m.moduleId,
          project: m.project.name,
          state: m.state(),
          importMs: d.collectDuration,
          ms:
            d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration,
          nearestTimeout: nearestTimeout(m, m.project.config.testTimeout),
        };
      });
      writeFileSync(output, `${JSON.stringify({ files })}\n`);
    } catch (error) {
      console.error(`test times: not written (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}
