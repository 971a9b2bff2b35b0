import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixCode, sanitize } from '../../shared/core/render/layout.ts';
import { renderSlackMessages, SLACK_LIMITS, type SlackBlock } from '../../shared/core/render/slack.ts';
import { CASES, TIMEOUT_MS } from '../support/alert-notices.ts';

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
