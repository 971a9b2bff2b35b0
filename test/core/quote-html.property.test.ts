/**
 * The HTML layer (shared/core/quote/html.ts), read back: the escaped string holds no markup
 * character raw, every `&` starts one of the five references it writes, and decoding those gives
 * exactly what a reader is meant to see (the value, invisible characters shown). Values are
 * arbitrary Unicode plus the injection strings, as for the other layers. The page as a whole is
 * parsed by a real browser in test/e2e/report-html.e2e.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, visibleText } from '../../shared/core/quote/html.ts';
import { UNSAFE_IN_CODE } from '../../shared/core/quote/unicode.ts';
import { INJECTIONS } from '../hostile/strings.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 10_000);
const SEED = Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31);

const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const value = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: anyCodeUnit, maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom(...INJECTIONS) },
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.constantFrom(
          '<script>alert(1)</script>',
          '"><img src=x onerror=alert(1)>',
          "' onmouseover='x",
          '&amp;',
          '&#60;',
          '</style>',
          '<!--',
          ']]>',
          '\u202e',
          '\u200b',
          '\r\n',
          '\ud800',
          'arn:aws:iam::111122223333:role/a',
        ),
        { maxLength: 6 },
      )
      .map((p) => p.join('')),
  },
);

const REFERENCES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

function decode(html: string): string {
  return html.replace(/&(?:amp|lt|gt|quot|#39);/g, (r) => REFERENCES[r] ?? r);
}

describe('HTML escaping (property)', () => {
  it('leaves no markup character raw and decodes back to what the reader is meant to see', () => {
    fc.assert(
      fc.property(value, (s) => {
        const html = escapeHtml(s);
        expect(html).not.toMatch(/[<>"']/);
        expect(html.replace(/&(?:amp|lt|gt|quot|#39);/g, '')).not.toContain('&');
        expect(decode(html)).toBe(visibleText(s));
        expect(html).not.toMatch(UNSAFE_IN_CODE);
        expect(html).not.toContain('\r');
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('shows a right-to-left override and keeps ordinary text as it is', () => {
    expect(escapeHtml('admin\u202egnp.exe')).toBe('admin&lt;U+202E&gt;gnp.exe');
    expect(escapeHtml('arn:aws:iam::111122223333:role/prod-node-role')).toBe(
      'arn:aws:iam::111122223333:role/prod-node-role',
    );
    expect(escapeHtml('<b a="1">&')).toBe('&lt;b a=&quot;1&quot;&gt;&amp;');
  });
});
