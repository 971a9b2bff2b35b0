import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderSnsMessage, SNS_LIMITS } from '../../shared/core/render/sns.ts';
import { CASES, snsBytes, TIMEOUT_MS } from '../support/alert-notices.ts';
import { hasOpenFence } from '../support/findings.ts';

describe('SNS rendering (property)', () => {
  it.each(CASES)(
    'stays within 256 KiB with a valid Subject, per-protocol JSON and filter attributes (%s)',
    (_label, arb, runs) => {
      fc.assert(
        fc.property(
          arb,
          fc.constantFrom('findings', 'chatbot') as fc.Arbitrary<'findings' | 'chatbot'>,
          (ns, https) => {
            const m = renderSnsMessage(ns, { https });
            expect(snsBytes(m)).toBeLessThanOrEqual(SNS_LIMITS.maxMessageBytes);
            expect(m.subject.length).toBeGreaterThan(0);
            expect(m.subject.length).toBeLessThanOrEqual(SNS_LIMITS.maxSubjectChars);
            expect(m.subject).toMatch(/^[\x20-\x7e]+$/);
            const doc = JSON.parse(m.message) as Record<string, string>;
            expect(typeof doc.default).toBe('string');
            expect(doc.email).toBe(doc.default);
            expect(hasOpenFence(doc.default ?? '')).toBe(false);
            for (const p of ['sqs', 'lambda', 'https']) expect(() => JSON.parse(doc[p] ?? '')).not.toThrow();
            expect(Object.keys(m.messageAttributes).length).toBeLessThanOrEqual(SNS_LIMITS.maxAttributes);
            for (const name of ['severity', 'ruleId', 'cluster', 'region', 'account']) {
              expect(m.messageAttributes[name]?.StringValue.length).toBeGreaterThan(0);
            }
          },
        ),
        { numRuns: runs },
      );
    },
    TIMEOUT_MS,
  );
});
