import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../shared/core/alerts/lifecycle.ts';
import { type Finding, SEVERITIES } from '../../shared/core/model.ts';
import { fixCode, sanitize } from '../../shared/core/render/layout.ts';
import { renderSlackMessages, SLACK_LIMITS, type SlackBlock } from '../../shared/core/render/slack.ts';
import { renderSnsMessage, renderSnsMessages, SNS_LIMITS } from '../../shared/core/render/sns.ts';
import { findingArbitrary, hasOpenFence } from '../support/findings.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 10_000);
/** Runs where one field may be tens of KB (each such run renders ~100× more text). */
const HUGE_RUNS = Number(process.env.PROPERTY_HUGE_RUNS ?? 300);
const TIMEOUT_MS = 240_000;

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
const CASES: Array<[string, fc.Arbitrary<Notice[]>, number]> = [
  ['everyday fields', notices, RUNS],
  ['huge fields', bigNotices, HUGE_RUNS],
];

function textsOf(block: SlackBlock): string[] {
  switch (block.type) {
    case 'header':
      return [block.text.text];
    case 'section':
      return [...(block.text ? [block.text.text] : []), ...(block.fields ?? []).map((f) => f.text)];
    case 'context':
      return block.elements.map((e) => e.text);
    case 'rich_text':
      return block.elements.flatMap((e) => e.elements.map((t) => t.text));
    case 'divider':
      return [];
  }
}

describe('Slack rendering (property)', () => {
  it.each(CASES)(
    'stays within Slack limits, carries every notice exactly once and never cuts a code block (%s)',
    (_label, arb, runs) => {
      fc.assert(
        fc.property(arb, (ns) => {
          const messages = renderSlackMessages(ns);
          expect(messages.flatMap((m) => m.notices).sort((a, b) => a - b)).toEqual(ns.map((_, i) => i));
          for (const { payload, notices: carried } of messages) {
            expect(payload.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.maxBlocks);
            expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(
              SLACK_LIMITS.maxPayloadBytes,
            );
            expect(payload.text.length).toBeGreaterThan(0);
            expect(payload.text.length).toBeLessThanOrEqual(SLACK_LIMITS.maxFallbackChars);
            const codes = new Set(
              carried.flatMap((i) => {
                const r = ns[i]?.finding.remediation;
                return r === undefined ? [] : fixCode(r).map((c) => sanitize(c.code).replace(/\n+$/, ''));
              }),
            );
            let total = 0;
            for (const block of payload.blocks) {
              for (const t of textsOf(block)) total += t.length;
              if (block.type === 'header')
                expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.maxHeaderChars);
              if (block.type === 'section') {
                expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.maxSectionChars);
                expect(block.fields?.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.maxFields);
                for (const f of block.fields ?? [])
                  expect(f.text.length).toBeLessThanOrEqual(SLACK_LIMITS.maxFieldChars);
              }
              if (block.type === 'context') {
                for (const e of block.elements)
                  expect(e.text.length).toBeLessThanOrEqual(SLACK_LIMITS.maxSectionChars);
              }
              if (block.type === 'rich_text') {
                for (const e of block.elements) {
                  if (e.type !== 'rich_text_preformatted') continue;
                  const code = e.elements.map((t) => t.text).join('');
                  expect(code.length).toBeLessThanOrEqual(SLACK_LIMITS.maxCodeChars);
                  expect(codes.has(code)).toBe(true);
                }
              }
              // mrkdwn never carries a raw < or > (no injected mentions or links)
              if (block.type === 'section' || block.type === 'context') {
                for (const t of textsOf(block)) expect(t).not.toMatch(/[<>]/);
              }
            }
            expect(total).toBeLessThanOrEqual(SLACK_LIMITS.maxMessageTextChars);
          }
        }),
        { numRuns: runs },
      );
    },
    TIMEOUT_MS,
  );
});

function snsBytes(m: {
  message: string;
  messageAttributes: Record<string, { DataType: string; StringValue: string }>;
}) {
  let n = Buffer.byteLength(m.message);
  for (const [k, v] of Object.entries(m.messageAttributes))
    n += Buffer.byteLength(k) + Buffer.byteLength(v.DataType) + Buffer.byteLength(v.StringValue);
  return n;
}

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
