/**
 * Runs the differential comparison: generated aws-auth documents through the Go reference (one
 * process) and through parseAwsAuth, disagreements grouped by class, the first examples
 * minimised with fast-check's shrinking. Shared by the test and `npm run bench -- parser-differential`.
 */
import fc from 'fast-check';
import { awsAuthData, NON_ASCII_NAME_RE } from './aws-auth-gen.ts';
import { type AwsAuthParser, compareDocument, family, features } from './differential-compare.ts';
import type { GoReference, GoResult } from './go-reference.ts';

export interface DisagreementClass {
  name: string;
  count: number;
  /** Replay: `DIFF_SEED=<seed>` and this path reproduce the first example. */
  seed: number;
  path: string;
  example: Record<string, string>;
  minimised?: Record<string, string>;
}

export interface DifferentialReport {
  seed: number;
  runs: number;
  disagreements: number;
  classes: DisagreementClass[];
  /** How many data keys Go decoded to `ok` / `failed`, to show the corpus is mostly loadable. */
  goStatus: Record<string, number>;
  crashes: number;
  /** Documents with a field name spelled with non-ASCII characters (`ı`, `İ`, `ſ`, Kelvin `K`, …). */
  nonAsciiNames: number;
  ms: { generate: number; go: number; ours: number };
}

export const CHUNK = 10_000;

/** The seed of the chunk holding document `i` (chunks of CHUNK documents, seeds seed, seed+1…). */
const chunkSeed = (seed: number, chunk: number) => (seed + chunk) | 0;

export async function runDifferential(
  ref: GoReference,
  options: {
    seed: number;
    runs: number;
    shrink?: number;
    onChunk?: (done: number) => void;
    /** The parser under test (default parseAwsAuth). */
    parse?: AwsAuthParser;
  },
): Promise<DifferentialReport> {
  const arb = awsAuthData();
  const byClass = new Map<string, DisagreementClass>();
  const goStatus: Record<string, number> = {};
  const ms = { generate: 0, go: 0, ours: 0 };
  let disagreements = 0;
  let crashes = 0;
  let nonAsciiNames = 0;
  for (let start = 0, chunk = 0; start < options.runs; start += CHUNK, chunk++) {
    const n = Math.min(CHUNK, options.runs - start);
    const seed = chunkSeed(options.seed, chunk);
    let t = performance.now();
    const docs = fc.sample(arb, { seed, numRuns: n });
    ms.generate += performance.now() - t;
    t = performance.now();
    const answers: GoResult[] = await ref.decode(docs.map((data, i) => ({ id: i, data })));
    ms.go += performance.now() - t;
    t = performance.now();
    const classes = docs.map((data, i) => compareDocument(data, answers[i] as GoResult, options.parse));
    ms.ours += performance.now() - t;
    docs.forEach((data, i) => {
      const go = answers[i] as GoResult;
      if (go.crash) crashes++;
      if (NON_ASCII_NAME_RE.test(Object.values(data).join('\n'))) nonAsciiNames++;
      for (const k of Object.values(go.keys)) goStatus[k.status] = (goStatus[k.status] ?? 0) + 1;
      const found = classes[i] as string[];
      if (found.length === 0) return;
      disagreements++;
      for (const name of found) {
        const c = byClass.get(name);
        if (c) c.count++;
        else byClass.set(name, { name, count: 1, seed, path: String(i), example: data });
      }
    });
    options.onChunk?.(start + n);
  }
  const classes = [...byClass.values()].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  for (const c of classes.slice(0, options.shrink ?? 0)) {
    const small = await minimise(ref, arb, c, options.parse);
    if (small) c.minimised = small;
  }
  return {
    seed: options.seed,
    runs: options.runs,
    disagreements,
    classes,
    goStatus,
    crashes,
    nonAsciiNames,
    ms,
  };
}

/** Shrinks the class's first example while the document still shows that class. */
async function minimise(
  ref: GoReference,
  arb: fc.Arbitrary<Record<string, string>>,
  c: DisagreementClass,
  parse?: AwsAuthParser,
): Promise<Record<string, string> | undefined> {
  const stillThere = async (data: Record<string, string>) => {
    const [go] = await ref.decode([{ id: 0, data }]);
    return !compareDocument(data, go as GoResult, parse).includes(c.name);
  };
  const out = await fc.check(fc.asyncProperty(arb, stillThere), {
    seed: c.seed,
    path: c.path,
    numRuns: 1,
    interruptAfterTimeLimit: 20_000,
  });
  return out.failed ? (out.counterexample?.[0] as Record<string, string> | undefined) : undefined;
}

/** Classes counted with a failed key's error kind left out (key + both statuses, or what differs). */
export function coarseClasses(r: DifferentialReport): number {
  return new Set(r.classes.map((c) => c.name.replace(/failed \([^)]*\)/g, 'failed'))).size;
}

/** JSON with the invisible characters (C1 controls, NBSP, LS, PS, BOM) written as escapes. */
export function visible(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u0080-\u00a0\u2028\u2029\ufeff\u200b]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A compact text report: one line per class, then the first examples (minimised when possible). */
export function formatReport(r: DifferentialReport, examples = 12): string {
  const lines = [
    `differential: ${r.disagreements} of ${r.runs} documents disagree, ${r.classes.length} classes (DIFF_SEED=${r.seed} DIFF_RUNS=${r.runs})`,
    `  Go key statuses: ${JSON.stringify(r.goStatus)}; Go crashes: ${r.crashes}; documents with a non-ASCII field name: ${r.nonAsciiNames}`,
  ];
  const families: Record<string, number> = {};
  for (const c of r.classes) families[family(c.name)] = (families[family(c.name)] ?? 0) + c.count;
  lines.push(
    `  by family (class occurrences): ${JSON.stringify(families)}; ${coarseClasses(r)} classes without the error wording`,
  );
  for (const c of r.classes) lines.push(`  ${String(c.count).padStart(6)}  ${c.name}`);
  for (const c of r.classes.slice(0, examples)) {
    const shown = c.minimised ?? c.example;
    lines.push(
      '',
      `- ${c.name}  [replay: seed ${c.seed}, path ${c.path}; ${c.minimised ? 'minimised' : 'as generated'}]`,
      `  features: ${features(shown).join(', ') || '-'}`,
      `  data: ${visible(shown)}`,
    );
  }
  return lines.join('\n');
}
