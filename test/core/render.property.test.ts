import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Finding, SEVERITIES } from '../../shared/core/model.ts';
import { renderJson, renderMarkdown, renderText } from '../../shared/core/render/index.ts';
import { findingArbitrary, hasOpenFence } from '../support/findings.ts';

// Strings that try hard to break the layout: fences, backticks, tildes, newlines, control
// characters and lone surrogates, mixed with arbitrary text.
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .array(
      fc.constantFrom(
        '```',
        '~~~',
        '`',
        '\n',
        '\r\n',
        '  ',
        '# ',
        '- ',
        '|',
        '\u001b[31m',
        '\ud800',
        'x',
        'word ',
      ),
      {
        maxLength: 20,
      },
    )
    .map((parts) => parts.join('')),
);

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const finding = findingArbitrary(nasty, {
  maxNodegroups: 3,
  maxFirstNodes: 4,
  fingerprint: fc.string(),
  evidence: fc.constant({}),
});

const options = fc.record({
  maxChars: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 300, max: 20_000 })),
  title: optional(nasty),
  color: fc.boolean(),
  compact: fc.boolean(),
});

function dropUndefined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

describe('renderers (property)', () => {
  for (const [name, render] of [
    ['renderText', renderText],
    ['renderMarkdown', renderMarkdown],
  ] as const) {
    it(`${name} never exceeds maxChars and never leaves a code fence open`, () => {
      fc.assert(
        fc.property(fc.array(finding, { maxLength: 12 }), options, (findings, opts) => {
          const out = render(findings, dropUndefined(opts));
          expect(out.length).toBeLessThanOrEqual(opts.maxChars);
          expect(hasOpenFence(out)).toBe(false);
        }),
        { numRuns: Number(process.env.PROPERTY_RUNS ?? 10_000) },
      );
    });
  }

  it('renderJson always parses and stays within maxChars above its floor', () => {
    fc.assert(
      fc.property(
        fc.array(finding, { maxLength: 12 }),
        fc.integer({ min: 1_000, max: 30_000 }),
        (findings, maxChars) => {
          const out = renderJson(findings, { maxChars });
          const parsed = JSON.parse(out) as { findings: unknown[]; omitted?: { count: number } };
          expect(out.length).toBeLessThanOrEqual(maxChars);
          expect(parsed.findings.length + (parsed.omitted?.count ?? 0)).toBe(findings.length);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
