/**
 * Issue 17, "Secrets and bounds": Slack's subject field cut its closing backtick off (the value was
 * quoted, then the field cut at 500 characters), so a long hostile subject's `*_~`, mention and
 * bare URL were read as mrkdwn. Every mrkdwn text of every notice keeps its code spans closed, and
 * nothing of the hostile value stands outside one, whatever its length.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/gen-cli-golden.ts';
import type { Notice } from '../../shared/core/alerts/lifecycle.ts';
import type { ClusterSnapshot, Finding } from '../../shared/core/model.ts';
import { whatIf } from '../../shared/core/predict/engine.ts';
import { renderSlackMessages, type SlackBlock } from '../../shared/core/render/slack.ts';

const HOSTILE = ' *bold* _it_ ~strike~ <!channel> @here https://evil.example/p `x` &amp; ';

function baseFinding(): Finding {
  const s = JSON.parse(
    readFileSync(join(REPO_ROOT, 'scenarios', 'e-switch-to-api-mode.json'), 'utf8'),
  ) as ClusterSnapshot;
  const [f] = whatIf(s, { kind: 'set-auth-mode', mode: 'API' }).findings;
  if (f === undefined) throw new Error('the scenario has no finding');
  return f;
}

function mrkdwnTexts(finding: Finding): string[] {
  const notice: Notice = { kind: 'opened', finding, at: '2026-11-29T12:00:00.000Z' };
  const blocks: SlackBlock[] = renderSlackMessages([notice]).flatMap((m) => m.payload.blocks);
  return blocks
    .flatMap((b) =>
      b.type === 'section'
        ? [...(b.text ? [b.text] : []), ...(b.fields ?? [])]
        : b.type === 'context'
          ? b.elements
          : [],
    )
    .flatMap((t) => (t.type === 'mrkdwn' ? [t.text] : []));
}

function assertClosed(texts: readonly string[]): void {
  for (const text of texts) {
    expect((text.split('`').length - 1) % 2, text).toBe(0);
    const outside = text.replace(/`[^`]*`/g, '');
    expect(outside, text).not.toMatch(/_it_|~strike~|evil\.example|<!channel>|@here|\*bold\*/);
  }
}

describe('Slack fields keep the code span closed on hostile values (issue 17)', () => {
  it('a 480-character subject with mrkdwn and a URL near the cut: the closing backtick stays', () => {
    const base = baseFinding();
    for (const pad of [440, 470, 480, 485, 490, 495, 500, 2_000]) {
      const subject = `${'r'.repeat(pad)}${HOSTILE}`;
      const texts = mrkdwnTexts({ ...base, subject });
      const field = texts.find((t) => t.startsWith('*Subject*\n'));
      expect(field).toBeDefined();
      expect(field?.endsWith('`')).toBe(true);
      expect(field?.length).toBeLessThanOrEqual(500);
      assertClosed(texts);
    }
  });

  it('any subject or cluster name: every mrkdwn text has its spans closed (property)', () => {
    const base = baseFinding();
    const piece = fc.constantFrom(
      '*',
      '_',
      '~',
      '`',
      '&',
      '<',
      '>',
      'https://evil.example/p',
      ' ',
      'a',
      '\n',
    );
    const hostile = fc.array(piece, { maxLength: 600 }).map((xs) => xs.join(''));
    fc.assert(
      fc.property(hostile, fc.nat(520), (value, pad) => {
        const subject = `${'s'.repeat(pad)}${value}${HOSTILE}`;
        const texts = mrkdwnTexts({
          ...base,
          subject,
          cluster: { ...base.cluster, name: `${'c'.repeat(pad)}${HOSTILE}` },
        });
        assertClosed(texts);
      }),
      { numRuns: 150 },
    );
  });
});
