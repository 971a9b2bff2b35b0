/**
 * Runs a generated shell script with stubs (`aws`, `terraform`, `eksctl`, `kubectl`) as the only commands in PATH:
 * each stub appends its name, argument count and arguments, NUL-separated, to a file, so the
 * test sees the exact argv; anything else the script tries to run fails with "not found" on
 * stderr. Test-only.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StubRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** One entry per stub call: [program, ...argv]. */
  calls: string[][];
}

function readCalls(path: string): string[][] {
  const parts = readFileSync(path).toString('utf8').split('\u0000');
  const out: string[][] = [];
  for (let i = 0; i + 1 < parts.length; ) {
    const n = Number(parts[i + 1]);
    out.push([parts[i] ?? '', ...parts.slice(i + 2, i + 2 + n)]);
    i += 2 + n;
  }
  return out;
}

/** `shell -n` (throws on a syntax error), then the script run in an empty directory with the stubs. */
export function runWithStubs(shell: 'bash' | 'dash', script: string): StubRun {
  const dir = mkdtempSync(join(tmpdir(), 'stub-run-'));
  try {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    for (const name of ['aws', 'terraform', 'eksctl', 'kubectl']) {
      writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\0' "${name}" "$#" "$@" >> "$OUT"\n`);
      chmodSync(join(bin, name), 0o755);
    }
    const file = join(dir, 'script.sh');
    const out = join(dir, 'calls');
    writeFileSync(file, script);
    writeFileSync(out, '');
    const path = execFileSync('sh', ['-c', `command -v ${shell}`])
      .toString()
      .trim();
    execFileSync(path, ['-n', file]);
    const work = join(dir, 'work');
    mkdirSync(work);
    const run = spawnSync(path, [file], {
      cwd: work,
      env: { PATH: bin, OUT: out, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 1 << 26,
    });
    return {
      status: run.status,
      stdout: run.stdout.toString(),
      stderr: run.stderr.toString(),
      calls: readCalls(out),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
