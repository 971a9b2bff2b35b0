/**
 * POSIX shell quoting (shared/core/quote/shell.ts), run by the shells that read it: every generated
 * command passes `bash -n` and `dash -n`, and run by bash and dash with a stub `aws` first in PATH
 * it passes exactly the intended argv. The cases are generated up front and run in two processes
 * per shell, bash and dash side by side, with the stubs also defined as shell functions
 * (test/hostile/shell-stub.ts): the same argv is recorded without a fork and exec per call, so
 * that PROPERTY_RUNS=10000 stays fast. A file of its own, beside quote.property.test.ts, so that
 * the pool runs the two side by side.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTINUE,
  renderShellScript,
  type ShellCommand,
  type ShellWord,
} from '../../shared/core/quote/shell.ts';
import { UNSAFE_IN_CODE } from '../../shared/core/quote/unicode.ts';
import { runWithStubsAsync } from '../hostile/shell-stub.ts';
import { RUNS, SEED, TIMEOUT_MS, unencodable, value } from '../support/quote-values.ts';

/** Shell processes per shell (see the test). */
const CHUNKS = 2;

type Word = { positional: string } | { flag: string; value: string } | { flag: string; values: string[] };

const word: fc.Arbitrary<Word> = fc.oneof(
  value.map((v) => ({ positional: v })),
  fc.tuple(fc.constantFrom('--cluster-name', '--region', '--principal-arn'), value).map(([flag, v]) => ({
    flag,
    value: v,
  })),
  fc.array(value, { minLength: 1, maxLength: 3 }).map((values) => ({ flag: '--kubernetes-groups', values })),
);
const command = fc.record({
  words: fc.array(word, { maxLength: 5 }),
  breakAt: fc.nat({ max: 5 }),
  comment: fc.option(value, { nil: undefined }),
});

/** The argv a word is meant to give, or undefined when the AWS CLI could not take it literally. */
function intendedArgs(w: Word): string[] | undefined {
  if ('positional' in w) return unencodable(w.positional) ? undefined : [w.positional];
  const vals = 'value' in w ? [w.value] : w.values;
  if (vals.some((v) => unencodable(v) || /^(?:file|fileb|https?):\/\//i.test(v))) return undefined;
  if ('value' in w) return w.value.startsWith('-') ? [`${w.flag}=${w.value}`] : [w.flag, w.value];
  if (w.values.some((v) => v === '' || /^[-[{]/.test(v))) return undefined;
  return [w.flag, ...w.values];
}

function toShellWord(w: Word): ShellWord {
  return 'positional' in w ? w.positional : w;
}

describe('POSIX shell quoting (property)', () => {
  it(
    'every command parses (bash -n, dash -n) and passes exactly the intended argv; unrepresentable values are refused',
    async () => {
      const samples = fc.sample(fc.array(command, { minLength: 1, maxLength: 3 }), {
        numRuns: RUNS,
        seed: SEED,
      });
      const texts: string[] = [];
      const expected: string[][] = [];
      let refused = 0;
      for (const cmds of samples) {
        const intended = cmds.map((c) => c.words.map(intendedArgs));
        const representable = intended.every((ws) => ws.every((a) => a !== undefined));
        const script = cmds.flatMap((c) => {
          const argv: ShellWord[] = ['aws', ...c.words.map(toShellWord)];
          argv.splice(Math.min(c.breakAt, argv.length), 0, CONTINUE);
          const cmd: ShellCommand = { argv };
          return c.comment === undefined ? [cmd] : [{ comment: c.comment }, cmd];
        });
        const r = renderShellScript(script);
        if (r.ok !== representable)
          throw new Error(`seed ${SEED}: ${JSON.stringify(cmds)} rendered ${JSON.stringify(r)}`);
        if (!r.ok) {
          refused += 1;
          continue;
        }
        if (UNSAFE_IN_CODE.test(r.text))
          throw new Error(`seed ${SEED}: raw invisible character in ${r.text}`);
        texts.push(r.text);
        for (const ws of intended) expected.push(['aws', ...ws.flatMap((a) => a ?? [])]);
      }
      // Every case in a few processes: each shell takes the cases in CHUNKS halves, all four
      // processes side by side (bash takes about twice as long as dash for the same script: halves
      // keep both cores busy). The argv of each shell are its chunks' calls in order.
      const size = Math.ceil(texts.length / CHUNKS);
      const chunks = Array.from({ length: CHUNKS }, (_, c) => texts.slice(c * size, (c + 1) * size));
      const shells = ['bash', 'dash'] as const;
      const runs = await Promise.all(
        shells.map(async (sh) => {
          const parts = await Promise.all(
            chunks.map((t) => runWithStubsAsync(sh, `${t.join('\n')}\n`, { functions: true })),
          );
          return {
            status: parts.find((r) => r.status !== 0)?.status ?? 0,
            stdout: parts.map((r) => r.stdout).join(''),
            stderr: parts.map((r) => r.stderr).join(''),
            calls: parts.flatMap((r) => r.calls),
          };
        }),
      );
      for (const [k, shell] of shells.entries()) {
        const run = runs[k] as (typeof runs)[number];
        // No other command ran: PATH holds only the stubs, so anything else fails with "not found".
        expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
          status: 0,
          stdout: '',
          stderr: '',
        });
        const got = run.calls;
        if (!isDeepStrictEqual(got, expected)) {
          const i = got.findIndex((g, k) => !isDeepStrictEqual(g, expected[k]));
          throw new Error(
            `seed ${SEED}, ${shell}: argv ${i} differs:\n${JSON.stringify(got[i])}\n${JSON.stringify(expected[i])}`,
          );
        }
      }
      expect(texts.length).toBeGreaterThan(RUNS / 4);
      expect(refused).toBeGreaterThan(0);
    },
    TIMEOUT_MS,
  );
});
