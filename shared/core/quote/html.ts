/**
 * HTML: text and attribute values for a page that renders attacker-written strings (role ARNs,
 * usernames, groups, node names, CloudTrail fields). One function for both places, so neither can
 * be forgotten: `&`, `<`, `>`, `"` and `'` become character references, which is what makes a
 * string inert in element content and in a quoted attribute value alike (HTML Living Standard,
 * "Serializing HTML fragments" escapes the same set). Beyond the markup characters, what a reader
 * could not see is shown: every control (except tab and line feed) and invisible format character
 * (bidi overrides, zero-width characters) becomes `<U+202E>` as text, and a lone UTF-16 surrogate,
 * which has no UTF-8 form, becomes U+FFFD. Carriage returns are normalised to line feeds. Pure.
 */
import { codePointLabel, UNSAFE_IN_CODE } from './unicode.ts';

const MARKUP: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UNSAFE_ALL = new RegExp(UNSAFE_IN_CODE.source, 'g');

/** The string as HTML text or as a double- or single-quoted attribute value. */
export function escapeHtml(s: string): string {
  return visibleText(s).replace(/[&<>"']/g, (c) => MARKUP[c] ?? c);
}

/**
 * What a reader sees of `s` once `escapeHtml(s)` is parsed: the string itself with invisible
 * characters shown and lone surrogates replaced (tests compare the parsed page with this).
 */
export function visibleText(s: string): string {
  return s
    .replace(/\r\n?/g, '\n')
    .replace(LONE_SURROGATE, '\ufffd')
    .replace(UNSAFE_ALL, (c) => `<${codePointLabel(c.codePointAt(0) ?? 0)}>`);
}
