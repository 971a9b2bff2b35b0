/**
 * Cold start of the function bundles: module init time (the bundle's `import`, timed inside a
 * fresh `node` process per measurement) as a ratio to a bare bundle of ONE SDK client
 * (`@aws-sdk/client-eks` with one command), bundled with the same esbuild options
 * (scripts/bundle-options.mjs) except the SDK plugins, and measured side by side, interleaved, in
 * the same run; plus bundle sizes. A second baseline row is the same client bundled with the
 * functions' options as they are (SDK plugins, code splitting), for reference.
 * Goals: onEksEvent ≤ 1.5 MB, its init ≤ 2× the baseline.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { functionBuildOptions, outputSizes } from '../scripts/bundle-options.mjs';
import { bundlePath, FUNCTION_NAMES, type FunctionName } from '../scripts/demo/lambda.ts';

const ROOT = join(import.meta.dirname, '..');
export const BASELINE = 'eksClientBaseline';
const BASELINE_WITH_PLUGINS = 'eksClientBaselineSdkPlugins';
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 9);
/** onEksEvent in BENCHMARKS.md before issue 7 (2026-11-29): 0.97 MiB, 1.94× the baseline. */
const ON_EKS_EVENT_BUDGET = { bytes: 0.97 * 1024 * 1024, ratio: 1.94 };

/** Bytes of each bundle: all its JavaScript, and what its entry loads at init (outputSizes). */
const sizes = new Map<string, { bytes: number; initBytes: number }>();

/** Builds the four function bundles (scripts/bundle-functions.mjs) and the baselines into a temporary directory. */
export async function buildBundles(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-bench-bundles-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle-functions.mjs'), '--outdir', dir], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Record<
    string,
    { bytes: number; initBytes: number }
  >;
  for (const [name, { bytes, initBytes }] of Object.entries(meta)) sizes.set(name, { bytes, initBytes });
  // The yardstick: one client bundled into one file with the functions' options but without the
  // SDK plugins (scripts/sdk-bundle-plugins.mjs) and code splitting, as when the budget was set;
  // and the same client with the functions' options as they are, to show what they do to it.
  const entry = join(dir, 'eks-client-baseline.mjs');
  writeFileSync(
    entry,
    [
      "import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';",
      'const eks = new EKSClient({});',
      'export const handler = async (event) => eks.send(new DescribeClusterCommand({ name: event.name }));',
    ].join('\n'),
  );
  const { splitting: _splitting, chunkNames: _chunkNames, ...options } = functionBuildOptions();
  mkdirSync(join(dir, BASELINE));
  const plain = await build({
    ...options,
    plugins: options.plugins.filter((p) => p.name === 'keep-class-names'),
    absWorkingDir: ROOT,
    nodePaths: [join(ROOT, 'node_modules')],
    entryPoints: [entry],
    outfile: join(dir, BASELINE, 'index.mjs'),
  });
  const like = await build({
    ...functionBuildOptions(),
    absWorkingDir: ROOT,
    nodePaths: [join(ROOT, 'node_modules')],
    entryPoints: { index: entry },
    outExtension: { '.js': '.mjs' },
    outdir: join(dir, BASELINE_WITH_PLUGINS),
  });
  sizes.set(BASELINE, outputSizes(plain.metafile, '/index.mjs'));
  sizes.set(BASELINE_WITH_PLUGINS, outputSizes(like.metafile, '/index.mjs'));
  return dir;
}

export interface ColdStartRow {
  name: string;
  /** All the bundle's JavaScript (entry and chunks, without source maps). */
  bytes: number;
  /** The entry and the chunks it imports statically: what module init loads. */
  initBytes: number;
  runsMs: number[];
  medianMs: number;
  ratio: number;
  /** The same for the CPU time of the import. */
  cpuMedianMs: number;
  cpuRatio: number;
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

function bundleOf(dir: string, name: string): string {
  return name === BASELINE || name === BASELINE_WITH_PLUGINS
    ? join(dir, name, 'index.mjs')
    : bundlePath(dir, name as FunctionName);
}

/**
 * One fresh process: import the bundle, print the time the import took and the CPU time it used
 * (user + system; less disturbed than the clock when other processes share the cores).
 */
function measureOnce(file: string): { ms: number; cpuMs: number } {
  const code =
    'const c = process.cpuUsage(); const t = performance.now(); await import(process.argv.at(-1)); const ms = performance.now() - t; const d = process.cpuUsage(c); process.stdout.write(ms + " " + (d.user + d.system) / 1000);';
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code, pathToFileURL(file).href], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  const [ms, cpuMs] = r.stdout.split(' ').map(Number);
  if (r.status !== 0 || !Number.isFinite(ms) || !Number.isFinite(cpuMs))
    throw new Error(`import of ${file} failed: ${r.stderr}`);
  return { ms: ms as number, cpuMs: cpuMs as number };
}

export function benchColdStart(dir: string): ColdStartRow[] {
  const names = [BASELINE, BASELINE_WITH_PLUGINS, ...FUNCTION_NAMES];
  const runs = new Map<string, number[]>(names.map((n) => [n, []]));
  const cpu = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, in a rotating order: a busy moment of the machine hits every bundle alike.
    const order = names.map((_, k) => names[(k + i) % names.length] as string);
    for (const name of order) {
      const m = measureOnce(bundleOf(dir, name));
      runs.get(name)?.push(m.ms);
      cpu.get(name)?.push(m.cpuMs);
    }
  }
  const base = median(runs.get(BASELINE) ?? []);
  const baseCpu = median(cpu.get(BASELINE) ?? []);
  return names.map((name) => {
    const ms = runs.get(name) ?? [];
    return {
      cpuMedianMs: median(cpu.get(name) ?? []),
      cpuRatio: median(cpu.get(name) ?? []) / baseCpu,
      name,
      bytes: sizes.get(name)?.bytes ?? Number.NaN,
      initBytes: sizes.get(name)?.initBytes ?? Number.NaN,
      runsMs: ms,
      medianMs: median(ms),
      ratio: median(ms) / base,
    };
  });
}

const LABELS: Record<string, string> = {
  [BASELINE]: 'baseline: EKS client + 1 command',
  [BASELINE_WITH_PLUGINS]: "the same, with the functions' options",
};

export function coldStartMarkdown(rows: ColdStartRow[]): string {
  const on = rows.find((r) => r.name === 'onEksEvent');
  const plugged = rows.find((r) => r.name === BASELINE_WITH_PLUGINS);
  const lines = [
    `Module init = \`await import(bundle)\` timed inside a fresh \`node\` (${process.version}) per measurement, ${RUNS} runs each, interleaved; median of the clock (the budget's measure) and of the CPU time the import used (user + system: less disturbed when the machine is busy). Baseline: \`@aws-sdk/client-eks\` with one command, bundled with the functions' esbuild options (scripts/bundle-options.mjs: ESM, minified, node22) but into one file and without the SDK plugins (scripts/sdk-bundle-plugins.mjs), as when the budget was set; the row below it is the same client with the functions' options as they are (plugins, code splitting). Size: all the bundle's JavaScript (entry and \`chunks/\`, without source maps); loaded at init: the entry and the chunks it imports statically.`,
    '',
    '| bundle | size | loaded at init | init (median) | × baseline | init CPU (median) | × baseline | runs (ms) |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${LABELS[r.name] ?? `\`${r.name}\``} | ${(r.bytes / 1024 / 1024).toFixed(2)} MiB | ${(r.initBytes / 1024 / 1024).toFixed(2)} MiB | ${r.medianMs.toFixed(0)} ms | ${r.ratio.toFixed(2)} | ${r.cpuMedianMs.toFixed(0)} ms | ${r.cpuRatio.toFixed(2)} | ${r.runsMs.map((x) => x.toFixed(0)).join(', ')} |`,
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
      `Budget for \`onEksEvent\` (issue 7: no worse than before the restructuring, ${(ON_EKS_EVENT_BUDGET.bytes / 1024).toFixed(0)} KiB = 0.97 MiB and ${ON_EKS_EVENT_BUDGET.ratio}× the baseline): size — **${budgetOk ? 'met' : 'missed'}** (${(on.bytes / 1024).toFixed(0)} KiB); init — **${ratioOk ? 'met' : 'missed'}** (${on.ratio.toFixed(2)}×, CPU ${on.cpuRatio.toFixed(2)}×${plugged === undefined ? '' : `; against the baseline bundled with the functions' options ${(on.medianMs / plugged.medianMs).toFixed(2)}×, CPU ${(on.cpuMedianMs / plugged.cpuMedianMs).toFixed(2)}×`}).`,
    );
  }
  return lines.join('\n');
}

/** `npx tsx bench/cold-start.ts`: this section alone. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${coldStartMarkdown(benchColdStart(await buildBundles()))}\n`);
}
