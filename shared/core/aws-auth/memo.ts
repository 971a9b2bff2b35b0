/**
 * `parseAwsAuth` remembered, inside one evaluation (`withAwsAuthMemo`), for the last few distinct
 * `data` contents: a plan's steps and the analyses around them see the same 10k-entry mapRoles
 * many times over (each step's copy of the cluster, the states before and after), and the parse
 * is pure. Keyed by the content, not the object (every simulated step copies the record): the
 * same keys in the same order with the same values (`===`: strings by content, which V8 compares
 * by pointer first, so no 1 MB key is built per look-up). Outside an evaluation it is plain
 * `parseAwsAuth`. Callers must not mutate the result.
 */
import { withEntryMemo } from './entry-memo.ts';
import { parseAwsAuth } from './parse.ts';
import type { ParsedAwsAuth } from './parse-result.ts';

const SIZE = 4;
type Entries = Array<[string, unknown]>;
let recent: Array<{ entries: Entries; parsed: ParsedAwsAuth }> | undefined;

/** Runs `fn` with the memo on (nested calls share the outer one); it is emptied afterwards. */
export function withAwsAuthMemo<T>(fn: () => T): T {
  if (recent !== undefined) return fn();
  recent = [];
  try {
    return withEntryMemo(fn);
  } finally {
    recent = undefined;
  }
}

/** The record's own enumerable entries, or undefined when reading them throws (a hostile getter). */
function entriesOf(data: Record<string, string>): Entries | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  try {
    return Object.entries(data);
  } catch {
    return undefined;
  }
}

function sameEntries(a: Entries, b: Entries): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as [string, unknown];
    const y = b[i] as [string, unknown];
    if (x[0] !== y[0] || x[1] !== y[1]) return false;
  }
  return true;
}

export function parseAwsAuthShared(data: Record<string, string>): ParsedAwsAuth {
  const entries = recent === undefined ? undefined : entriesOf(data);
  if (recent === undefined || entries === undefined) return parseAwsAuth(data);
  const at = recent.findIndex((r) => sameEntries(r.entries, entries));
  if (at >= 0) {
    const [hit] = recent.splice(at, 1);
    if (hit !== undefined) {
      recent.unshift(hit);
      return hit.parsed;
    }
  }
  const parsed = parseAwsAuth(data);
  recent.unshift({ entries, parsed });
  if (recent.length > SIZE) recent.pop();
  return parsed;
}
