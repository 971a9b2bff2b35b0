import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/snapshot-builder.ts';

/**
 * One structure to grow in: no source file under `shared/` is over 600 lines, so a module that
 * grows is split along its seams instead of collecting banners. Generated files count too.
 */
const LIMIT = 600;

function sharedFiles(): string[] {
  const out = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard', 'shared'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return out.split('\0').filter((f) => f.endsWith('.ts'));
}

describe('file size', () => {
  it(`keeps every file under shared/ at ${LIMIT} lines or fewer`, () => {
    const files = sharedFiles();
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > LIMIT);
    expect(over).toEqual([]);
  });
});
