// Prints the slowest test files of a run from vitest's JSON report, so that every CI log shows
// where the suite's time goes (a file drifting towards its timeout is seen before it fails).
//   node scripts/test-times.mjs REPORT.json [COUNT]     (COUNT: default 10)
// Wall time per file (start to end, collection and hooks included: what a worker was busy with),
// its slowest test, and the sum over all files against the run's wall time (how parallel it ran).
// A missing or unreadable report prints one line and exits 0: CI's verdict comes from elsewhere.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [file, countArg] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: node scripts/test-times.mjs REPORT.json [COUNT]');
  process.exit(2);
}
const count = Number(countArg ?? 10);

let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.log(`test times: no report (${error instanceof Error ? error.message : String(error)})`);
  process.exit(0);
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const files = (report.testResults ?? []).map((r) => {
  const tests = r.assertionResults ?? [];
  const slowest = tests.reduce((a, t) => ((t.duration ?? 0) > (a?.duration ?? -1) ? t : a), undefined);
  return {
    name: relative(process.cwd(), r.name ?? '?'),
    ms: Math.max(0, (r.endTime ?? 0) - (r.startTime ?? 0)),
    status: r.status ?? '?',
    slowest,
  };
});
files.sort((a, b) => b.ms - a.ms);

const busy = files.reduce((sum, f) => sum + f.ms, 0);
const start = Math.min(...(report.testResults ?? []).map((r) => r.startTime ?? Number.POSITIVE_INFINITY));
const end = Math.max(...(report.testResults ?? []).map((r) => r.endTime ?? 0));
const wall = Number.isFinite(start) && end > start ? end - start : 0;
console.log(
  `test times: ${files.length} files, ${seconds(wall)} wall, ${seconds(busy)} in files` +
    (wall > 0 ? ` (${(busy / wall).toFixed(1)} at a time)` : ''),
);
console.log(`the ${Math.min(count, files.length)} slowest files:`);
const width = Math.max(...files.slice(0, count).map((f) => seconds(f.ms).length), 0);
for (const f of files.slice(0, count)) {
  const slow = f.slowest
    ? ` — slowest test ${seconds(f.slowest.duration ?? 0)}: ${String(f.slowest.title).slice(0, 70)}`
    : '';
  const mark = f.status === 'passed' ? '' : ` [${f.status}]`;
  console.log(`  ${seconds(f.ms).padStart(width)}  ${f.name}${mark}${slow}`);
}
