/**
 * A reader for what the HCL layer writes, after the HCL native syntax specification
 * (hashicorp/hcl, hclsyntax/spec.md, "Template Expressions"): a quoted template whose escapes are
 * `\n \r \t \" \\ \uNNNN \UNNNNNNNN`, where `$${` and `%%{` are literal `${` and `%{`, and where
 * `${` or `%{` would start an interpolation or a directive — which this reader rejects, since no
 * generated string may hold one. Test-only.
 */

export class HclDecodeError extends Error {}

const SIMPLE: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/** Decodes the quoted string starting at `start` (a `"`); returns the value and the index after it. */
export function decodeHclStringAt(text: string, start: number): { value: string; end: number } {
  if (text[start] !== '"') throw new HclDecodeError(`no string at ${start}`);
  let out = '';
  let i = start + 1;
  for (;;) {
    const c = text[i];
    if (c === undefined) throw new HclDecodeError('unterminated string');
    if (c === '"') return { value: out, end: i + 1 };
    if (c === '\n' || c === '\r') throw new HclDecodeError('newline in a quoted string');
    if (c === '\\') {
      const e = text[i + 1] ?? '';
      if (e in SIMPLE) {
        out += SIMPLE[e];
        i += 2;
        continue;
      }
      const width = e === 'u' ? 4 : e === 'U' ? 8 : 0;
      const hex = text.slice(i + 2, i + 2 + width);
      if (width === 0 || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== width)
        throw new HclDecodeError(`bad escape \\${e}`);
      const cp = Number.parseInt(hex, 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw new HclDecodeError(`bad code point ${hex}`);
      out += String.fromCodePoint(cp);
      i += 2 + width;
      continue;
    }
    if ((c === '$' || c === '%') && text[i + 1] === c && text[i + 2] === '{') {
      out += `${c}{`;
      i += 3;
      continue;
    }
    if ((c === '$' || c === '%') && text[i + 1] === '{')
      throw new HclDecodeError(`live template sequence ${c}{ at ${i}`);
    out += c;
    i += 1;
  }
}

/** One whole quoted string literal. */
export function decodeHclString(literal: string): string {
  const { value, end } = decodeHclStringAt(literal, 0);
  if (end !== literal.length) throw new HclDecodeError('text after the string');
  return value;
}

/**
 * Every string literal and identifier of a configuration, in order, and the number of comment
 * lines; throws on any other token than `= { } [ ] ,` and white space.
 */
export function decodeHclDocument(text: string): {
  strings: string[];
  identifiers: string[];
  comments: number;
} {
  const strings: string[] = [];
  const identifiers: string[] = [];
  let comments = 0;
  for (let i = 0; i < text.length; ) {
    const c = text[i] ?? '';
    if (c === '"') {
      const { value, end } = decodeHclStringAt(text, i);
      strings.push(value);
      i = end;
    } else if (c === '#') {
      comments += 1;
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i));
      identifiers.push(m?.[0] ?? '');
      i += m?.[0].length ?? 1;
    } else if (/[ \n={}[\],]/.test(c)) i += 1;
    else throw new HclDecodeError(`unexpected ${JSON.stringify(c)} at ${i}`);
  }
  return { strings, identifiers, comments };
}
