/**
 * `String.prototype.localeCompare` without its start-up cost where the result is known.
 *
 * The first `localeCompare` of a process loads ICU's collator: ≈ 15 ms on a quiet machine, 50 ms
 * and more on a busy one, a large part of a file-only CLI command's start (bench/cli-start.ts).
 * For strings made only of lower-case ASCII letters, digits, `-` and `.` (node names, instance
 * IDs: what the engine sorts on its common path) the root collation orders by code unit: `-` and
 * `.` are punctuation, which sorts before digits, digits before letters, with no case or accent
 * level to break ties. Anything else goes to `localeCompare`, so the order is always its order.
 */
const CODE_UNIT_ORDERED = /^[-.0-9a-z]*$/;

export function compareLocale(a: string, b: string): number {
  if (CODE_UNIT_ORDERED.test(a) && CODE_UNIT_ORDERED.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}
