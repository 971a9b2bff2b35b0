/**
 * Start of the CLI: wall time of a whole `node dist/cli.js …` process (spawn to exit) for a
 * file-only `assess --snapshot` on a small scenario and for `--version`, against a bare
 * `node -e 0` and against the same `assess` from the one-file bundle of before the split
 * (`scripts/build.mjs --single-file`), measured side by side, interleaved, in the same run; plus
 * the CPU time of each process (Linux) and the bundle's layout (what every command loads, what
 * only a live command loads, whether this Node takes the core's code cache).
 * Goal (issue 7): `assess --snapshot` on a small file within 2.5× a bare `node -e 0`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileCore } from '../scripts/cli-core-script.mjs';
import { median } from './cold-start.ts';

const ROOT = join(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 21);
const SCENARIO = 'scenarios/healthy-api-mode.json';

interface Case {
  id: string;
  label: string;
  args: string[];
}

const ASSESS = ['assess', '--snapshot', SCENARIO, '--format', 'json'];

function casesFor(singleFile: string): Case[] {
  return [
    { id: 'bare', label: '`node -e 0`', args: ['-e', '0'] },
    { id: 'version', label: '`node dist/cli.js --version`', args: ['dist/cli.js', '--version'] },
    { id: 'assess', label: `\`node dist/cli.js ${ASSESS.join(' ')}\``, args: ['dist/cli.js', ...ASSESS] },
    {
      id: 'single',
      label: 'the same `assess`, one-file bundle (before the split)',
      args: [singleFile, ...ASSESS],
    },
  ];
}

export interface CliStartRow {
  id: string;
  label: string;
  runsMs: number[];
  medianMs: number;
  ratio: number;
  /** Mean CPU time (user + system) of one process; undefined where /proc is not there. */
  cpuMs: number | undefined;
}

export interface CliStartResult {
  rows: CliStartRow[];
  /** What every command loads: dist/cli.js, the core script and its code cache. */
  entry: Array<{ file: string; bytes: number }>;
  /** Loaded only by a live command: the vendor bundle of the live adapters' packages. */
  onDemand: Array<{ file: string; bytes: number }>;
  /** What the core script holds, by package or source folder (esbuild metafile). */
  assessContents: Array<{ source: string; bytes: number }>;
  /** Whether V8 takes the code cache in this process (same Node, same V8 flags as a plain `node`). */
  cacheAccepted: boolean;
}

/** CPU time (user + system) of this process's waited-for children, in ms (Linux; 10 ms ticks). */
function childrenCpuMs(): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** One fresh process, spawn to exit, in milliseconds. */
function measureOnce(c: Case): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, c.args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${c.args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** Bytes of each package (or `shared/<layer>/<dir>`) in the given output files, from `dist/cli-meta.json`. */
function contents(files: string[]): Array<{ source: string; bytes: number }> {
  const meta = JSON.parse(readFileSync(join(DIST, 'cli-meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const by = new Map<string, number>();
  for (const file of files) {
    for (const [input, { bytesInOutput }] of Object.entries(meta.outputs[file]?.inputs ?? {})) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      const source = pkg ?? input.split('/').slice(0, 3).join('/');
      by.set(source, (by.get(source) ?? 0) + bytesInOutput);
    }
  }
  return [...by].map(([source, bytes]) => ({ source, bytes })).sort((a, b) => b.bytes - a.bytes);
}

function layout(): Omit<CliStartResult, 'rows'> {
  const chunks = readdirSync(join(DIST, 'cli-chunks')).map((f) => join(DIST, 'cli-chunks', f));
  const core = chunks.find((f) => /\/core-[^/]*\.cjs$/.test(f)) as string;
  const cache = core.replace(/\.cjs$/, '.cache');
  const row = (file: string) => ({ file: file.slice(ROOT.length + 1), bytes: statSync(file).size });
  const script = compileCore(readFileSync(core, 'utf8'), core, readFileSync(cache));
  return {
    entry: [join(DIST, 'cli.js'), core, cache].map(row),
    onDemand: chunks.filter((f) => /\/live-[^/]*\.cjs$/.test(f)).map(row),
    assessContents: contents([core.slice(ROOT.length + 1)]),
    cacheAccepted: !script.cachedDataRejected,
  };
}

export function benchCliStart(): CliStartResult {
  const build = join(ROOT, 'scripts', 'build.mjs');
  execFileSync(process.execPath, [build], { cwd: ROOT, stdio: 'pipe' });
  const single = mkdtempSync(join(tmpdir(), 'sentinel-bench-cli-'));
  try {
    execFileSync(process.execPath, [build, '--outdir', single, '--single-file'], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    // The CLI reads its version from the package.json above it (JSON output carries it).
    copyFileSync(join(ROOT, 'package.json'), join(single, 'package.json'));
    const cases = casesFor(join(single, 'cli.js'));
    const runs = new Map<string, number[]>(cases.map((c) => [c.id, []]));
    const cpu = new Map<string, number>(cases.map((c) => [c.id, 0]));
    for (const c of cases) measureOnce(c); // warm the file cache; not counted
    for (let i = 0; i < RUNS; i++) {
      // Interleaved, in a rotating order: a busy moment of the machine hits every case alike.
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(k + i) % cases.length] as Case;
        const before = childrenCpuMs();
        runs.get(c.id)?.push(measureOnce(c));
        const after = childrenCpuMs();
        if (before !== undefined && after !== undefined) cpu.set(c.id, (cpu.get(c.id) ?? 0) + after - before);
      }
    }
    const bare = median(runs.get('bare') ?? []);
    const rows = cases.map((c) => {
      const ms = runs.get(c.id) ?? [];
      const cpuMs = childrenCpuMs() === undefined ? undefined : (cpu.get(c.id) ?? 0) / RUNS;
      return { id: c.id, label: c.label, runsMs: ms, medianMs: median(ms), ratio: median(ms) / bare, cpuMs };
    });
    return { rows, ...layout() };
  } finally {
    rmSync(single, { recursive: true, force: true });
  }
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

export function cliStartMarkdown(result: CliStartResult): string {
  const assess = result.rows.find((r) => r.id === 'assess');
  const bareCpu = result.rows.find((r) => r.id === 'bare')?.cpuMs;
  const lines = [
    `Wall time of one fresh \`node\` (${process.version}) process, spawn to exit, ${RUNS} runs each, interleaved in a rotating order after one uncounted warm-up run each; median. CPU: user + system time of the process (all its threads), mean over the runs, from the kernel's 10 ms ticks. The CLI is built first (\`scripts/build.mjs\`, and \`--single-file\` into a temporary directory for the last row).`,
    '',
    '| command | wall (median) | × `node -e 0` | CPU (mean) | × `node -e 0` | runs (ms) |',
    '|---|---:|---:|---:|---:|---|',
    ...result.rows.map((r) => {
      const cpu = r.cpuMs === undefined ? '—' : `${r.cpuMs.toFixed(0)} ms`;
      const cpuRatio = r.cpuMs === undefined || bareCpu === undefined ? '—' : (r.cpuMs / bareCpu).toFixed(2);
      return `| ${r.label} | ${r.medianMs.toFixed(0)} ms | ${r.ratio.toFixed(2)} | ${cpu} | ${cpuRatio} | ${r.runsMs.map((x) => x.toFixed(0)).join(', ')} |`;
    }),
    '',
    `Bundle: every command loads ${result.entry.map((f) => `\`${f.file}\` (${kib(f.bytes)})`).join(', ')} — the loader, the core script (every command's code, compiled by \`vm.Script\`) and V8's code cache of it, recorded by the build after running file-only commands (${result.cacheAccepted ? 'taken by this Node' : '**rejected by this Node**: the core is compiled from source'}). Loaded only by a live command (\`snapshot\`, \`report\`, \`--cluster\`): ${result.onDemand.map((f) => `\`${f.file.replace(/^dist\/cli-chunks\//, '')}\` (${(f.bytes / 1024 / 1024).toFixed(2)} MiB)`).join(', ')}, the AWS SDK clients and \`@kubernetes/client-node\`.`,
  ];
  const top = result.assessContents.slice(0, 8);
  const yaml = result.assessContents.find((c) => c.source === 'yaml');
  lines.push(
    '',
    `What the core script holds, by package or source folder (esbuild metafile, bytes in the output): ${top.map((c) => `${c.source} ${kib(c.bytes)}`).join(', ')}; the \`yaml\` package: ${yaml === undefined ? 'not in the bundle' : kib(yaml.bytes)}.`,
  );
  if (assess) {
    lines.push(
      '',
      `Goal: \`assess --snapshot\` on a small file within 2.5× a bare \`node -e 0\` — **${assess.ratio <= 2.5 ? 'met' : 'missed'}** (${assess.ratio.toFixed(2)}×).`,
    );
  }
  return lines.join('\n');
}

/** `npx tsx bench/cli-start.ts`: this section alone. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${cliStartMarkdown(benchCliStart())}\n`);
}
