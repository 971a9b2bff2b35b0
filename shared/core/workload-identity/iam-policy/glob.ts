/**
 * IAM's wildcard match: `*` any run of characters (also empty), `?` exactly one. No other
 * character is special. Linear in practice (the classic two-pointer match with one backtrack
 * point, O(n·m) at worst, never exponential): patterns are attacker-written. Pure.
 */
export function globMatch(pattern: string, text: string, ignoreCase = false): boolean {
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  const t = ignoreCase ? text.toLowerCase() : text;
  let pi = 0;
  let ti = 0;
  let star = -1;
  let mark = 0;
  while (ti < t.length) {
    const c = p[pi];
    if (c !== undefined && c !== '*' && (c === '?' || c === t[ti])) {
      pi++;
      ti++;
    } else if (c === '*') {
      star = pi++;
      mark = ti;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++mark;
    } else return false;
  }
  while (p[pi] === '*') pi++;
  return pi === p.length;
}

/**
 * `ArnLike`/`ArnEquals`: each of the six colon-separated parts matched on its own (the last part,
 * the resource, keeps any further colons), so a `*` never spans a colon between parts.
 */
export function arnMatch(pattern: string, arn: string): boolean {
  const pp = splitArn(pattern);
  const ap = splitArn(arn);
  if (pp === undefined || ap === undefined) return false;
  return pp.every((part, i) => globMatch(part, ap[i] ?? ''));
}

function splitArn(s: string): string[] | undefined {
  const parts = s.split(':');
  if (parts.length < 6) return undefined;
  return [...parts.slice(0, 5), parts.slice(5).join(':')];
}
