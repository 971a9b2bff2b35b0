import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareLocale } from '../../shared/core/collate.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 2000);
const sign = (n: number) => Math.sign(n);

describe('compareLocale', () => {
  it('orders node names, instance IDs and the like as localeCompare does', () => {
    const label = fc.stringMatching(/^[-.0-9a-z]{0,12}$/);
    fc.assert(
      fc.property(label, label, (a, b) => {
        expect(sign(compareLocale(a, b))).toBe(sign(a.localeCompare(b)));
      }),
      { numRuns: RUNS },
    );
  });

  it('hands anything else to localeCompare (case, underscore, non-ASCII)', () => {
    for (const [a, b] of [
      ['B', 'a'],
      ['a_b', 'a-b'],
      ['é', 'f'],
      ['node-B', 'node-a'],
    ] as const) {
      expect(sign(compareLocale(a, b))).toBe(sign(a.localeCompare(b)));
    }
    expect(['ip-10.b', 'ip-1', 'i-0a', 'ip-10-0', 'ip-10.a'].sort(compareLocale)).toEqual(
      ['ip-10.b', 'ip-1', 'i-0a', 'ip-10-0', 'ip-10.a'].sort((a, b) => a.localeCompare(b)),
    );
  });
});
