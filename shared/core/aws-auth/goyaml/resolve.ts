/**
 * Port of gopkg.in/yaml.v2 2.4.0 `resolve.go`: implicit (YAML 1.1) scalar resolution and the
 * check of explicit `!!` tags, with Go's `strconv` number syntax.
 */

export const LONG_TAG_PREFIX = 'tag:yaml.org,2002:';
export const NULL_TAG = `${LONG_TAG_PREFIX}null`;
export const BOOL_TAG = `${LONG_TAG_PREFIX}bool`;
export const STR_TAG = `${LONG_TAG_PREFIX}str`;
export const INT_TAG = `${LONG_TAG_PREFIX}int`;
export const FLOAT_TAG = `${LONG_TAG_PREFIX}float`;
export const TIMESTAMP_TAG = `${LONG_TAG_PREFIX}timestamp`;
export const SEQ_TAG = `${LONG_TAG_PREFIX}seq`;
export const MAP_TAG = `${LONG_TAG_PREFIX}map`;
export const BINARY_TAG = `${LONG_TAG_PREFIX}binary`;
export const MERGE_TAG = `${LONG_TAG_PREFIX}merge`;

/** A Go value produced by `resolve`: nil, bool, int/int64, uint64, float64, string, or a timestamp. */
export type Resolved =
  | { readonly t: 'null' }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'int'; readonly v: bigint }
  | { readonly t: 'uint'; readonly v: bigint }
  | { readonly t: 'float'; readonly v: number }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'timestamp' };

/** A go-yaml `failf` (a panic caught by `Unmarshal`); the message lacks the `yaml: ` prefix. */
export class GoYamlFailure extends Error {
  override readonly name = 'GoYamlFailure';
}

export function shortTag(tag: string): string {
  return tag.startsWith(LONG_TAG_PREFIX) ? `!!${tag.slice(LONG_TAG_PREFIX.length)}` : tag;
}

const RESOLVE_MAP = new Map<string, { tag: string; value: Resolved }>();
for (const [value, tag, words] of [
  [
    { t: 'bool', v: true },
    BOOL_TAG,
    ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'],
  ],
  [
    { t: 'bool', v: false },
    BOOL_TAG,
    ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'],
  ],
  [{ t: 'null' }, NULL_TAG, ['', '~', 'null', 'Null', 'NULL']],
  [{ t: 'float', v: Number.NaN }, FLOAT_TAG, ['.nan', '.NaN', '.NAN']],
  [
    { t: 'float', v: Number.POSITIVE_INFINITY },
    FLOAT_TAG,
    ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'],
  ],
  [{ t: 'float', v: Number.NEGATIVE_INFINITY }, FLOAT_TAG, ['-.inf', '-.Inf', '-.INF']],
  [{ t: 'str', v: '<<' }, MERGE_TAG, ['<<']],
] as const) {
  for (const w of words) RESOLVE_MAP.set(w, { tag, value: value as Resolved });
}

const RESOLVABLE = new Set(['', STR_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, NULL_TAG, TIMESTAMP_TAG]);

/** `resolveTable[in[0]]` (0 = no hint; the empty string hints 'N'). */
function hintOf(s: string): string {
  if (s === '') return 'N';
  const c = s.charCodeAt(0);
  if (c === 0x2b || c === 0x2d) return 'S';
  if (c >= 0x30 && c <= 0x39) return 'D';
  if ('yYnNtTfFoO~'.includes(s[0] as string)) return 'M';
  if (c === 0x2e) return '.';
  return '';
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const UINT64_MAX = (1n << 64n) - 1n;

/** Go `strconv.ParseUint(s, 0, 64)` on the digits after any sign. */
function parseUnsigned(s: string): bigint | undefined {
  if (s === '') return undefined;
  let base = 10;
  let digits = s;
  if (s[0] === '0') {
    // strconv: a 0b/0o/0x prefix needs a digit after it (`len(s) >= 3`), else a leading 0 is octal.
    const p = s.length >= 3 ? s[1]?.toLowerCase() : undefined;
    if (p === 'b') [base, digits] = [2, s.slice(2)];
    else if (p === 'o') [base, digits] = [8, s.slice(2)];
    else if (p === 'x') [base, digits] = [16, s.slice(2)];
    else [base, digits] = [8, s.slice(1)];
  }
  const re = base === 2 ? /^[01]*$/ : base === 8 ? /^[0-7]*$/ : base === 16 ? /^[0-9a-fA-F]*$/ : /^[0-9]+$/;
  if (!re.test(digits)) return undefined;
  let n = 0n;
  const b = BigInt(base);
  for (const ch of digits) n = n * b + BigInt(Number.parseInt(ch, base));
  return n <= UINT64_MAX ? n : undefined;
}

/** Go `strconv.ParseInt(s, 0, 64)`. */
export function goParseInt(s: string): bigint | undefined {
  const neg = s[0] === '-';
  const u = parseUnsigned(s[0] === '-' || s[0] === '+' ? s.slice(1) : s);
  if (u === undefined) return undefined;
  const v = neg ? -u : u;
  return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
}

/** Go `strconv.ParseUint(s, 0, 64)`. */
export function goParseUint(s: string): bigint | undefined {
  if (s[0] === '+' || s[0] === '-') return undefined;
  return parseUnsigned(s);
}

export const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/**
 * What Go `strconv.ParseFloat` accepts of a string starting with `.` (not in the resolve map):
 * decimal digits, `_` allowed between two digits (`underscoreOK`).
 */
export const DOT_FLOAT = /^\.[0-9]+(_[0-9]+)*([eE][-+]?[0-9]+(_[0-9]+)*)?$/;

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** go-yaml `parseTimestamp`: Go `time.Parse` on its four layouts. */
export function isTimestamp(s: string): boolean {
  const m =
    /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:([Tt])|( ))([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.exec(
      s,
    );
  if (m === null) return false;
  const [, y, mo, d, t, space, hh, mi, ss, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return false;
  if (hh === undefined) return true;
  if (t !== undefined && zone === undefined) return false;
  if (space !== undefined && zone !== undefined) return false;
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 59) return false;
  if (
    zone !== undefined &&
    zone !== 'Z' &&
    (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4, 6)) > 59)
  ) {
    return false;
  }
  return true;
}

function intResult(v: bigint): { tag: string; value: Resolved } {
  return { tag: INT_TAG, value: { t: 'int', v } };
}

function resolveImplicit(tag: string, input: string): { tag: string; value: Resolved } {
  const hint = hintOf(input);
  if (hint !== '' && tag !== STR_TAG && tag !== BINARY_TAG) {
    const item = RESOLVE_MAP.get(input);
    if (item !== undefined) return item;
    if (hint === '.') {
      if (DOT_FLOAT.test(input)) {
        const f = Number(input.replaceAll('_', ''));
        if (Number.isFinite(f)) return { tag: FLOAT_TAG, value: { t: 'float', v: f } };
      }
    } else if (hint === 'D' || hint === 'S') {
      if ((tag === '' || tag === TIMESTAMP_TAG) && isTimestamp(input)) {
        return { tag: TIMESTAMP_TAG, value: { t: 'timestamp' } };
      }
      const plain = input.replaceAll('_', '');
      const iv = goParseInt(plain);
      if (iv !== undefined) return intResult(iv);
      const uv = goParseUint(plain);
      if (uv !== undefined) return { tag: INT_TAG, value: { t: 'uint', v: uv } };
      if (YAML_STYLE_FLOAT.test(plain)) {
        const f = Number(plain);
        if (Number.isFinite(f)) return { tag: FLOAT_TAG, value: { t: 'float', v: f } };
      }
      // The "0b" / "-0b" fallbacks of resolve.go are reached only when base-0 parsing has
      // already failed on the same digits, so they never succeed.
    }
  }
  return { tag: STR_TAG, value: { t: 'str', v: input } };
}

/** go-yaml `resolve(tag, in)`: [resolved tag, value]; throws GoYamlFailure like its deferred check. */
export function resolve(tag: string, input: string): { tag: string; value: Resolved } {
  if (!RESOLVABLE.has(tag)) return { tag, value: { t: 'str', v: input } };
  const out = resolveImplicit(tag, input);
  if (tag === '' || tag === out.tag || tag === STR_TAG || tag === BINARY_TAG) return out;
  if (tag === FLOAT_TAG && out.tag === INT_TAG && out.value.t === 'int') {
    return { tag: FLOAT_TAG, value: { t: 'float', v: Number(out.value.v) } };
  }
  throw new GoYamlFailure(`cannot decode ${shortTag(out.tag)} \`${input}\` as a ${shortTag(tag)}`);
}
