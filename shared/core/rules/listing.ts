/**
 * Long lists in a finding: the detail names the total first (a channel that cuts a long detail,
 * Slack, still says how much), lists the first few and counts the rest ("… and 6,874 more"), so an
 * alert stays readable however many principals or entries a hostile aws-auth holds.
 */

/** What one finding lists at most. */
export const MAX_LISTED = 10;

export interface Listed<T> {
  listed: T[];
  /** How many are not listed (0 when all are). */
  unlisted: number;
}

/** The first `max` of `items` and how many are left out. */
export function firstOf<T>(items: readonly T[], max = MAX_LISTED): Listed<T> {
  const listed = items.slice(0, max);
  return { listed, unlisted: items.length - listed.length };
}

/** `… and 39980 more problem(s) in mapRoles.`, or nothing when every item is listed. */
export function moreLine(unlisted: number, what: string): string[] {
  return unlisted > 0 ? [`… and ${unlisted} more ${what}.`] : [];
}

/** `20001 type-mismatch, 20001 invalid-entry`: how many of each kind (an item counts `weightOf` times), most frequent first. */
export function kindCounts<T>(
  items: readonly T[],
  kindOf: (t: T) => string,
  weightOf: (t: T) => number = () => 1,
): string {
  const counts = new Map<string, number>();
  for (const i of items) counts.set(kindOf(i), (counts.get(kindOf(i)) ?? 0) + weightOf(i));
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
}

/**
 * Detail lines for a list: when it is cut, a header with the total (`header(listedCount)`), the
 * first `max` lines and the count of the rest; else just the lines.
 */
export function listedLines<T>(
  items: readonly T[],
  line: (t: T) => string,
  opts: { header: (listed: number) => string; more: string; max?: number },
): string[] {
  const { listed, unlisted } = firstOf(items, opts.max);
  return [
    ...(unlisted > 0 ? [opts.header(listed.length)] : []),
    ...listed.map(line),
    ...moreLine(unlisted, opts.more),
  ];
}
