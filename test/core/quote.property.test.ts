/**
 * The quoting layers of shared/core/quote, parsed back by the tools that read them:
 *   - shell: every generated command passes `bash -n` and `dash -n`, and run by bash and dash
 *     with a stub `aws`/`terraform` first in PATH it passes exactly the intended argv;
 *   - HCL: every string literal decodes (HCL native syntax: escapes, `$${`, `%%{`) to the value;
 *   - YAML: every aws-auth item re-parses with the authenticator-exact parser to the mapping.
 * Values are arbitrary Unicode (controls, bidi overrides, lone surrogates) plus injection strings.
 * The shell cases are generated up front and run in two processes per shell, bash and dash side by
 * side, with the stubs also defined as shell functions (test/hostile/shell-stub.ts): the same argv
 * is recorded without a fork and exec per call, so that PROPERTY_RUNS=10000 stays fast.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import { type HclItem, hclString, renderHcl } from '../../shared/core/quote/hcl.ts';
import { jsonText } from '../../shared/core/quote/json.ts';
import {
  CONTINUE,
  renderShellScript,
  type ShellCommand,
  type ShellWord,
} from '../../shared/core/quote/shell.ts';
import { UNSAFE_IN_CODE } from '../../shared/core/quote/unicode.ts';
import { type AwsAuthEntry, renderAwsAuthEntry } from '../../shared/core/quote/yaml.ts';
import { decodeHclDocument, decodeHclString } from '../hostile/hcl-decoder.ts';
import { runWithStubsAsync } from '../hostile/shell-stub.ts';
import { INJECTIONS } from '../hostile/strings.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 10_000);
const SEED = Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31);
const TIMEOUT_MS = 240_000;
/** Shell processes per shell for the shell cases (see the test). */
const CHUNKS = 2;

const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const BIDI = ['\u202e', '\u202d', '\u2066', '\u2069', '\u200f', '\u061c', '\u200b', '\ufeff'];
/** Arbitrary strings: full Unicode, lone surrogates now and then, injection strings, bidi controls. */
const value = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: anyCodeUnit, maxLength: 12 }) },
  { weight: 3, arbitrary: fc.constantFrom(...INJECTIONS) },
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.oneof(
          fc.constantFrom(...INJECTIONS, ...BIDI, "'", '"', '\\', '$', '{', '%', '\n', '\r', '\t', '-', '*'),
          fc.string({ unit: 'grapheme-ascii', maxLength: 6 }),
        ),
        { maxLength: 8 },
      )
      .map((p) => p.join('')),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom('arn:aws:iam::111122223333:role/node', 'prod', 'eu-west-1', 'dev-team'),
  },
);

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unencodable = (s: string) => LONE.test(s) || s.includes('\u0000');

// ---- shell -------------------------------------------------------------------------------------

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

// ---- HCL ---------------------------------------------------------------------------------------

describe('HCL string escaping (property)', () => {
  it('every string decodes to the value, with no live ${ or %{ and nothing invisible; lone surrogates are refused', () => {
    fc.assert(
      fc.property(value, (v) => {
        let literal: string;
        try {
          literal = hclString(v);
        } catch {
          if (!LONE.test(v)) throw new Error(`refused ${JSON.stringify(v)}`);
          return;
        }
        if (LONE.test(v)) throw new Error(`accepted ${JSON.stringify(v)}`);
        if (UNSAFE_IN_CODE.test(literal) || /[\n\r]/.test(literal))
          throw new Error(`raw character in ${literal}`);
        if (decodeHclString(literal) !== v)
          throw new Error(`${literal} does not decode to ${JSON.stringify(v)}`);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('a whole configuration holds exactly the strings put in, in order, and nothing else', () => {
    const attr = fc.tuple(value, fc.oneof(value, fc.array(value, { maxLength: 3 })));
    const doc = fc.record({
      labels: fc.array(value, { maxLength: 2 }),
      attrs: fc.array(attr, { maxLength: 4 }),
      comment: value,
    });
    fc.assert(
      fc.property(doc, ({ labels, attrs, comment }) => {
        const body = attrs.map(([k, v]) => ({
          name: k,
          value: typeof v === 'string' ? { string: v } : { list: v },
        }));
        const items: HclItem[] = [
          { comment },
          { block: 'resource', labels, body },
          { name: 'access_entries', value: { object: body } },
          { name: 'scope', value: { object: body, inline: true } },
        ];
        const all = [...labels, ...attrs.flatMap(([k, v]) => [k, ...(typeof v === 'string' ? [v] : v)])];
        const r = renderHcl(items);
        if (!r.ok) {
          if (!all.some((s) => LONE.test(s))) throw new Error(`refused: ${r.reason}`);
          return;
        }
        const isIdent = (k: string) => /^[A-Za-z_][A-Za-z0-9_-]*$/.test(k);
        const strings = (withKeys: boolean) =>
          attrs.flatMap(([k, v]) => [
            ...(withKeys && isIdent(k) ? [] : [k]),
            ...(typeof v === 'string' ? [v] : v),
          ]);
        const expected = [...labels, ...strings(true), ...strings(true), ...strings(true)];
        const got = decodeHclDocument(r.text);
        if (!isDeepStrictEqual(got.strings, expected))
          throw new Error(
            `strings differ in\n${r.text}\n${JSON.stringify(got.strings)}\n${JSON.stringify(expected)}`,
          );
        const idents = attrs.map(([k]) => k).filter(isIdent);
        const expectedIdents = ['resource', ...idents, 'access_entries', ...idents, 'scope', ...idents];
        if (!isDeepStrictEqual(got.identifiers, expectedIdents))
          throw new Error(`identifiers differ in\n${r.text}\n${JSON.stringify(got.identifiers)}`);
        if (got.comments !== 1) throw new Error(`the comment broke out of its line:\n${r.text}`);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

// ---- YAML --------------------------------------------------------------------------------------

const chars = (set: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...set), minLength, maxLength });
const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';
const nonEmpty = value.filter((s) => s !== '');
const entry: fc.Arbitrary<AwsAuthEntry> = fc.oneof(
  fc
    .record({
      target: fc.oneof(
        nonEmpty.map((rolearn) => ({ rolearn })),
        fc
          .record({
            permissionSetName: chars(`${WORD}+=,.@-`, 1, 20),
            accountID: chars('0123456789', 12, 12),
          })
          .map((sso) => ({ sso: { ...sso } })),
      ),
      username: value,
      groups: fc.array(value, { maxLength: 4 }),
      userid: fc.option(nonEmpty, { nil: undefined }),
    })
    .map(({ target, userid, ...rest }) => ({
      role: { ...target, ...rest, ...(userid === undefined ? {} : { userid }) },
    })),
  fc
    .record({ userarn: nonEmpty, username: value, groups: fc.array(value, { maxLength: 4 }) })
    .map((user) => ({ user: { ...user } })),
);

describe('aws-auth YAML (property)', () => {
  it('every entry re-parses with the authenticator-exact parser to the mapping, with nothing invisible', () => {
    fc.assert(
      fc.property(entry, (e) => {
        const m = 'role' in e ? e.role : e.user;
        const r = renderAwsAuthEntry(e);
        const all = [m.username, ...m.groups, ...Object.values(m).filter((x) => typeof x === 'string')];
        if (!r.ok) {
          if (!all.some((s) => LONE.test(s))) throw new Error(`refused: ${r.reason}`);
          return;
        }
        if (UNSAFE_IN_CODE.test(r.text.replace(/\n/g, '')))
          throw new Error(`raw invisible character in ${r.text}`);
        const parsed = parseAwsAuth('role' in e ? { mapRoles: r.text } : { mapUsers: r.text });
        const got = ('role' in e ? parsed.roles : parsed.users).map(({ location: _, ...x }) => x);
        if (!isDeepStrictEqual(got, [m]) || parsed.issues.length > 0)
          throw new Error(`${r.text}\nparsed as ${JSON.stringify(got)} ${JSON.stringify(parsed.issues)}`);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

// ---- JSON --------------------------------------------------------------------------------------

describe('JSON (property)', () => {
  it('jsonText parses back to the value and carries no raw invisible character', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 4 }), (vs) => {
        const text = jsonText({ vs }, 2);
        if (!isDeepStrictEqual(JSON.parse(text), { vs })) throw new Error(text);
        if (UNSAFE_IN_CODE.test(text.replace(/\n/g, '')))
          throw new Error(`raw invisible character in ${text}`);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
