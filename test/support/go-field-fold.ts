/**
 * Field names spelled with characters whose case mappings in JavaScript (`toUpperCase`,
 * `toLowerCase`: full and special mappings) or in Go (`unicode.ToUpper`/`ToLower`, simple
 * mappings) make them look like a field name, and the recorded answer of the authenticator's
 * encoding/json for them (test/fixtures/aws-auth/go-field-fold.json, written by
 * tools/go-reference/record-fold-fixtures.ts). Shared by the fixture tests and the differential
 * generator (aws-auth-gen.ts).
 */
import { fileURLToPath } from 'node:url';

export const FOLD_FIXTURE = fileURLToPath(
  new URL('../fixtures/aws-auth/go-field-fold.json', import.meta.url),
);

export interface FoldFixtures {
  go: string;
  unicode: string;
  asciiFolds: Array<{ rune: string; char: string; fold: string }>;
  substitutions?: { tried: number; matching: string[]; stockGo119Differs: number };
  /** The field each struct's decode sets from `key` (absent: none); `nonAscii` lists the key's code points above U+007F. */
  keys: Array<{
    key: string;
    nonAscii?: string;
    RoleMapping?: string;
    UserMapping?: string;
    SSOARNMatcher?: string;
  }>;
}

/** The authenticator's JSON field names (pkg/config/types.go). */
export const FIELD_NAMES = [
  'rolearn',
  'sso',
  'username',
  'groups',
  'userid',
  'userarn',
  'permissionSetName',
  'accountID',
  'partition',
] as const;

const fullwidth = (c: string) => String.fromCodePoint((c.codePointAt(0) as number) + 0xfee0);

/**
 * Stand-ins for one ASCII letter. `ı` upper-cases to I in JS and Go, `İ` lower-cases to `i̇` in JS
 * and to i in Go, `ſ` and Kelvin `K` are in the simple folding orbit of s and k, Greek sigmas
 * (final `ς` too) fold among themselves, then combining marks, Cyrillic look-alikes and
 * full-width letters.
 */
const STAND_INS: Record<string, string[]> = {
  i: ['ı', 'İ', 'i\u0307', 'і', 'í'],
  I: ['İ', 'ı', 'I\u0307', 'І'],
  s: ['ſ', 'ς', 'σ', 'Σ', 's\u0301'],
  S: ['ſ', 'Σ', 'ς'],
  k: ['\u212a', 'κ'],
  a: ['а', 'å', '\u212b'],
  e: ['é', 'e\u0301', 'е'],
  o: ['о', 'ο', 'º'],
  n: ['ŉ', 'ո'],
  t: ['ẗ', 'τ'],
  u: ['ü', 'υ'],
  r: ['г'],
  p: ['р', 'ρ'],
  c: ['с', 'ϲ'],
  g: ['ɡ'],
  d: ['ԁ'],
  D: ['Ꭰ'],
  m: ['ｍ'],
  N: ['Ν'],
};

/** Stand-ins for two letters: `ß` upper-cases to SS in JS (special mapping), `ẞ` lower-cases to `ß`. */
const PAIR_STAND_INS: Record<string, string[]> = { ss: ['ß', 'ẞ'], st: ['ﬆ', 'ﬅ'], fi: ['ﬁ'] };

/** Every spelling of `name` with one letter (or letter pair) replaced by a stand-in. */
export function nonAsciiSpellings(name: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i < name.length; i++) {
    const c = name[i] as string;
    for (const s of [...(STAND_INS[c] ?? []), fullwidth(c)])
      out.add(name.slice(0, i) + s + name.slice(i + 1));
    const lower = c.toLowerCase();
    if (lower !== c)
      for (const s of STAND_INS[lower] ?? []) out.add(name.slice(0, i) + s + name.slice(i + 1));
    const pair = name.slice(i, i + 2).toLowerCase();
    for (const s of PAIR_STAND_INS[pair] ?? []) out.add(name.slice(0, i) + s + name.slice(i + 2));
  }
  return [...out];
}

/** The code points above U+007F in `s`, as `U+0130 U+0307`. */
export function nonAsciiCodes(s: string): string {
  return [...s]
    .map((c) => c.codePointAt(0) as number)
    .filter((cp) => cp > 0x7f)
    .map((cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`)
    .join(' ');
}

/** ASCII case variants of a field name. */
export function asciiSpellings(name: string): string[] {
  const cap = name.charAt(0).toUpperCase() + name.slice(1);
  return [...new Set([name.toLowerCase(), name.toUpperCase(), cap])].filter((n) => n !== name);
}

/** The keys the fixture records: every field name, its ASCII case variants and its stand-in spellings, plus a few near misses. */
export function foldFixtureKeys(): string[] {
  const keys = new Set<string>();
  for (const name of FIELD_NAMES) {
    keys.add(name);
    for (const k of asciiSpellings(name)) keys.add(k);
    for (const k of nonAsciiSpellings(name)) keys.add(k);
    for (const k of nonAsciiSpellings(name.toUpperCase())) keys.add(k);
  }
  for (const k of ['Kind', '\u212aind', 'ﬁeld', 'µ', 'rolearn ', ' rolearn', 'role_arn', 'userid\u0000', 'ǅ'])
    keys.add(k);
  return [...keys];
}
