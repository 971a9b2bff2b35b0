/** `npm start`'s arguments: `--bogus` is one error line and a usage hint, exit 2, no stack trace (issue 10); every incident has a scenario (issue 17). */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/fake-io.ts';

describe('incident demo arguments', () => {
  it('answers an unknown option with one line naming it and a usage hint, exit 2', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'incident-demo.ts'), '--bogus'],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^incident demo: [^\n]*--bogus[^\n]*--help\n$/);
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it.each([
    [['--clock', '0'], /--clock takes a whole number from 1 to 30, got "0"/],
    [['--remediate', 'maybe'], /--remediate takes on, dry-run or off, got "maybe"/],
    [['--mode', 'fast'], /--mode takes default or continuous, got "fast"/],
    [['--scenario', 'b', '--auth-mode', 'api-and-config-map'], /--auth-mode applies to scenario a only/],
  ])('refuses %j with one line naming the value, exit 2, before any bundling', (args, message) => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'incident-demo.ts'), ...args],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('has a scenario for every incident of the README table (a–h), each listed by --help', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const table = readme.slice(
      readme.indexOf('## What it catches'),
      readme.indexOf('\n## ', readme.indexOf('## What it catches') + 1),
    );
    const incidents = [...table.matchAll(/^\| ([a-z]) \|/gm)].map((m) => m[1]);
    expect(incidents).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    const help = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'incident-demo.ts'), '--help'],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(help.status).toBe(0);
    const listed = [...help.stdout.matchAll(/^ {2}([a-z]) {2}\S/gm)].map((m) => m[1]);
    expect(listed).toEqual(incidents);
  });
});
