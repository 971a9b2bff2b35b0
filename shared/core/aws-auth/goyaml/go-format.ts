/**
 * Go runtime formatting the ported code relies on: `[]byte` → string as Go's JSON encoder sees it
 * (each invalid UTF-8 byte becomes U+FFFD), `strconv.FormatFloat`, `strconv.Quote` and `%#v`.
 */
import type { GoValue } from './go-values.ts';

/** Decodes UTF-8 like Go's `utf8.DecodeRune` loop: an invalid byte yields one U+FFFD and advances 1. */
export function goBytesToString(b: readonly number[] | Uint8Array): string {
  let out = '';
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i] as number;
    if (c < 0x80) {
      let j = i + 1;
      while (j < n && (b[j] as number) < 0x80) j++;
      // In pieces: one argument per byte, a 200,000-character run (a scalar, an anchor or tag name)
      // overflowed the stack.
      for (let k = i; k < j; k += 8192)
        out += String.fromCharCode(...Array.prototype.slice.call(b, k, Math.min(j, k + 8192)));
      i = j;
      continue;
    }
    const w = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    let cp = -1;
    if (w > 0 && i + w <= n) {
      const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
      const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
      const c1 = b[i + 1] as number;
      if (c1 >= lo && c1 <= hi) {
        cp = w === 2 ? ((c & 0x1f) << 6) | (c1 & 0x3f) : w === 3 ? (c & 0x0f) << 12 : (c & 0x07) << 18;
        if (w >= 3) cp |= (c1 & 0x3f) << (w === 3 ? 6 : 12);
        for (let k = 2; k < w && cp >= 0; k++) {
          const ck = b[i + k] as number;
          if ((ck & 0xc0) !== 0x80) cp = -1;
          else cp |= (ck & 0x3f) << (6 * (w - 1 - k));
        }
      }
    }
    if (cp < 0) {
      out += '\ufffd';
      i++;
    } else {
      out += String.fromCodePoint(cp);
      i += w;
    }
  }
  return out;
}

/** Go `strconv.FormatFloat(f, 'g', -1, bitSize)`. */
export function formatFloatG(x: number, bitSize: 32 | 64): string {
  if (Number.isNaN(x)) return 'NaN';
  const f = bitSize === 32 ? Math.fround(x) : x;
  if (f === Number.POSITIVE_INFINITY) return '+Inf';
  if (f === Number.NEGATIVE_INFINITY) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  let digits = '';
  let exp = 0;
  const abs = Math.abs(f);
  for (let p = 1; p <= 17; p++) {
    const s = abs.toExponential(p - 1);
    const back = Number(s);
    if ((bitSize === 32 ? Math.fround(back) : back) === abs || p === 17) {
      const [mant = '0', e = '0'] = s.split('e');
      digits = mant.replace('.', '');
      exp = Number(e);
      break;
    }
  }
  const sign = f < 0 ? '-' : '';
  // Shortest formatting decides with precision 6 (strconv ftoa.go).
  if (exp < -4 || exp >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp).toString().padStart(2, '0');
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${e}`;
  }
  const dp = exp + 1;
  if (dp <= 0) return `${sign}0.${'0'.repeat(-dp)}${digits}`;
  if (dp >= digits.length) return `${sign}${digits}${'0'.repeat(dp - digits.length)}`;
  return `${sign}${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

/** Go `encoding/json`'s float64 text (`'f'` format, `'e'` below 1e-6 and from 1e21, `e-07` → `e-7`). */
export function formatJsonFloat(f: number): string {
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // JavaScript's Number#toString switches to exponent form at the same bounds and writes `e-7`.
  return String(f);
}

/** Go `strconv.Quote` (printable non-ASCII kept as is). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c === 0x07) out += '\\a';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0b) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if ((c >= 0x80 && c < 0xa0) || c === 0xad || c === 0xfeff || c === 0xfffd) {
      out += c === 0xfffd ? ch : `\\u${c.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** Go `fmt` `%#v` of a decoded value held in an `interface{}` (used in `invalid map key: %#v`). */
export function goSharpV(root: GoValue): string {
  return postOrder<GoValue, string>(
    root,
    (v) =>
      v.kind === 'seq' ? v.items : v.kind === 'map' ? v.entries.flatMap((e) => [e.key, e.value]) : undefined,
    (v, kids) => {
      switch (v.kind) {
        case 'null':
          return 'interface {}(nil)';
        case 'str':
          return goQuote(v.value);
        case 'int':
          return v.unsigned ? `0x${v.value.toString(16)}` : v.value.toString();
        case 'float':
          return formatFloatG(v.value, 64);
        case 'bool':
          return String(v.value);
        case 'seq':
          return `[]interface {}{${kids.join(', ')}}`;
        default: {
          const parts = v.entries.map((e, i) => ({ key: e.key, text: `${kids[2 * i]}:${kids[2 * i + 1]}` }));
          parts.sort((x, y) => compareForFmt(x.key, y.key));
          return `map[interface {}]interface {}{${parts.map((p) => p.text).join(', ')}}`;
        }
      }
    },
  );
}

const KIND_ORDER: Record<GoValue['kind'], number> = {
  null: 0,
  bool: 1,
  int: 2,
  float: 3,
  str: 4,
  seq: 5,
  map: 6,
};

/** `internal/fmtsort` for interface keys: by type, then value (approximation of type order). */
function compareForFmt(a: GoValue, b: GoValue): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  if (a.kind === 'str' && b.kind === 'str') return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  if (a.kind === 'int' && b.kind === 'int') return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  if (a.kind === 'float' && b.kind === 'float') return a.value - b.value;
  if (a.kind === 'bool' && b.kind === 'bool') return Number(a.value) - Number(b.value);
  return 0;
}

/** Bytewise (UTF-8) comparison of two strings, as Go compares strings. */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+10000 and up) sort after every BMP code point in UTF-8.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Post-order evaluation of a tree with an explicit stack: go-yaml accepts 10000 levels of
 * nesting, which Go's growable stacks recurse through and JavaScript's call stack does not.
 * `expand` returns a node's children (undefined for a leaf); `combine` builds a node's result
 * from its children's results, in order.
 */
export function postOrder<N, R>(
  root: N,
  expand: (n: N) => readonly N[] | undefined,
  combine: (n: N, kids: R[]) => R,
): R {
  interface Frame {
    n: N;
    kids: readonly N[];
    results: R[];
  }
  const rootKids = expand(root);
  if (rootKids === undefined) return combine(root, []);
  const stack: Frame[] = [{ n: root, kids: rootKids, results: [] }];
  for (;;) {
    const top = stack[stack.length - 1] as Frame;
    if (top.results.length < top.kids.length) {
      const child = top.kids[top.results.length] as N;
      const kids = expand(child);
      if (kids === undefined) top.results.push(combine(child, []));
      else stack.push({ n: child, kids, results: [] });
      continue;
    }
    stack.pop();
    const r = combine(top.n, top.results);
    const parent = stack[stack.length - 1];
    if (parent === undefined) return r;
    parent.results.push(r);
  }
}
