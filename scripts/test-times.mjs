// Prints the slowest test files of a run, so that every CI log shows where the suite's time goes
// (a file drifting towards its timeout is seen before it fails).
//   node scripts/test-times.mjs REPORT.json [TIMES.json] [--top N]      (N: default 10)
// REPORT.json: vitest's JSON report (statuses, each file's slowest test). TIMES.json, when given
// and readable: scripts/test-times-reporter.mjs's per-file times, import and hooks included;
// without it a file's time is the JSON report's, first test's start to last test's end.
// Also the sum over all files against the run's wall time (how many files ran at a time), and,
// from TIMES.json, each file's test nearest its timeout: every test that took more than half of
// its timeout is listed (a loaded machine can double a test's time; such a test would then fail).
// A missing or unreadable report prints one line and exits 0: CI's verdict comes from elsewhere.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const count = topAt === -1 ? 10 : Number(args[topAt + 1]);
const [reportFile, timesFile] = args.filter((_, i) => topAt === -1 || (i !== topAt && i !== topAt + 1));
if (reportFile === undefined) {
  console.error('usage: node scripts/test-times.mjs REPORT.json [TIMES.json] [--top N]');
  process.exit(2);
}

const readJson = (file) => {
  try {
    return { ok: true, value: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
};
const report = readJson(reportFile);
if (!report.ok) {
  console.log(`test times: no report (${report.reason})`);
  process.exit(0);
}
const times = timesFile === undefined ? undefined : readJson(timesFile);
const whole = new Map(times?.ok ? (times.value.files ?? []).map((f) => [f.file, f]) : []);

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const percent = (nearest) => `${Math.round(nearest.share * 100)}%`;
/** A test over this share of its timeout is listed. */
const NEAR = 0.5;
const results = report.value.testResults ?? [];
const files = results.map((r) => {
  const tests = r.assertionResults ?? [];
  const slowest = tests.reduce((a, t) => ((t.duration ?? 0) > (a?.duration ?? -1) ? t : a), undefined);
  const own = whole.get(r.name);
  return {
    name: relative(process.cwd(), r.name ?? '?'),
    ms: own?.ms ?? Math.max(0, (r.endTime ?? 0) - (r.startTime ?? 0)),
    project: own?.project,
    status: r.status ?? '?',
    slowest,
    nearest: own?.nearestTimeout,
  };
});
files.sort((a, b) => b.ms - a.ms);

const busy = files.reduce((sum, f) => sum + f.ms, 0);
const start = Math.min(
  report.value.startTime ?? Number.POSITIVE_INFINITY,
  ...results.map((r) => r.startTime),
);
const end = Math.max(0, ...results.map((r) => r.endTime ?? 0));
const wall = Number.isFinite(start) && end > start ? end - start : 0;
const measured = whole.size > 0 ? 'import and hooks included' : 'first test to last test';
console.log(
  `test times (${measured}): ${files.length} files, ${seconds(busy)} in files, ${seconds(wall)} wall` +
    (wall > 0 ? ` (${(busy / wall).toFixed(1)} at a time)` : ''),
);
if (times !== undefined && !times.ok) console.log(`  (no per-file times: ${times.reason})`);
console.log(`the ${Math.min(count, files.length)} slowest files:`);
const width = Math.max(0, ...files.slice(0, count).map((f) => seconds(f.ms).length));
for (const f of files.slice(0, count)) {
  const slow = f.slowest
    ? ` — slowest test ${seconds(f.slowest.duration ?? 0)}: ${String(f.slowest.title).slice(0, 70)}`
    : '';
  const mark = f.status === 'passed' ? '' : ` [${f.status}]`;
  const project = f.project === undefined ? '' : ` (${f.project})`;
  const of =
    f.nearest === undefined
      ? ''
      : ` · nearest its timeout: ${percent(f.nearest)} (${seconds(f.nearest.ms)} of ${seconds(f.nearest.timeoutMs)})`;
  console.log(`  ${seconds(f.ms).padStart(width)}  ${f.name}${project}${mark}${slow}${of}`);
}
if (whole.size > 0) {
  const near = files.filter((f) => f.nearest !== undefined && f.nearest.share > NEAR);
  near.sort((a, b) => b.nearest.share - a.nearest.share);
  console.log(
    near.length === 0
      ? `no test took more than ${NEAR * 100}% of its timeout`
      : `${near.length} file(s) with a test over ${NEAR * 100}% of its timeout (at twice the load it would fail):`,
  );
  for (const f of near)
    console.log(
      `  ${percent(f.nearest)}  ${seconds(f.nearest.ms)} of ${seconds(f.nearest.timeoutMs)}  ${f.name}: ${String(f.nearest.name).slice(0, 90)}`,
    );
}
