/**
 * Issue 8, case 10 (the Slack and bidi half): a user name with a right-to-left override, a
 * zero-width space, Slack formatting (`*_~`), a mention and a bare URL, mapped in aws-auth and
 * reported when API mode would drop it. No renderer (text, Markdown, JSON, Slack, SNS) lets the
 * override through raw; Slack never parses the name as mrkdwn and never auto-links it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/gen-cli-golden.ts';
import type { Notice } from '../../shared/core/alerts/lifecycle.ts';
import type { ClusterSnapshot, Finding } from '../../shared/core/model.ts';
import { whatIf } from '../../shared/core/predict/engine.ts';
import { renderFindings } from '../../shared/core/render/index.ts';
import { renderSlackMessages, type SlackBlock } from '../../shared/core/render/slack.ts';
import { renderSnsMessage } from '../../shared/core/render/sns.ts';

const BIDI_AND_INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
const USERNAME = 'ops\u202e*admin* _x_ ~y~ <!channel> https://evil.example/p \u200bz';
const ROLE = 'arn:aws:iam::111122223333:role/ops\u202eexe.gnp';

function hostileFindings(): Finding[] {
  const s = JSON.parse(
    readFileSync(join(REPO_ROOT, 'scenarios', 'e-switch-to-api-mode.json'), 'utf8'),
  ) as ClusterSnapshot;
  if (s.awsAuth.status === 'ok') {
    s.awsAuth.data.data = {
      mapRoles: JSON.stringify([{ rolearn: ROLE, username: USERNAME, groups: ['ops*team*'] }]),
    };
  }
  const findings = whatIf(s, { kind: 'set-auth-mode', mode: 'API' }).findings;
  expect(findings.some((f) => f.detail.includes(USERNAME))).toBe(true);
  return findings;
}

function notices(findings: Finding[]): Notice[] {
  return findings.map((finding) => ({ kind: 'opened', finding, at: '2026-11-29T12:00:00.000Z' }));
}

/** Every string in a value, recursively. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v !== null && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

describe('renderers on bidi controls and Slack formatting in user names (issue 8, case 10)', () => {
  it.each(['text', 'markdown', 'json'] as const)('%s shows the override instead of applying it', (format) => {
    const out = renderFindings(format, hostileFindings());
    expect(out).not.toMatch(BIDI_AND_INVISIBLE);
    // Markdown prose escapes the brackets (`\<U+202E\>`), which renders as `<U+202E>`.
    expect(out).toMatch(format === 'json' ? /\\u202e/ : /\\?<U\+202E\\?>/);
  });

  it('SNS (e-mail text, machine JSON, Chatbot) carries no raw override', () => {
    for (const https of ['findings', 'chatbot'] as const) {
      const m = renderSnsMessage(notices(hostileFindings()), { https });
      expect(m.message).not.toMatch(BIDI_AND_INVISIBLE);
      expect(m.subject).not.toMatch(BIDI_AND_INVISIBLE);
      // The machine JSON still decodes to the exact name.
      const decoded = strings(JSON.parse(JSON.parse(m.message).sqs as string));
      expect(decoded.some((s) => s.includes(USERNAME))).toBe(true);
    }
  });

  it('Slack: the name is rich text (not mrkdwn), every mrkdwn object is verbatim, no raw override', () => {
    const messages = renderSlackMessages(notices(hostileFindings()));
    const blocks: SlackBlock[] = messages.flatMap((m) => m.payload.blocks);
    const json = JSON.stringify(messages.map((m) => m.payload));
    expect(json).not.toMatch(BIDI_AND_INVISIBLE);
    const mrkdwn = blocks.flatMap((b) =>
      b.type === 'section'
        ? [...(b.text ? [b.text] : []), ...(b.fields ?? [])]
        : b.type === 'context'
          ? b.elements
          : [],
    );
    expect(mrkdwn.length).toBeGreaterThan(0);
    for (const t of mrkdwn) {
      if (t.type !== 'mrkdwn') continue;
      expect(t.verbatim).toBe(true);
      // Outside inline code, mrkdwn never holds the name's formatting, mention or URL.
      const outsideCode = t.text.replace(/`[^`]*`/g, '');
      expect(outsideCode).not.toMatch(/\*admin\*|_x_|~y~|evil\.example|<!channel>/);
    }
    const rich = blocks
      .flatMap((b) => (b.type === 'rich_text' ? b.elements : []))
      .filter((e) => e.type === 'rich_text_section')
      .flatMap((e) => e.elements.map((t) => t.text))
      .join('\n');
    expect(rich).toContain('ops<U+202E>*admin* _x_ ~y~ <!channel> https://evil.example/p <U+200B>z');
  });
});
