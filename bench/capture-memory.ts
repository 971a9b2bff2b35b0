/**
 * Capture memory at scale (issue 8 case 9): one cluster of 100k nodes (60 % managed, 40 %
 * Karpenter; every node an EC2 instance and a Kubernetes node), captured through the live
 * adapters. The sandbox runs in a process of its own (capture-memory-sandbox.ts) and each capture
 * in another (capture-memory-run.ts), so the figure is the capture's alone: peak RSS (OS) and
 * peak heap used (sampled every 20 ms), with the process's footprint after its imports.
 *
 * `BENCH_NODES` (default 100000), `BENCH_EC2_DETAIL=full` (real-size DescribeInstances items;
 * slow to parse here), `BENCH_BEFORE_ROOT=<checkout>`: also run the capture with the adapters
 * of another checkout (e.g. `git archive main`), in the same sandbox, for a before/after pair.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const MEMORY_GOAL_MIB = 512;
const here = import.meta.dirname;
const tsx = resolve(here, '..', 'node_modules', '.bin', 'tsx');

export interface MemoryRun {
  label: string;
  ok: boolean;
  wallMs?: number;
  baseRssMiB?: number;
  peakRssMiB?: number;
  peakHeapMiB?: number;
  compute?: number | string;
  error?: string;
}

export interface CaptureMemoryResult {
  nodes: number;
  detail: 'lean' | 'full';
  heapLimitMiB: number;
  runs: MemoryRun[];
}

const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

function runCapture(
  label: string,
  sandboxLine: string,
  root: string,
  heapLimitMiB: number,
): Promise<MemoryRun> {
  return new Promise((resolveRun) => {
    const child = spawn(tsx, [resolve(here, 'capture-memory-run.ts'), sandboxLine, root], {
      env: { ...env, NODE_OPTIONS: `--max-old-space-size=${heapLimitMiB}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('{')) resolveRun({ label, ok: true, ...JSON.parse(line) });
      else {
        const oom = /heap out of memory|Allocation failed/i.test(err);
        resolveRun({
          label,
          ok: false,
          error: oom
            ? `out of memory (heap limit ${heapLimitMiB} MiB)`
            : `exit ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`,
        });
      }
    });
  });
}

export async function benchCaptureMemory(
  nodes = Number(process.env.BENCH_NODES ?? 100_000),
  detail: 'lean' | 'full' = process.env.BENCH_EC2_DETAIL === 'full' ? 'full' : 'lean',
  beforeRoot = process.env.BENCH_BEFORE_ROOT,
  heapLimitMiB = Number(process.env.BENCH_HEAP_LIMIT_MIB ?? 1536),
): Promise<CaptureMemoryResult> {
  const sandbox = spawn(tsx, [resolve(here, 'capture-memory-sandbox.ts'), String(nodes), detail], {
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const lines = createInterface({ input: sandbox.stdout });
    const first = await new Promise<string>((resolveLine, reject) => {
      lines.once('line', resolveLine);
      sandbox.once('exit', (code) => reject(new Error(`sandbox exited (${code})`)));
    });
    const runs: MemoryRun[] = [];
    if (beforeRoot !== undefined)
      runs.push(await runCapture(`before (${beforeRoot})`, first, beforeRoot, heapLimitMiB));
    runs.push(await runCapture('this checkout', first, resolve(here, '..'), heapLimitMiB));
    return { nodes, detail, heapLimitMiB, runs };
  } finally {
    sandbox.stdin.end();
    sandbox.kill();
  }
}

export function captureMemoryMarkdown(r: CaptureMemoryResult): string {
  const mib = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v)} MiB`);
  const current = r.runs[r.runs.length - 1];
  const peak = current?.peakRssMiB;
  const met = current?.ok === true && peak !== undefined && peak <= MEMORY_GOAL_MIB;
  return [
    `One cluster of ${r.nodes.toLocaleString('en')} nodes (60 % managed, 40 % Karpenter; each an EC2 instance and a Kubernetes node), DescribeInstances items \`${r.detail}\` (${r.detail === 'full' ? 'a real instance’s payload, ≈ 5 KiB of XML' : 'the fields the monitor reads, ≈ 1 KiB of XML; `BENCH_EC2_DETAIL=full` for real-size items'}). \`captureSnapshot\` through the live adapters in a process of its own (heap limit ${r.heapLimitMiB} MiB), the sandbox in another. Peak RSS from the OS, peak heap used sampled every 20 ms; "after imports" is the process before the capture (tsx, SDK clients, client-node).`,
    '',
    '| adapters | result | wall time | RSS after imports | peak RSS | peak heap used | compute nodes |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...r.runs.map(
      (run) =>
        `| ${run.label} | ${run.ok ? 'ok' : run.error} | ${run.wallMs === undefined ? '—' : `${(run.wallMs / 1000).toFixed(1)} s`} | ${mib(run.baseRssMiB)} | ${mib(run.peakRssMiB)} | ${mib(run.peakHeapMiB)} | ${run.compute ?? '—'} |`,
    ),
    '',
    `Goal: peak RSS of the capture process ≤ ${MEMORY_GOAL_MIB} MiB — ${peak === undefined ? 'not measured' : `${Math.round(peak)} MiB`}: ${met ? 'met' : 'NOT met'}.`,
  ].join('\n');
}
