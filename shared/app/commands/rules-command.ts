/** Use case of `rules`: the rule catalog. */
import type { CommandResult } from '../../core/render/index.ts';
import { RULES } from '../../core/rules/index.ts';

export function rulesCommand(): CommandResult {
  return { kind: 'rules', rules: [...RULES], exit: { severities: [], failOnDefault: 'none' } };
}
