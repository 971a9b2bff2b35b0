/**
 * Small Go-compatible string helpers (`unicode.IsSpace`, `strings.TrimSpace`, `encoding/json`
 * field-name folding, byte-wise key order) plus the text utilities the aws-auth parser shares.
 */

/** Go `unicode.IsSpace`. */
function isGoSpace(cp: number): boolean {
  return (
    (cp >= 0x09 && cp <= 0x0d) ||
    cp === 0x20 ||
    cp === 0x85 ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

export function goTrimLeft(s: string): string {
  let i = 0;
  while (i < s.length && isGoSpace(s.charCodeAt(i))) i++;
  return s.slice(i);
}

/** Go `strings.TrimSpace`. */
function goTrimSpace(s: string): string {
  let end = s.length;
  while (end > 0 && isGoSpace(s.charCodeAt(end - 1))) end--;
  return goTrimLeft(s.slice(0, end));
}

/** configmap.go `isSkippable`. */
export function isSkippable(data: string): boolean {
  const t = goTrimSpace(data);
  return t === '' || t === '``' || t === '""' || t === "''";
}

const NON_ASCII = /[^\0-\x7f]/;

/**
 * The runes above U+007F whose fold is an ASCII letter under Go's encoding/json field-name folding
 * (fold.go `foldRune`: the smallest rune of the `unicode.SimpleFold` orbit). Derived by sweeping
 * every rune through Go's `unicode.SimpleFold` (`aws-auth-reference -fold-fixtures`: Unicode 13
 * tables; Unicode 14's CaseFolding.txt has the same two simple foldings into ASCII), recorded in
 * test/fixtures/aws-auth/go-field-fold.json and checked against this table by
 * test/core/aws-auth-field-fold.test.ts. `İ` (U+0130) and `ı` (U+0131) are not here: their orbits
 * hold only themselves, although `unicode.ToLower('İ')` is i and `unicode.ToUpper('ı')` is I.
 */
const GO_FOLDS_TO_ASCII: ReadonlyMap<number, string> = new Map([
  [0x017f, 'S'],
  [0x212a, 'K'],
]);

/**
 * Go `encoding/json` field-name folding (fold.go `foldName`) as far as a comparison with an ASCII
 * name goes: ASCII a-z upper-cased, `ſ` and Kelvin `K` to S and K, every other rune kept (its Go
 * fold is outside ASCII, so it equals no ASCII name either way). For an ASCII `name`,
 * `goFold(key) === name.toUpperCase()` exactly when Go's `foldName(key) == foldName(name)`.
 */
export function goFold(s: string): string {
  if (!NON_ASCII.test(s)) return s.toUpperCase();
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x61 && cp <= 0x7a) out += String.fromCharCode(cp - 32);
    else out += GO_FOLDS_TO_ASCII.get(cp) ?? ch;
  }
  return out;
}

/**
 * Go `encoding/json` struct field lookup (decode.go: `fields.byExactName`, then
 * `fields.byFoldedName`, whose first field in declaration order wins) for ASCII field names.
 */
export function matchField<F extends string>(key: string, fields: readonly F[]): F | undefined {
  for (const f of fields) if (f === key) return f;
  const folded = goFold(key);
  for (const f of fields) if (f.toUpperCase() === folded) return f;
  return undefined;
}

const HAS_SURROGATE = /[\ud800-\udfff]/;

/** Byte-wise (UTF-8) string order, as Go's `json.Marshal` sorts map keys. */
export function compareCodePoints(a: string, b: string): number {
  if (!HAS_SURROGATE.test(a) && !HAS_SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done === true || y.done === true) return (x.done === true ? 0 : 1) - (y.done === true ? 0 : 1);
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx - cy;
  }
}

export function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      prev[j] = Math.min(up + 1, (prev[j - 1] ?? 0) + 1, diag + cost);
      diag = up;
    }
  }
  return prev[b.length] ?? 0;
}

export function truncate(s: string, max = 80): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export function plural(n: number, noun: { one: string; many: string }): string {
  return `${n} ${n === 1 ? noun.one : noun.many}`;
}
