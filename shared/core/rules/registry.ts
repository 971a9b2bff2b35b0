/**
 * The rule catalog (docs/design.md#rule-catalog): the monitor's rules (monitor-rules.ts) then the
 * blue/green parity rules (parity-rules.ts), in the order of the README's rule table (generated
 * from this list) and of the `rules` command. Rule IDs are a public contract once released:
 * never rename, only add.
 * The engine does not run this list: it takes `MONITOR_RULES` for assess/diff/what-if and
 * `PARITY_RULES` for compare, so a bundle without `compare` carries no parity code.
 */
import { MONITOR_RULES } from './monitor-rules.ts';
import { PARITY_RULES } from './parity-rules.ts';
import type { Rule } from './types.ts';

export const RULES: readonly Rule[] = [...MONITOR_RULES, ...PARITY_RULES];

export function ruleById(id: string): Rule | undefined {
  return RULES.find((r) => r.id === id);
}
