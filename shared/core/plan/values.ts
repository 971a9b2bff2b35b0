/**
 * Reading attribute values out of a resource change: `before` is always known; a value of
 * `after` is known unless `after_unknown` marks it (or a block around it) `true`. Unknown values
 * are reported as unknown and never replaced by a guess.
 */

export type Value = { known: true; value: unknown } | { known: false };

function child(v: unknown, key: string | number): unknown {
  if (typeof key === 'number') return Array.isArray(v) ? v[key] : undefined;
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)[key]
    : undefined;
}

/** The value at `path` of `after`, unknown when `after_unknown` marks it or a parent `true`. */
export function afterValue(after: unknown, afterUnknown: unknown, path: readonly (string | number)[]): Value {
  let value = after;
  let unknown = afterUnknown;
  for (const key of path) {
    if (unknown === true) return { known: false };
    value = child(value, key);
    unknown = child(unknown, key);
  }
  return unknown === true ? { known: false } : { known: true, value };
}

export function beforeValue(before: unknown, path: readonly (string | number)[]): unknown {
  let value = before;
  for (const key of path) value = child(value, key);
  return value;
}

/** A known non-empty string, or undefined (absent, null, or another type). */
export function stringOf(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** A known string, `unknown` when not known at plan time, undefined when absent. */
export function knownString(v: Value): string | 'unknown' | undefined {
  return v.known ? stringOf(v.value) : 'unknown';
}

/** A list (or Terraform set) of strings; non-strings dropped. */
export function stringsOf(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
