/**
 * Values for the quoting property tests (test/core/quote*.property.test.ts): arbitrary Unicode
 * (controls, bidi overrides, lone surrogates) plus injection strings, and which of them no
 * quoting can carry.
 */
import fc from 'fast-check';
import { INJECTIONS } from '../hostile/strings.ts';

export const RUNS = Number(process.env.PROPERTY_RUNS ?? 10_000);
export const SEED = Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31);
export const TIMEOUT_MS = 240_000;

const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const BIDI = ['\u202e', '\u202d', '\u2066', '\u2069', '\u200f', '\u061c', '\u200b', '\ufeff'];
/** Arbitrary strings: full Unicode, lone surrogates now and then, injection strings, bidi controls. */
export const value = fc.oneof(
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

export const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const unencodable = (s: string) => LONE.test(s) || s.includes('\u0000');
