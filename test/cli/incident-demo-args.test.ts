/** `npm start -- --bogus`: one error line and a usage hint, exit 2, no stack trace (issue 10). */
import { spawnSync } from 'node:child_process';
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
});
