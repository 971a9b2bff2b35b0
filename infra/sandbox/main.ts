/**
 * `npx tsx infra/sandbox/main.ts [--scenarios DIR] [--latency MS] [--side-effect-delay MS] [--not-ready-delay MS] [--credential-refresh-delay MS]`
 * Starts the sandbox seeded with every scenario file (cluster named after the file's base name),
 * prints the environment as `export …` lines, and runs until Ctrl-C.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startSandbox } from './index.ts';
import { loadScenarios } from './scenarios.ts';
import type { SandboxOptions } from './types.ts';

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function nonNegative(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number, got ${value}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenarios: { type: 'string', default: 'scenarios' },
      latency: { type: 'string' },
      'side-effect-delay': { type: 'string' },
      'not-ready-delay': { type: 'string' },
      'credential-refresh-delay': { type: 'string' },
      'eks-calls-per-second': { type: 'string' },
    },
    strict: true,
  });
  const dir = resolve(values.scenarios ?? 'scenarios');
  const options: SandboxOptions = { clusters: await loadScenarios(dir) };
  const latencyMs = nonNegative('latency', values.latency);
  const sideEffectDelayMs = nonNegative('side-effect-delay', values['side-effect-delay']);
  const notReadyDelayMs = nonNegative('not-ready-delay', values['not-ready-delay']);
  const credentialRefreshDelayMs = nonNegative(
    'credential-refresh-delay',
    values['credential-refresh-delay'],
  );
  const eksCallsPerSecond = nonNegative('eks-calls-per-second', values['eks-calls-per-second']);
  if (latencyMs !== undefined) options.latencyMs = latencyMs;
  if (sideEffectDelayMs !== undefined) options.sideEffectDelayMs = sideEffectDelayMs;
  if (notReadyDelayMs !== undefined) options.notReadyDelayMs = notReadyDelayMs;
  if (eksCallsPerSecond !== undefined) options.eksCallsPerSecond = eksCallsPerSecond;
  if (credentialRefreshDelayMs !== undefined) options.credentialRefreshDelayMs = credentialRefreshDelayMs;
  const sandbox = await startSandbox(options);
  for (const [k, v] of Object.entries(sandbox.env)) process.stdout.write(`export ${k}=${quote(v)}\n`);
  process.stdout.write('export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true\n');
  process.stderr.write(
    `# sandbox account ${sandbox.accountId}: ${options.clusters.length} cluster(s) from ${dir}: ${options.clusters
      .map((c) => c.name)
      .join(', ')}\n# Ctrl-C to stop\n`,
  );
  let seen = 0;
  const timer = setInterval(() => {
    for (; seen < sandbox.timeline.length; seen++) {
      const t = sandbox.timeline[seen];
      if (t) process.stderr.write(`# ${new Date(t.at).toISOString()} ${t.what}\n`);
    }
  }, 500);
  const stop = (): void => {
    clearInterval(timer);
    void sandbox.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`sandbox: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
