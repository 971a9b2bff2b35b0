/**
 * JSON: `JSON.stringify`, plus `\uNNNN` for every character it leaves raw that a reader cannot see:
 * DEL, C1 controls, invisible format characters (bidi overrides, zero-width characters, U+2028,
 * U+2029). Such characters can only occur inside JSON strings, where
 * the escape means the same character: the value is unchanged, and a reader of the text sees
 * where one is. Lone surrogates are already escaped by `JSON.stringify`. Pure.
 */
import { UNSAFE_IN_CODE } from './unicode.ts';

const UNSAFE_ALL = new RegExp(UNSAFE_IN_CODE.source, 'g');

/** `JSON.stringify(value, null, indent)` with invisible characters escaped. */
export function jsonText(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent);
  return text.replace(UNSAFE_ALL, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
