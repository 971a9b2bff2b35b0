/**
 * `parseAwsAuth` remembered, inside one evaluation (`withAwsAuthMemo`), for the last few distinct
 * `data` contents: a plan's steps and the analyses around them see the same 10k-entry mapRoles
 * many times over (each step's copy of the cluster, the states before and after), and the parse
 * is pure. Keyed by the content, not the object (every simulated step copies the record).
 * Outside an evaluation it is plain `parseAwsAuth`. Callers must not mutate the result.
 */
import type { ParsedAwsAuth } from './model.ts';
import { parseAwsAuth } from './parse.ts';

const SIZE = 4;
let recent: Array<{ key: string; parsed: ParsedAwsAuth }> | undefined;

/** Runs `fn` with the memo on (nested calls share the outer one); it is emptied afterwards. */
export function withAwsAuthMemo<T>(fn: () => T): T {
  if (recent !== undefined) return fn();
  recent = [];
  try {
    return fn();
  } finally {
    recent = undefined;
  }
}

function contentKey(data: Record<string, string>): string | undefined {
  try {
    return JSON.stringify(Object.entries(data));
  } catch {
    return undefined;
  }
}

export function parseAwsAuthShared(data: Record<string, string>): ParsedAwsAuth {
  const key =
    recent !== undefined && data !== null && typeof data === 'object' ? contentKey(data) : undefined;
  if (recent === undefined || key === undefined) return parseAwsAuth(data);
  const at = recent.findIndex((r) => r.key === key);
  if (at >= 0) {
    const [hit] = recent.splice(at, 1);
    if (hit !== undefined) {
      recent.unshift(hit);
      return hit.parsed;
    }
  }
  const parsed = parseAwsAuth(data);
  recent.unshift({ key, parsed });
  if (recent.length > SIZE) recent.pop();
  return parsed;
}
