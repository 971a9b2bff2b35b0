import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GOLDEN_FILE, type GoldenRun, goldenArgvs, runGolden } from '../../scripts/gen-cli-golden.ts';

const recorded = JSON.parse(readFileSync(GOLDEN_FILE, 'utf8')) as GoldenRun[];

describe('CLI output on every scenario file (test/fixtures/cli-golden)', () => {
  it('covers the same command lines as the recording', () => {
    expect(goldenArgvs()).toEqual(recorded.map((r) => r.argv));
  });

  it.each(recorded.map((r) => [r.argv.join(' '), r] as const))('%s is byte-identical', async (_, before) => {
    expect(await runGolden(before.argv)).toEqual(before);
  });
});
