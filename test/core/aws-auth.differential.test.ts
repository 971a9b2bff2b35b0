/**
 * Issue 9: parseAwsAuth against aws-iam-authenticator's own decode pipeline (the Go reference in
 * tools/go-reference/, built by .ci/run or here when missing; a missing Go toolchain fails the
 * test, never skips it). `DIFF_SEED` replays a run, `DIFF_RUNS` changes its size (≥ 10 000 in CI),
 * `DIFF_SHRINK` how many classes get a minimised example, `DIFF_REPORT=<file>` writes the report.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DifferentialReport, formatReport, runDifferential } from '../support/differential-harness.ts';
import { type GoReference, startReference } from '../support/go-reference.ts';

const SEED = process.env.DIFF_SEED
  ? Number(process.env.DIFF_SEED)
  : (Date.now() ^ (Math.random() * 2 ** 31)) | 0;
const RUNS = Number(process.env.DIFF_RUNS ?? 10_000);
const SHRINK = Number(process.env.DIFF_SHRINK ?? 8);

let ref: GoReference;
let report: DifferentialReport;

beforeAll(async () => {
  ref = startReference();
  console.log(`aws-auth differential: DIFF_SEED=${SEED} DIFF_RUNS=${RUNS}`);
  report = await runDifferential(ref, { seed: SEED, runs: RUNS, shrink: SHRINK });
  const text = formatReport(report);
  console.log(text);
  if (process.env.DIFF_REPORT) writeFileSync(process.env.DIFF_REPORT, `${text}\n`);
}, 600_000);

afterAll(async () => {
  await ref?.close();
});

describe('aws-auth differential test against the authenticator (Go reference)', () => {
  it('decodes every generated document in the Go reference without a crash', () => {
    expect(report.runs).toBeGreaterThanOrEqual(Math.min(RUNS, 10_000));
    expect(report.crashes).toBe(0);
  });

  it('generates mostly documents whose keys the authenticator loads', () => {
    const ok = report.goStatus.ok ?? 0;
    const failed = report.goStatus.failed ?? 0;
    expect(ok).toBeGreaterThan(2 * failed);
    expect(failed).toBeGreaterThan(0);
  });

  it('spells field names with non-ASCII characters in a good share of the documents', () => {
    expect(report.nonAsciiNames).toBeGreaterThan(report.runs / 5);
  });

  it('parseAwsAuth agrees with the authenticator on every generated document', () => {
    expect(report.disagreements, formatReport(report, 3)).toBe(0);
  });
});
