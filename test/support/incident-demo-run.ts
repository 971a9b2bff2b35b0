/**
 * `npm start` (scripts/incident-demo.ts) as a child process, for the demo's e2e files: the
 * functions are bundled once per file into a temporary directory (the shared dist/ may be
 * rebuilt meanwhile), and each run's timeline is read back as [seconds, what].
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

export type DemoRun = (...args: string[]) => Promise<{ code: number; out: string }>;

/** Registers the bundling (beforeAll) and its clean-up (afterAll) of the calling file; returns the runner. */
export function useIncidentDemo(): DemoRun {
  let functions: string | undefined;
  beforeAll(() => {
    functions = mkdtempSync(join(tmpdir(), 'sentinel-demo-'));
    execFileSync(process.execPath, ['scripts/bundle-functions.mjs', '--outdir', functions], {
      cwd: ROOT,
      stdio: 'pipe',
    });
  }, 180_000);
  afterAll(() => {
    if (functions !== undefined) rmSync(functions, { recursive: true, force: true });
  });
  return async (...args) => {
    if (functions === undefined) throw new Error('the demo runs only inside a test (after beforeAll)');
    try {
      const { stdout } = await promisify(execFile)(
        TSX,
        ['scripts/incident-demo.ts', '--functions', functions, ...args],
        { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 90_000 },
      );
      return { code: 0, out: stdout };
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    }
  };
}

/** Timeline lines `T +1.23s  what` → [seconds, what]. */
export function timeline(out: string): Array<[number, string]> {
  return [...out.matchAll(/^T\s*([+-]\d+\.\d+)s {2}(.+)$/gm)].map((m) => [Number(m[1]), m[2] ?? '']);
}

export const firstAt = (lines: Array<[number, string]>, pattern: RegExp): number =>
  lines.find(([, what]) => pattern.test(what))?.[0] ?? Number.NaN;
