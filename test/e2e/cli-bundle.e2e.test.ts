import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../infra/sandbox/index.ts';
import { loadScenarios } from '../../infra/sandbox/scenarios.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const KARPENTER = join(ROOT, 'scenarios', 'a-karpenter-shares-last-nodegroup-role.json');

let work: string;
/**
 * The package as installed, built in a directory of the test's own (dist/ of this test alone, the
 * package.json and scenarios/ the CLI finds above it): another build or `npm start` in the
 * checkout at the same time cannot change what is tested.
 */
let pkg: string;
let CLI: string;

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function expectOneErrorLine(err: string): void {
  expect(err).toMatch(/^eks-auth-sentinel: [^\n]+\n$/);
  expect(err).not.toMatch(/\n\s+at /);
  expect(err.length).toBeLessThan(1000);
}

/** Deterministic pseudo-random bytes (xorshift32), so a failure can be replayed. */
function garbage(size: number, seed = 0x9e3779b9): Buffer {
  const buf = Buffer.alloc(size);
  let x = seed >>> 0;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    buf[i] = x & 0xff;
  }
  return buf;
}

describe('the bundled CLI (dist/cli.js)', () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'sentinel-e2e-'));
    pkg = join(work, 'package');
    // The package first: the build's code-cache run finds it above dist/, as the CLI does.
    cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    cpSync(join(ROOT, 'scenarios'), join(pkg, 'scenarios'), { recursive: true });
    execFileSync(process.execPath, ['scripts/build.mjs', '--outdir', join(pkg, 'dist')], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    CLI = join(pkg, 'dist', 'cli.js');
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('prints the usage and exits 0 with --help', () => {
    const { code, out, err } = cli(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('Usage:');
    expect(err).toBe('');
  });

  it('exits 2 with one line and no stack trace for 10 MB of random garbage', () => {
    const file = join(work, 'garbage.json');
    writeFileSync(file, garbage(10 * 1024 * 1024));
    const { code, out, err } = cli(['assess', '--snapshot', file]);
    expect(code).toBe(2);
    expect(out).toBe('');
    expectOneErrorLine(err);
    expect(err).toContain('not valid JSON');
    expect(err).toMatch(/garbage\.json, line \d+:\d+\)\n$/);
  });

  it('exits 2 with one line for a truncated CloudTrail record passed to --event', () => {
    const record = JSON.stringify(
      {
        'detail-type': 'AWS API Call via CloudTrail',
        source: 'aws.eks',
        detail: {
          eventSource: 'eks.amazonaws.com',
          eventName: 'DeleteNodegroup',
          requestParameters: { name: 'prod', nodegroupName: 'general' },
          eventID: 'e2e',
        },
      },
      null,
      2,
    );
    const file = join(work, 'truncated-event.json');
    writeFileSync(file, record.slice(0, Math.floor(record.length * 0.6)));
    const { code, out, err } = cli(['whatif', '--snapshot', KARPENTER, '--event', file]);
    expect(code).toBe(2);
    expect(out).toBe('');
    expectOneErrorLine(err);
    expect(err).toMatch(/not valid JSON: .*truncated-event\.json, line \d+:\d+\)\n$/);
  });

  it('exits 2 with "cannot read FILE: ENOENT" for a missing file', () => {
    const { code, err } = cli(['assess', '--snapshot', 'missing.json']);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('cannot read missing.json: ENOENT');
  });

  it('finds the package’s scenarios from the bundle and runs the demo, exit 0', () => {
    const { code, out, err } = cli(['demo']);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('=== Scenario a-karpenter-shares-last-nodegroup-role');
  });

  it('runs a file-only command without the live chunks: only a live command loads them', () => {
    const copy = join(work, 'without-live');
    cpSync(join(pkg, 'dist'), join(copy, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    const live = readdirSync(join(copy, 'dist', 'cli-chunks')).filter((f) => /^live-.*\.cjs$/.test(f));
    expect(live).toHaveLength(1);
    for (const f of live) rmSync(join(copy, 'dist', 'cli-chunks', f));
    const bin = join(copy, 'dist', 'cli.js');
    const assess = spawnSync(process.execPath, [bin, 'assess', '--snapshot', KARPENTER, '--format', 'json'], {
      encoding: 'utf8',
    });
    expect(assess.stderr).toBe('');
    expect(JSON.parse(assess.stdout)).toHaveProperty('findings');
    const report = spawnSync(process.execPath, [bin, 'report', '--region', 'eu-west-1'], {
      encoding: 'utf8',
    });
    expect(report.status).toBe(3);
    expect(report.stderr).toContain('live-');
  });

  it('gives the same output when V8 rejects the code cache (another Node) or it is missing', () => {
    const run = (bin: string) =>
      spawnSync(process.execPath, [bin, 'assess', '--snapshot', KARPENTER, '--format', 'json'], {
        encoding: 'utf8',
      });
    const expected = run(CLI);
    expect(expected.stderr).toBe('');
    for (const damage of ['garbled', 'missing'] as const) {
      const copy = join(work, `cache-${damage}`);
      cpSync(join(pkg, 'dist'), join(copy, 'dist'), { recursive: true });
      cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
      const caches = readdirSync(join(copy, 'dist', 'cli-chunks')).filter((f) => f.endsWith('.cache'));
      expect(caches).toHaveLength(1);
      const cache = join(copy, 'dist', 'cli-chunks', caches[0] as string);
      if (damage === 'garbled') writeFileSync(cache, garbage(4096));
      else rmSync(cache);
      const r = run(join(copy, 'dist', 'cli.js'));
      expect(r.stderr).toBe('');
      expect(r.status).toBe(expected.status);
      expect(r.stdout).toBe(expected.stdout);
    }
  });

  it('exits 1 for a what-if that leaves Karpenter nodes without access', () => {
    const { code, out } = cli(['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'general']);
    expect(code).toBe(1);
    expect(out).toContain('CRITICAL');
  });

  it('reports the sandbox live with nothing but its environment (AWS_ENDPOINT_URL_*, keys), like npm start', async () => {
    const sandbox = await startSandbox({ clusters: await loadScenarios(join(ROOT, 'scenarios')) });
    try {
      // Nothing of the SDK's switch for its Node version warning (vitest sets it): the CLI's own
      // keeps stderr empty.
      const env: Record<string, string> = { NO_COLOR: '1' };
      for (const [k, v] of Object.entries(process.env))
        if (v !== undefined && !k.startsWith('AWS_')) env[k] ??= v;
      // Asynchronous: the sandbox serves from this process.
      const result = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        execFile(
          process.execPath,
          [CLI, 'report', '--region', 'eu-west-1', '--fail-on', 'none'],
          { cwd: work, env: { ...env, ...sandbox.env }, maxBuffer: 64 * 1024 * 1024 },
          (error, out, err) =>
            resolve({ code: error === null ? 0 : (error.code as number | null), out, err }),
        );
      });
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
      expect(result.out).toContain('=== Current state: cluster a-karpenter-shares-last-nodegroup-role');
      expect(result.out).toMatch(/CRITICAL\s+nodegroup\/deletion-orphans-role/);
    } finally {
      await sandbox.close();
    }
  });
});
