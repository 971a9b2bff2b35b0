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

const NON_ASCII = /[^\t-~]|[\u007f]/u;

/** Go `encoding/json` field-name folding (Go ≥ 1.21 `foldName`), restricted to what can reach ASCII. */
export function goFold(s: string): string {
  if (!NON_ASCII.test(s)) return s.toUpperCase();
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x61 && cp <= 0x7a) out += String.fromCharCode(cp - 32);
    else if (cp === 0x17f) out += 'S';
    else if (cp === 0x212a) out += 'K';
    else if (cp === 0x130 || cp === 0x131) out += 'I';
    else out += ch;
  }
  return out;
}

/** Go `encoding/json` struct field lookup: exact name first, then case-folded. */
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
