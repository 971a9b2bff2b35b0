/**
 * `npm run bench -- parser-differential` (issue 9): parseAwsAuth against the authenticator's own
 * decoder (the Go reference, tools/go-reference/) on 200 000 generated aws-auth documents, one Go
 * process, in chunks of 10 000. Records the count, the disagreements by class, how many documents
 * spell a field name with non-ASCII characters, and the time.
 * `DIFF_SEED` / `DIFF_RUNS` as in the test.
 */
import {
  coarseClasses,
  type DifferentialReport,
  runDifferential,
} from '../test/support/differential-harness.ts';
import { startReference } from '../test/support/go-reference.ts';

export interface ParserDifferentialResult {
  report: DifferentialReport;
  totalMs: number;
}

export async function benchParserDifferential(): Promise<ParserDifferentialResult> {
  const seed = process.env.DIFF_SEED
    ? Number(process.env.DIFF_SEED)
    : (Date.now() ^ (Math.random() * 2 ** 31)) | 0;
  const runs = Number(process.env.DIFF_RUNS ?? 200_000);
  const ref = startReference();
  const started = performance.now();
  try {
    const report = await runDifferential(ref, {
      seed,
      runs,
      onChunk: (done) =>
        process.stderr.write(`  parser-differential: ${done.toLocaleString('en')} documents\n`),
    });
    return { report, totalMs: performance.now() - started };
  } finally {
    await ref.close();
  }
}

export function parserDifferentialMarkdown({ report: r, totalMs }: ParserDifferentialResult): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const lines = [
    '| documents | disagreeing | classes | total | generate | Go reference | parseAwsAuth + compare | seed |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${r.runs.toLocaleString('en')} | ${r.disagreements.toLocaleString('en')} (${((100 * r.disagreements) / r.runs).toFixed(1)} %) | ${r.classes.length} (${coarseClasses(r)} without the error wording) | ${s(totalMs)} | ${s(r.ms.generate)} | ${s(r.ms.go)} | ${s(r.ms.ours)} | ${r.seed} |`,
    '',
    `Go key statuses: ${Object.entries(r.goStatus)
      .map(([k, n]) => `${k} ${n.toLocaleString('en')}`)
      .join(', ')}; Go crashes: ${r.crashes}.`,
    `Documents with a field name spelled with non-ASCII characters (\`ı\`, \`İ\`, \`ſ\`, Kelvin \`K\`, \`ß\`, Greek sigmas, combining marks, look-alikes): ${r.nonAsciiNames.toLocaleString('en')} (${((100 * r.nonAsciiNames) / r.runs).toFixed(1)} %).`,
    `Goal (issue 9): 0 disagreements on ≥ 200,000 documents — ${r.runs >= 200_000 && r.disagreements === 0 ? 'met' : 'NOT met'}.`,
    `Goal (issue 17): 0 disagreements on ≥ 100,000 documents with non-ASCII field names in the mix — ${r.runs >= 100_000 && r.nonAsciiNames > 0 && r.disagreements === 0 ? 'met' : 'NOT met'}.`,
  ];
  if (r.classes.length) {
    lines.push('', 'Largest disagreement classes:', '');
    for (const c of r.classes.slice(0, 15))
      lines.push(`- ${c.count.toLocaleString('en')} × ${c.name.replace(/\|/g, '\\|')}`);
  }
  return lines.join('\n');
}
