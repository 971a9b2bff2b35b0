/**
 * Alert notices for the renderer property tests (test/core/alert-render-*.property.test.ts, one
 * file per property so that the pool runs them side by side): findings whose strings try to break
 * layouts and limits, now and then with one field of tens of KB.
 */
import fc from 'fast-check';
import type { Notice } from '../../shared/core/alerts/lifecycle.ts';
import type { Finding } from '../../shared/core/model.ts';
import { findingArbitrary } from './findings.ts';

export const RUNS = Number(process.env.PROPERTY_RUNS ?? 10_000);
/** Runs where one field may be tens of KB (each such run renders ~100× more text). */
export const HUGE_RUNS = Number(process.env.PROPERTY_HUGE_RUNS ?? 300);
export const TIMEOUT_MS = 240_000;

// Strings that try to break layouts and limits: fences, backticks, Slack control characters
// (<, >, &), control characters, lone surrogates, multi-byte text.
const nasty = fc.oneof(
  { weight: 12, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 6,
    arbitrary: fc
      .array(
        fc.constantFrom(
          '```',
          '`',
          '\n',
          '\r\n',
          '<!channel>',
          '&amp;',
          '>',
          '*',
          '_',
          '\u001b[31m',
          '\ud800',
          'ü',
          '😀',
          'x',
          'word ',
        ),
        { maxLength: 20 },
      )
      .map((parts) => parts.join('')),
  },
);

const finding = findingArbitrary(nasty, {
  maxNodegroups: 15,
  maxFirstNodes: 12,
  fingerprint: nasty,
  evidence: fc.dictionary(fc.string({ maxLength: 10 }), nasty, { maxKeys: 4 }),
});

/** A huge string (tens of KB) in one field now and then: exercises the size limits without making every run slow. */
const huge = fc
  .tuple(
    fc.constantFrom('a', '"', '\ud800', '😀', 'line\n', '<', '`'),
    fc.integer({ min: 1_000, max: 70_000 }),
  )
  .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)));
const HUGE_FIELDS = [
  'title',
  'detail',
  'subject',
  'ruleId',
  'awsCli',
  'terraform',
  'awsAuthYaml',
  'timeToImpact',
  'name',
] as const;

const sometimesHuge: fc.Arbitrary<Finding> = fc.oneof(
  { weight: 3, arbitrary: finding },
  {
    weight: 1,
    arbitrary: fc.tuple(finding, fc.constantFrom(...HUGE_FIELDS), huge).map(([f, field, big]) => {
      const g = structuredClone(f);
      if (field === 'awsCli' || field === 'terraform' || field === 'awsAuthYaml') {
        g.remediation = { ...(g.remediation ?? { summary: 'fix' }), [field]: big };
      } else if (field === 'timeToImpact') {
        if (g.blastRadius) g.blastRadius.timeToImpact = big;
        else g.detail = big;
      } else if (field === 'name') g.cluster = { ...g.cluster, name: big };
      else g[field] = big;
      return g;
    }),
  },
);

const bigNotice: fc.Arbitrary<Notice> = fc.record({
  kind: fc.constantFrom('opened', 'escalated', 'resolved'),
  finding: sometimesHuge,
  at: fc.constantFrom('2026-11-29T12:00:00.000Z', '2026-11-29T12:05:00.000Z'),
});

const notice: fc.Arbitrary<Notice> = fc.record({
  kind: fc.constantFrom('opened', 'escalated', 'resolved'),
  finding,
  at: fc.constantFrom('2026-11-29T12:00:00.000Z', '2026-11-29T12:05:00.000Z'),
});

const notices = fc.array(notice, { minLength: 1, maxLength: 8 });
const bigNotices = fc.array(bigNotice, { minLength: 1, maxLength: 8 });
export const CASES: Array<[string, fc.Arbitrary<Notice[]>, number]> = [
  ['everyday fields', notices, RUNS],
  ['huge fields', bigNotices, HUGE_RUNS],
];

/** Bytes SNS counts against its limit: the message and every attribute's name, type and value. */
export function snsBytes(m: {
  message: string;
  messageAttributes: Record<string, { DataType: string; StringValue: string }>;
}) {
  let n = Buffer.byteLength(m.message);
  for (const [k, v] of Object.entries(m.messageAttributes))
    n += Buffer.byteLength(k) + Buffer.byteLength(v.DataType) + Buffer.byteLength(v.StringValue);
  return n;
}
