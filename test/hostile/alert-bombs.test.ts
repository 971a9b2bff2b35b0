/**
 * Issue 8, case 2 through the alert channels: the parser bombs, a 1 MiB ConfigMap and thousands of
 * broken lines holding bidi and control characters, assessed (and the API-mode what-if), then
 * rendered for Slack and SNS. Every message stays within the channel's limits, carries no raw
 * control or bidi character, and still says what broke: each finding's rule, the count of
 * problems, the node role that is gone. The parse-failure finding lists a few problems and counts
 * the rest, so one alert stays readable.
 */
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../shared/core/alerts/lifecycle.ts';
import type { Finding } from '../../shared/core/model.ts';
import { assessSnapshot, whatIf } from '../../shared/core/predict/engine.ts';
import {
  renderSlackMessages,
  SLACK_LIMITS,
  type SlackBlock,
  slackPayloadBytes,
} from '../../shared/core/render/slack.ts';
import { renderSnsMessage, renderSnsMessages, SNS_LIMITS } from '../../shared/core/render/sns.ts';
import { MAX_BROKEN_LINES, MAX_LISTED_ISSUES } from '../../shared/core/rules/aws-auth-parse-failure.ts';
import {
  billionLaughs,
  blockNest,
  flatAliases,
  flowNest,
  hostileBrokenLines,
  NODE_ROLE,
  realistic,
  scenarioWithMapRoles,
} from './bombs.ts';

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const BIDI_AND_INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

const INPUTS: Array<[string, () => string]> = [
  ['20k aliases', () => flatAliases(20_000)],
  ['billion laughs', billionLaughs],
  ['flow depth 100k', () => flowNest(100_000)],
  ['block depth 2k', () => blockNest(2_000)],
  ['1 MiB of realistic entries', () => realistic(1 << 20)],
  ['5k broken lines with bidi characters', () => hostileBrokenLines(5_000)],
  ['5k broken lines, a raw control character fails the key', () => hostileBrokenLines(5_000, true)],
];

function findingsFor(mapRoles: string): { assess: Finding[]; whatif: Finding[] } {
  const snapshot = scenarioWithMapRoles(mapRoles);
  return {
    assess: assessSnapshot(snapshot, { trigger: 'manual' }),
    whatif: whatIf(snapshot, { kind: 'set-auth-mode', mode: 'API' }).findings,
  };
}

const notices = (findings: readonly Finding[]): Notice[] =>
  findings.map((finding) => ({ kind: 'opened', finding, at: '2026-12-01T12:00:00.000Z' }));

/** Every string in a value, recursively. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v !== null && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

function expectClean(label: string, texts: readonly string[]): void {
  for (const t of texts) {
    expect(RAW_CONTROL.test(t), `${label}: raw control character`).toBe(false);
    expect(BIDI_AND_INVISIBLE.test(t), `${label}: raw bidi/invisible character`).toBe(false);
  }
}

/** What a reader must still learn from the alert: each finding's rule, and for a dropped-entries finding the count. */
function expectSaysWhatBroke(label: string, shown: string, findings: readonly Finding[]): void {
  for (const f of findings) expect(shown, `${label}: ${f.ruleId}`).toContain(f.ruleId);
  const failure = findings.find((f) => f.ruleId === 'aws-auth/parse-failure');
  const count = /^aws-auth mapRoles: (\d+) problem/.exec(failure?.title ?? '')?.[1];
  if (count !== undefined) expect(shown, `${label}: problem count`).toContain(count);
  if (findings.some((f) => f.ruleId === 'nodes/role-unauthorized')) expect(shown, label).toContain(NODE_ROLE);
}

function checkSlack(label: string, findings: readonly Finding[]): void {
  const messages = renderSlackMessages(notices(findings));
  expect(messages.flatMap((m) => m.notices).sort(), label).toEqual(findings.map((_, i) => i));
  for (const { payload } of messages) {
    expect(payload.blocks.length, label).toBeLessThanOrEqual(SLACK_LIMITS.maxBlocks);
    expect(slackPayloadBytes(payload), label).toBeLessThanOrEqual(SLACK_LIMITS.maxPayloadBytes);
    expect(payload.text.length, label).toBeLessThanOrEqual(SLACK_LIMITS.maxFallbackChars);
    for (const b of payload.blocks as SlackBlock[]) {
      if (b.type === 'header')
        expect(b.text.text.length, label).toBeLessThanOrEqual(SLACK_LIMITS.maxHeaderChars);
      if (b.type === 'section') {
        expect(b.text?.text.length ?? 0, label).toBeLessThanOrEqual(SLACK_LIMITS.maxSectionChars);
        expect(b.fields?.length ?? 0, label).toBeLessThanOrEqual(SLACK_LIMITS.maxFields);
        for (const f of b.fields ?? [])
          expect(f.text.length, label).toBeLessThanOrEqual(SLACK_LIMITS.maxFieldChars);
      }
      if (b.type === 'rich_text') {
        for (const e of b.elements)
          for (const t of e.elements)
            expect(t.text.length, label).toBeLessThanOrEqual(SLACK_LIMITS.maxSectionChars);
      }
    }
    expectClean(`${label} (Slack)`, strings(payload));
  }
  expectSaysWhatBroke(`${label} (Slack)`, strings(messages.map((m) => m.payload)).join('\n'), findings);
}

function checkSns(label: string, findings: readonly Finding[]): void {
  for (const https of ['findings', 'chatbot'] as const) {
    const batches = renderSnsMessages(notices(findings), { https });
    expect(batches.flatMap((b) => b.notices).sort(), label).toEqual(findings.map((_, i) => i));
    for (const m of [renderSnsMessage(notices(findings), { https }), ...batches.map((b) => b.message)]) {
      expect(m.bytes, label).toBeLessThanOrEqual(SNS_LIMITS.maxMessageBytes);
      expect(m.subject.length, label).toBeLessThanOrEqual(SNS_LIMITS.maxSubjectChars);
      expect(m.subject, label).toMatch(/^[\x20-\x7e]+$/);
      expectClean(`${label} (SNS ${https})`, [m.message, m.subject, ...strings(m.messageAttributes)]);
      const { default: text, email } = JSON.parse(m.message) as { default: string; email: string };
      expectClean(`${label} (SNS ${https} text)`, [text, email]);
    }
    const one = renderSnsMessage(notices(findings), { https });
    expectSaysWhatBroke(
      `${label} (SNS ${https})`,
      (JSON.parse(one.message) as { default: string }).default,
      findings,
    );
  }
}

describe('parser bombs through the Slack and SNS renderers (issue 8, case 2)', () => {
  it.each(INPUTS)('%s: every alert within the limits, clean, and saying what broke', (label, input) => {
    const { assess, whatif } = findingsFor(input());
    expect(assess.length, label).toBeGreaterThan(0);
    for (const [run, findings] of [
      ['assess', assess],
      ['whatif', whatif],
    ] as const) {
      if (findings.length === 0) continue;
      checkSlack(`${label}, ${run}`, findings);
      checkSns(`${label}, ${run}`, findings);
    }
  });
});

describe('aws-auth/parse-failure stays readable when thousands of entries break', () => {
  it('lists the first problems and broken lines, counts the rest, keeps the evidence small', () => {
    const { assess } = findingsFor(hostileBrokenLines(5_000));
    const f = assess.find((x) => x.ruleId === 'aws-auth/parse-failure');
    if (f === undefined) throw new Error('no parse-failure finding');
    expect(f.title).toBe('aws-auth mapRoles: 5000 problem(s), entries dropped');
    const lines = f.detail.split('\n');
    expect(lines[0]).toBe('5000 problems in mapRoles (5000 type-mismatch); the first 10:');
    expect(lines.filter((l) => l.startsWith('mapRoles entry '))).toHaveLength(MAX_LISTED_ISSUES);
    expect(lines).toContain(`… and ${5_000 - MAX_LISTED_ISSUES} more problem(s) in mapRoles.`);
    // Distinct broken lines (3, 6, 9, …), the first few shown with their text, the rest counted.
    const broken = lines.filter((l) => /^mapRoles line \d+: /.test(l));
    expect(broken).toHaveLength(MAX_BROKEN_LINES);
    expect(broken[1]).toBe('mapRoles line 6:   groups: sys\u202etem:masters\u200b-1');
    expect(lines).toContain(`… and ${5_000 - MAX_BROKEN_LINES} more broken line(s) in mapRoles.`);
    expect(f.evidence).toMatchObject({ issueCount: 5_000, brokenLineCount: 5_000 });
    expect(f.evidence.issues).toHaveLength(MAX_LISTED_ISSUES);
    expect(f.evidence.brokenLines).toHaveLength(MAX_BROKEN_LINES);
  });

  it('a key that fails on a raw control character names the broken line', () => {
    const { assess } = findingsFor(hostileBrokenLines(5_000, true));
    const f = assess.find((x) => x.ruleId === 'aws-auth/parse-failure');
    expect(f?.title).toBe('aws-auth mapRoles does not parse: the authenticator keeps none of its mappings');
    expect(f?.detail).toContain('yaml: control characters are not allowed');
    expect(f?.evidence.brokenLines).toEqual([
      { line: 15_000, text: '  groups: sys\u202etem:masters\u200b\u0007\u001b[2J-4999' },
    ]);
  });
});
