/**
 * Cold start of the function bundles: module init time (the bundle's `import`, timed inside a
 * fresh `node` process per measurement) as a ratio to a bare bundle of ONE SDK client
 * (`@aws-sdk/client-eks` with one command), bundled with the same esbuild options and measured
 * side by side, interleaved, in the same run; plus bundle sizes.
 * Goals: onEksEvent ≤ 1.5 MB, its init ≤ 2× the baseline.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundlePath, FUNCTION_NAMES, type FunctionName } from '../scripts/demo/lambda.ts';

const ROOT = join(import.meta.dirname, '..');
export const BASELINE = 'eksClientBaseline';
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 9);
/** onEksEvent in BENCHMARKS.md before issue 7 (2026-11-29): 0.97 MiB, 1.94× the baseline. */
const ON_EKS_EVENT_BUDGET = { bytes: 0.97 * 1024 * 1024, ratio: 1.94 };

/** Builds the four function bundles (scripts/bundle-functions.mjs) and the baseline into a temporary directory. */
export async function buildBundles(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-bench-bundles-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle-functions.mjs'), '--outdir', dir], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  mkdirSync(join(dir, BASELINE));
  // The same options as scripts/bundle-functions.mjs.
  await build({
    absWorkingDir: ROOT,
    stdin: {
      contents: [
        "import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';",
        'const eks = new EKSClient({});',
        'export const handler = async (event) => eks.send(new DescribeClusterCommand({ name: event.name }));',
      ].join('\n'),
      resolveDir: ROOT,
      sourcefile: 'eks-client-baseline.mjs',
      loader: 'js',
    },
    outfile: join(dir, BASELINE, 'index.mjs'),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    mainFields: ['module', 'main'],
    logLevel: 'warning',
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  return dir;
}

export interface ColdStartRow {
  name: string;
  bytes: number;
  runsMs: number[];
  medianMs: number;
  ratio: number;
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

function bundleOf(dir: string, name: string): string {
  return name === BASELINE ? join(dir, BASELINE, 'index.mjs') : bundlePath(dir, name as FunctionName);
}

/** One fresh process: import the bundle, print the time the import took. */
function measureOnce(file: string): number {
  const code =
    'const t = performance.now(); await import(process.argv.at(-1)); process.stdout.write(String(performance.now() - t));';
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code, pathToFileURL(file).href], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  const ms = Number(r.stdout);
  if (r.status !== 0 || !Number.isFinite(ms)) throw new Error(`import of ${file} failed: ${r.stderr}`);
  return ms;
}

export function benchColdStart(dir: string): ColdStartRow[] {
  const names = [BASELINE, ...FUNCTION_NAMES];
  const runs = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, in a rotating order: a busy moment of the machine hits every bundle alike.
    const order = names.map((_, k) => names[(k + i) % names.length] as string);
    for (const name of order) runs.get(name)?.push(measureOnce(bundleOf(dir, name)));
  }
  const base = median(runs.get(BASELINE) ?? []);
  return names.map((name) => {
    const ms = runs.get(name) ?? [];
    return {
      name,
      bytes: statSync(bundleOf(dir, name)).size,
      runsMs: ms,
      medianMs: median(ms),
      ratio: median(ms) / base,
    };
  });
}

export function coldStartMarkdown(rows: ColdStartRow[]): string {
  const on = rows.find((r) => r.name === 'onEksEvent');
  const lines = [
    `Module init = \`await import(bundle)\` timed inside a fresh \`node\` (${process.version}) per measurement, ${RUNS} runs each, interleaved; median. Baseline: \`@aws-sdk/client-eks\` with one command, bundled with the same esbuild options (ESM, minified, node22). Sizes: the bundle file without its source map.`,
    '',
    '| bundle | size | init (median) | × baseline | runs (ms) |',
    '|---|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.name === BASELINE ? 'baseline: EKS client + 1 command' : `\`${r.name}\``} | ${(r.bytes / 1024 / 1024).toFixed(2)} MiB | ${r.medianMs.toFixed(0)} ms | ${r.ratio.toFixed(2)} | ${r.runsMs.map((x) => x.toFixed(0)).join(', ')} |`,
    ),
  ];
  if (on) {
    const sizeOk = on.bytes <= 1.5 * 1024 * 1024;
    const initOk = on.ratio <= 2;
    lines.push(
      '',
      `Goal for \`onEksEvent\`: ≤ 1.5 MB — **${sizeOk ? 'met' : 'missed'}** (${(on.bytes / 1e6).toFixed(2)} MB = ${(on.bytes / 1024 / 1024).toFixed(2)} MiB); init ≤ 2× the baseline — **${initOk ? 'met' : 'missed'}** (${on.ratio.toFixed(2)}×).`,
    );
    // Issue 7: no worse than BENCHMARKS.md before the restructuring (2026-11-29: 0.97 MiB, 1.94×).
    const budgetOk = on.bytes <= ON_EKS_EVENT_BUDGET.bytes;
    const ratioOk = on.ratio <= ON_EKS_EVENT_BUDGET.ratio;
    lines.push(
      '',
      `Budget for \`onEksEvent\` (issue 7: no worse than before the restructuring, ${(ON_EKS_EVENT_BUDGET.bytes / 1024).toFixed(0)} KiB = 0.97 MiB and ${ON_EKS_EVENT_BUDGET.ratio}× the baseline): size — **${budgetOk ? 'met' : 'missed'}** (${(on.bytes / 1024).toFixed(0)} KiB); init — **${ratioOk ? 'met' : 'missed'}** (${on.ratio.toFixed(2)}×).`,
    );
  }
  return lines.join('\n');
}

/** `npx tsx bench/cold-start.ts`: this section alone. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${coldStartMarkdown(benchColdStart(await buildBundles()))}\n`);
}
