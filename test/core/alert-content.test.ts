import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../shared/core/alerts/lifecycle.ts';
import type { ClusterSnapshot, Finding } from '../../shared/core/model.ts';
import { assessSnapshot } from '../../shared/core/predict/engine.ts';
import { renderMarkdown } from '../../shared/core/render/markdown.ts';
import { renderSlackMessages } from '../../shared/core/render/slack.ts';
import { renderSnsMessage } from '../../shared/core/render/sns.ts';
import { renderText } from '../../shared/core/render/text.ts';
import { validateSnapshot } from '../../shared/core/snapshot/snapshot-schema.ts';
import { createFinding } from '../support/findings.ts';

const ROOT = join(import.meta.dirname, '../..');

function scenarioC(edit?: (mapRoles: string) => string): ClusterSnapshot {
  const raw = JSON.parse(readFileSync(join(ROOT, 'scenarios/c-yaml-slip-in-maproles.json'), 'utf8'));
  if (edit) raw.awsAuth.data.data.mapRoles = edit(raw.awsAuth.data.data.mapRoles);
  const valid = validateSnapshot(raw);
  if (!valid.ok) throw new Error('scenario c does not validate');
  return valid.snapshot;
}

function parseFailure(snapshot: ClusterSnapshot): Finding {
  const f = assessSnapshot(snapshot, { trigger: 'manual' }).find(
    (x) => x.ruleId === 'aws-auth/parse-failure',
  );
  if (f === undefined) throw new Error('no parse failure');
  return f;
}

const flat = (s: string) => s.replace(/\s+/g, ' ');
const BROKEN = 'mapRoles line 13: username: "developer:{{SessionName}}';

describe('aws-auth/parse-failure shows the broken line and the last writer', () => {
  it('names the unclosed line (not the blank end the parser points at) and kubectl-edit', () => {
    const f = parseFailure(scenarioC());
    expect(f.evidence.brokenLines).toEqual([{ line: 13, text: '  username: "developer:{{SessionName}}' }]);
    expect(f.actor).toEqual({
      source: 'managedFields',
      manager: 'kubectl-edit',
      operation: 'Update',
      time: '2026-11-20T09:52:10Z',
    });
    const notices: Notice[] = [{ kind: 'opened', finding: f, at: '2026-11-20T10:00:00Z' }];
    const outputs = {
      text: renderText([f]),
      markdown: renderMarkdown([f]),
      slack: renderSlackMessages(notices)
        .flatMap((m) => JSON.stringify(m.payload))
        .join(''),
      sns: (JSON.parse(renderSnsMessage(notices).message) as { default: string }).default,
    };
    for (const [name, out] of Object.entries(outputs)) {
      const shown = flat(name === 'slack' ? out.replace(/\\"/g, '"') : out);
      expect(shown, name).toContain(BROKEN);
      expect(shown, name).toContain('kubectl-edit (Update at 2026-11-20T09:52:10Z)');
    }
  });

  it('cuts a long broken line at 200 characters and keeps control characters out', () => {
    const f = parseFailure(scenarioC((m) => m.replace('{{SessionName}}', `\u001b[2J${'x'.repeat(400)}`)));
    const [broken] = f.evidence.brokenLines as { line: number; text: string }[];
    expect(broken?.text.length).toBe(201);
    expect(broken?.text.endsWith('…')).toBe(true);
    const text = renderText([f]);
    expect(text).not.toContain('\u001b');
    expect(flat(text)).toContain('username: "developer:[2Jxxx');
  });
});

describe('one message shows the most severe notice first', () => {
  const notice = (severity: Finding['severity'], title: string, kind: Notice['kind'] = 'opened'): Notice => ({
    kind,
    at: '2026-11-20T10:00:00Z',
    finding: createFinding({ severity, title, subject: title, fingerprint: title }),
  });
  const given = [
    notice('low', 'low-one'),
    notice('critical', 'critical-one', 'resolved'),
    notice('high', 'high-one'),
    notice('critical', 'critical-two'),
    notice('medium', 'medium-one'),
  ];
  const expected = ['critical-two', 'high-one', 'medium-one', 'low-one', 'critical-one'];

  it('in Slack: CRITICAL before HIGH before MEDIUM before LOW, resolved last; indexes still refer to the input', () => {
    const [message, ...more] = renderSlackMessages(given);
    expect(more).toEqual([]);
    const headers = (message?.payload.blocks ?? [])
      .filter((b) => b.type === 'header')
      .map((b) => JSON.stringify(b));
    const order = expected.map((t) => headers.findIndex((h) => h.includes(t)));
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(message?.notices.map((i) => given[i]?.finding.title)).toEqual(expected);
  });

  it('in SNS: the same order in the e-mail text', () => {
    const text = (JSON.parse(renderSnsMessage(given).message) as { default: string }).default;
    const positions = expected.map((t) => text.indexOf(t));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });
});
