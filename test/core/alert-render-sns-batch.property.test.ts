import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderSnsMessages, SNS_LIMITS } from '../../shared/core/render/sns.ts';
import { CASES, snsBytes, TIMEOUT_MS } from '../support/alert-notices.ts';

describe('SNS rendering (property)', () => {
  it.each(CASES)(
    'packs a batch into messages that each fit and carry every notice exactly once (%s)',
    (_label, arb, runs) => {
      fc.assert(
        fc.property(arb, (ns) => {
          const out = renderSnsMessages(ns);
          expect(out.flatMap((o) => o.notices).sort((a, b) => a - b)).toEqual(ns.map((_, i) => i));
          for (const o of out) expect(snsBytes(o.message)).toBeLessThanOrEqual(SNS_LIMITS.maxMessageBytes);
        }),
        { numRuns: runs },
      );
    },
    TIMEOUT_MS,
  );
});
