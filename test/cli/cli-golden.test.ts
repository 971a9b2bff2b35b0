import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  goldenFiles,
  listGoldenFiles,
  MAX_GOLDEN_BYTES,
  RUNS_FILE,
  readGoldenRuns,
  recordedStdoutFiles,
} from '../../scripts/cli-golden-files.ts';
import { GOLDEN_DIR, goldenArgvs, runGolden } from '../../scripts/gen-cli-golden.ts';

const recorded = readGoldenRuns(GOLDEN_DIR);
const onDisk = listGoldenFiles(GOLDEN_DIR);

describe('CLI output on every scenario file (test/fixtures/cli-golden)', () => {
  it('covers the same command lines as the recording, each once', () => {
    const expected = goldenArgvs().map((argv) => argv.join(' '));
    expect(recorded.map((r) => r.argv.join(' ')).sort()).toEqual([...expected].sort());
    expect(new Set(expected).size).toBe(expected.length);
  });

  it('holds exactly one stdout file per run and no file that no run names', () => {
    const stdoutFiles = recordedStdoutFiles(GOLDEN_DIR);
    for (const argv of goldenArgvs()) expect(stdoutFiles.get(argv.join(' ')), argv.join(' ')).toHaveLength(1);
    const named = [...stdoutFiles.values()].flat();
    const groups = onDisk.filter((path) => path.endsWith(`/${RUNS_FILE}`));
    expect([...named, ...groups].sort()).toEqual(onDisk);
    // The recording is where the writer would put it: no file moved by hand.
    expect([...goldenFiles(recorded).keys()].sort()).toEqual(onDisk);
  });

  it('keeps every golden file small enough to review in a diff', () => {
    const large = onDisk.filter((path) => statSync(join(GOLDEN_DIR, path)).size > MAX_GOLDEN_BYTES);
    expect(large).toEqual([]);
  });

  it.each(recorded.map((r) => [r.argv.join(' '), r] as const))('%s is byte-identical', async (_, before) => {
    expect(await runGolden(before.argv)).toEqual(before);
  });
});
