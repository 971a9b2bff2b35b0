// A vitest reporter that writes each test file's whole time to the JSON file named by
// TEST_TIMES_OUTPUT (nothing when unset), for scripts/test-times.mjs. Why beside vitest's JSON
// report: that report times a file from its first test's start to its last test's end, which
// leaves out the import and a beforeAll before the first test — most of a build test's time
// (bundling, packaging). Here: environment, harness, import and every test and hook.
import { writeFileSync } from 'node:fs';

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
        };
      });
      writeFileSync(output, `${JSON.stringify({ files })}\n`);
    } catch (error) {
      console.error(`test times: not written (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}
