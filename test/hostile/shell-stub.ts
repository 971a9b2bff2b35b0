/**
 * Runs a generated shell script with stubs (`aws`, `terraform`, `eksctl`, `kubectl`) as the only commands in PATH:
 * each stub appends its name, argument count and arguments, NUL-separated, to a file, so the
 * test sees the exact argv; anything else the script tries to run fails with "not found" on
 * stderr. Test-only.
 *
 * `functions: true` also defines each stub as a shell function in front of the script, so that a
 * plain `aws …` runs in the shell itself instead of a fork and exec of /bin/sh. A function gets
 * the very words the shell would pass to exec (expansion, quoting and field splitting are done
 * before either), and records them the same way; the executables stay in PATH for `command aws`,
 * `exec aws` or `env aws`. Forks are what costs here (a few ms each on these machines): the
 * quoting property tests make ~20 000 stub calls per shell.
 */
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StubOptions {
  /** Stubs also as shell functions (see above). Default false. */
  functions?: boolean;
}

const STUBS = ['aws', 'terraform', 'eksctl', 'kubectl'] as const;

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

interface Prepared {
  dir: string;
  shellPath: string;
  file: string;
  out: string;
  spawnOptions: { cwd: string; env: NodeJS.ProcessEnv };
}

function prepare(shell: 'bash' | 'dash', script: string, options: StubOptions): Prepared {
  const dir = mkdtempSync(join(tmpdir(), 'stub-run-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of STUBS) {
    writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\0' "${name}" "$#" "$@" >> "$OUT"\n`);
    chmodSync(join(bin, name), 0o755);
  }
  const functions = options.functions
    ? STUBS.map((name) => `${name}() { printf '%s\\0' "${name}" "$#" "$@" >> "$OUT"; }\n`).join('')
    : '';
  const file = join(dir, 'script.sh');
  const out = join(dir, 'calls');
  writeFileSync(file, functions + script);
  writeFileSync(out, '');
  const shellPath = execFileSync('sh', ['-c', `command -v ${shell}`])
    .toString()
    .trim();
  const work = join(dir, 'work');
  mkdirSync(work);
  return {
    dir,
    shellPath,
    file,
    out,
    spawnOptions: { cwd: work, env: { PATH: bin, OUT: out, LC_ALL: 'C' } },
  };
}

/** `shell -n` (throws on a syntax error), then the script run in an empty directory with the stubs. */
export function runWithStubs(shell: 'bash' | 'dash', script: string, options: StubOptions = {}): StubRun {
  const p = prepare(shell, script, options);
  try {
    execFileSync(p.shellPath, ['-n', p.file]);
    const run = spawnSync(p.shellPath, [p.file], {
      ...p.spawnOptions,
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 1 << 26,
    });
    return {
      status: run.status,
      stdout: run.stdout.toString(),
      stderr: run.stderr.toString(),
      calls: readCalls(p.out),
    };
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
}

/** `runWithStubs` without blocking the event loop, so that bash and dash can run side by side. */
export async function runWithStubsAsync(
  shell: 'bash' | 'dash',
  script: string,
  options: StubOptions = {},
): Promise<StubRun> {
  const p = prepare(shell, script, options);
  try {
    await new Promise<void>((resolve, reject) =>
      execFile(p.shellPath, ['-n', p.file], (error) => (error ? reject(error) : resolve())),
    );
    const child = spawn(p.shellPath, [p.file], { ...p.spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    const status = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
    });
    return {
      status,
      stdout: Buffer.concat(stdout).toString(),
      stderr: Buffer.concat(stderr).toString(),
      calls: readCalls(p.out),
    };
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
}
