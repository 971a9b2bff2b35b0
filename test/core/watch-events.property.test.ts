/**
 * `watch` lines: whatever a field manager, an ARN or a title holds (newlines, ANSI escapes, bidi
 * controls, JSON), an event is exactly one line — one JSON object for NDJSON, one readable line
 * for text — and the JSON line gives the strings back unchanged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderWatchEvent, type WatchEvent } from '../../shared/core/render/index.ts';
import { createFinding, TEST_CLUSTER } from '../support/findings.ts';

const hostile = fc.oneof(
  fc.string(),
  fc.constantFrom('a\nb', 'x\r\n{"type":"end"}', '\u001b[2J\u001b[31mred', 'evil\u202eexe.txt', '\u2028line'),
);

function changeEvent(manager: string, arn: string, title: string): WatchEvent {
  return {
    type: 'change',
    at: '2026-12-02T12:00:00.000Z',
    source: 'aws-auth',
    summary: `aws-auth written at resourceVersion ${manager}`,
    resourceVersion: '42',
    actor: { source: 'managedFields', manager, operation: 'Update' },
    removed: [arn],
    added: [],
    findings: [{ notice: 'opened', finding: createFinding({ subject: arn, title }) }],
    actions: [
      {
        kind: 'restore-aws-auth-entries',
        principalArn: arn,
        dryRun: true,
        result: 'would-do',
        detail: title,
      },
    ],
  };
}

describe('renderWatchEvent', () => {
  it('writes one JSON object per line that reads back the same strings', () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, (manager, arn, title) => {
        const line = renderWatchEvent(changeEvent(manager, arn, title), 'json');
        expect(line.endsWith('\n')).toBe(true);
        expect(line.slice(0, -1)).not.toMatch(/[\n\r\u2028\u2029]/);
        const back = JSON.parse(line) as Record<string, unknown>;
        expect(back).toMatchObject({
          type: 'change',
          source: 'aws-auth',
          actor: { manager },
          removed: [arn],
          findings: [{ notice: 'opened', subject: arn, title }],
          actions: [{ principalArn: arn, detail: title }],
        });
      }),
      { numRuns: 300 },
    );
  });

  it('writes one text line without control characters', () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, (manager, arn, title) => {
        const line = renderWatchEvent(changeEvent(manager, arn, title), 'text');
        expect(line.endsWith('\n')).toBe(true);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the terminal
        expect(line.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202e]/);
      }),
      { numRuns: 300 },
    );
  });

  it('says what the ready line and the end line are about', () => {
    const ready = renderWatchEvent(
      {
        type: 'ready',
        at: 'T',
        cluster: TEST_CLUSTER,
        authenticationMode: 'CONFIG_MAP',
        resourceVersion: '7',
        remediate: 'off',
        findings: [createFinding({})],
      },
      'text',
    );
    expect(ready).toBe(
      'T ready eu-west-1/prod (CONFIG_MAP, aws-auth resourceVersion 7): 1 finding, remediation off\n',
    );
    expect(renderWatchEvent({ type: 'end', at: 'T', reason: 'duration', changes: 3 }, 'json')).toBe(
      '{"type":"end","at":"T","reason":"duration","changes":3}\n',
    );
  });
});
