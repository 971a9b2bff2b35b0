/**
 * The quoting layers of shared/core/quote, parsed back by the tools that read them:
 *   - HCL: every string literal decodes (HCL native syntax: escapes, `$${`, `%%{`) to the value;
 *   - YAML: every aws-auth item re-parses with the authenticator-exact parser to the mapping;
 *   - JSON: jsonText parses back to the value.
 * Values are arbitrary Unicode (controls, bidi overrides, lone surrogates) plus injection strings
 * (test/support/quote-values.ts). The shell layer: quote-shell.property.test.ts.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import { type HclItem, hclString, renderHcl } from '../../shared/core/quote/hcl.ts';
import { jsonText } from '../../shared/core/quote/json.ts';
import { UNSAFE_IN_CODE } from '../../shared/core/quote/unicode.ts';
import { type AwsAuthEntry, renderAwsAuthEntry } from '../../shared/core/quote/yaml.ts';
import { decodeHclDocument, decodeHclString } from '../hostile/hcl-decoder.ts';
import { LONE, RUNS, SEED, value } from '../support/quote-values.ts';

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
