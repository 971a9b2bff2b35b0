/**
 * Characters that change how text looks without being seen: bidirectional controls (the "Trojan
 * Source" U+202E RIGHT-TO-LEFT OVERRIDE and friends), zero-width and other invisible format
 * characters, line/paragraph separators, C0/C1 controls. Every renderer shows them (prose) and
 * every quoting layer escapes them (code), so that what a reader sees is what the text holds.
 * Pure.
 */

/** Bidirectional formatting controls: LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI, LRM/RLM, ALM. */
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

// Invisible format characters (Unicode Cf that render as nothing or reorder text), the line and
// paragraph separators, and the bidi controls above. Tab, line feed and the C0/C1 controls are
// left to `CONTROL` below.
const FORMAT_SOURCE =
  '\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb';
const CONTROL_SOURCE = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f';

/** One invisible format character (not a control character). */
export const INVISIBLE_FORMAT = new RegExp(`[${FORMAT_SOURCE}]`);
const INVISIBLE_FORMAT_ALL = new RegExp(`[${FORMAT_SOURCE}]`, 'g');

/**
 * A character generated code must never carry raw: every control except tab and line feed, and
 * every invisible format character. The quoting layers write these as escapes.
 */
export const UNSAFE_IN_CODE = new RegExp(`[${CONTROL_SOURCE}${FORMAT_SOURCE}]`);

/** `U+202E` */
export function codePointLabel(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Prose with every invisible format character made visible as `<U+202E>`: a user name holding a
 * right-to-left override then reads as what it is instead of reordering the line around it.
 */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE_FORMAT_ALL, (c) => `<${codePointLabel(c.codePointAt(0) ?? 0)}>`);
}

/** The index of the first lone UTF-16 surrogate, or -1: such a string has no UTF-8 encoding. */
export function loneSurrogateAt(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i += 1;
      else return i;
    } else if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

/** Why a value cannot go into any file or argument, or undefined: lone surrogates (not UTF-8). */
export function unencodableReason(value: string): string | undefined {
  const at = loneSurrogateAt(value);
  return at < 0
    ? undefined
    : `it contains a lone UTF-16 surrogate (${codePointLabel(value.charCodeAt(at))}), which no UTF-8 text can carry`;
}

/** Every code point of a string as UTF-8 bytes (callers have excluded lone surrogates). */
export function utf8BytesOf(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else
      out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
  return out;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UNSAFE_ALL = new RegExp(UNSAFE_IN_CODE.source, 'g');

/**
 * Text for a one-line comment in generated code: line breaks and tabs become spaces, every
 * control or invisible character is shown as `<U+202E>`, a lone surrogate becomes U+FFFD.
 */
export function commentText(text: string): string {
  return text
    .replace(/[\r\n\t]/g, ' ')
    .replace(UNSAFE_ALL, (c) => `<${codePointLabel(c.codePointAt(0) ?? 0)}>`)
    .replace(LONE_SURROGATE, '\ufffd');
}

/** UTF-8 bytes of a string (a lone surrogate as U+FFFD, 3 bytes); stops counting past `stop`. */
export function utf8Length(s: string, stop = Number.POSITIVE_INFINITY): number {
  let n = 0;
  for (let i = 0; i < s.length && n <= stop; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i += 1;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
