/**
 * The catalog (registry.ts) is the monitor's rules then the parity rules; the engine and the
 * alert lifecycle run the two lists apart (so the event path's bundle carries no parity code),
 * which is the same as running the catalog only while no rule is in both camps.
 */
import { describe, expect, it } from 'vitest';
import { MONITOR_RULES } from '../../shared/core/rules/monitor-rules.ts';
import { PARITY_RULES } from '../../shared/core/rules/parity-rules.ts';
import { RULES, ruleById } from '../../shared/core/rules/registry.ts';

describe('rule registry', () => {
  it('the catalog is every monitor rule, then every parity rule, each once', () => {
    expect(RULES).toEqual([...MONITOR_RULES, ...PARITY_RULES]);
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
    expect(PARITY_RULES.map((r) => r.id)).toEqual([
      'parity/access-missing',
      'parity/access-differs',
      'parity/workload-identity-missing',
    ]);
  });

  it('parity rules run only on compare, the monitor rules never on it', () => {
    for (const r of PARITY_RULES) expect(r.kinds, r.id).toEqual(['parity']);
    for (const r of MONITOR_RULES) expect(r.kinds, r.id).not.toContain('parity');
  });

  it('ruleById finds parity rules and monitor rules alike', () => {
    expect(ruleById('parity/access-missing')).toBe(PARITY_RULES[0]);
    expect(ruleById('nodes/role-unauthorized')).toBe(
      MONITOR_RULES.find((r) => r.id === 'nodes/role-unauthorized'),
    );
  });
});
