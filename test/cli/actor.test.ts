import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/run-cli.ts';
import type { Notice } from '../../shared/core/alerts/lifecycle.ts';
import { parseEksEvent } from '../../shared/core/events/cloudtrail.ts';
import { actorOfRecord } from '../../shared/core/events/cloudtrail-actor.ts';
import { withActor } from '../../shared/core/model.ts';
import { whatIf } from '../../shared/core/predict/engine.ts';
import { renderSlackMessages } from '../../shared/core/render/slack.ts';
import { renderSnsMessage } from '../../shared/core/render/sns.ts';
import { validateSnapshot } from '../../shared/core/snapshot/snapshot-schema.ts';
import { createFakeIo, deleteNodegroupEvent, REPO_ROOT } from '../support/fake-io.ts';

const KARPENTER = 'scenarios/a-karpenter-shares-last-nodegroup-role.json';
const WHO = 'jane.doe (assumed-role Admin)';

function janeEvent(): Record<string, unknown> {
  const event = deleteNodegroupEvent();
  const detail = event.detail as Record<string, unknown>;
  detail.userIdentity = {
    type: 'AssumedRole',
    principalId: 'AROAEXAMPLE:jane.doe',
    arn: 'arn:aws:sts::111122223333:assumed-role/Admin/jane.doe',
    accountId: '111122223333',
    sessionContext: { sessionIssuer: { type: 'Role', userName: 'Admin' } },
  };
  detail.sourceIPAddress = '203.0.113.42';
  detail.userAgent = 'aws-cli/2.22.14';
  return event;
}

async function whatifOutput(format: string, event = janeEvent()): Promise<string> {
  const fake = createFakeIo({ 'event.json': JSON.stringify(event) });
  const code = await runCli(
    ['whatif', '--snapshot', KARPENTER, '--event', 'event.json', '--format', format],
    fake.io,
  );
  expect(fake.err()).toBe('');
  expect(code).toBe(1);
  return fake.out();
}

describe('the actor of a CloudTrail change', () => {
  it('is shown in text and Markdown by whatif --event', async () => {
    const text = (await whatifOutput('text')).replace(/\s+/g, ' ');
    expect(text).toMatch(
      /changed by jane\.doe \(assumed-role Admin\) from 203\.0\.113\.42 via aws-cli\/2\.22\.14/,
    );
    const markdown = await whatifOutput('markdown');
    expect(markdown).toContain(`**Changed by:** ${WHO} from 203.0.113.42 via aws-cli/2.22.14`);
  });

  it('is shown in Slack and SNS', () => {
    const parsed = parseEksEvent(janeEvent());
    if (parsed.kind !== 'change') throw new Error('reason' in parsed ? parsed.reason : parsed.kind);
    const raw = JSON.parse(readFileSync(join(REPO_ROOT, KARPENTER), 'utf8')) as unknown;
    const valid = validateSnapshot(raw);
    if (!valid.ok) throw new Error('scenario a does not validate');
    const snapshot = valid.snapshot;
    const findings = withActor(whatIf(snapshot, parsed.change, { trigger: 'whatif' }).findings, parsed.by);
    expect(findings.length).toBeGreaterThan(0);
    const notices: Notice[] = findings.map((finding) => ({
      kind: 'opened',
      finding,
      at: '2026-11-20T10:03:00Z',
    }));
    const slack = JSON.stringify(renderSlackMessages(notices));
    expect(slack).toContain('"text":"Changed by: "');
    expect(slack).toContain(`"text":"${WHO} from 203.0.113.42 via aws-cli/2.22.14"`);
    const sns = JSON.parse(renderSnsMessage(notices).message) as Record<string, string>;
    expect(sns.default?.replace(/\s+/g, ' ')).toMatch(/changed by jane\.doe \(assumed-role Admin\)/);
  });

  it('keeps no hostile characters and drops fields of the wrong type', async () => {
    const event = janeEvent();
    const detail = event.detail as Record<string, unknown>;
    detail.userIdentity = {
      type: 'AssumedRole',
      arn: 'arn:aws:sts::111122223333:assumed-role/Admin/jane\u202e\u001b[31m.doe',
    };
    detail.userAgent = 42;
    const parsed = parseEksEvent(event);
    expect(parsed.kind).toBe('change');
    expect(actorOfRecord(detail)).toEqual({
      source: 'cloudtrail',
      type: 'AssumedRole',
      arn: 'arn:aws:sts::111122223333:assumed-role/Admin/jane\u202e\u001b[31m.doe',
      sessionName: 'jane\u202e\u001b[31m.doe',
      roleName: 'Admin',
      sourceIp: '203.0.113.42',
      eventId: detail.eventID,
    });
    const text = (await whatifOutput('text', event)).replace(/\s+/g, ' ');
    expect(text).toContain('jane<U+202E>[31m.doe (assumed-role Admin)');
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u202e');
  });

  it('is absent when the record names no one', () => {
    expect(actorOfRecord({ eventName: 'DeleteNodegroup' })).toBeUndefined();
    // The event ID alone names no one (it only feeds the CloudTrail link).
    expect(actorOfRecord({ eventName: 'DeleteNodegroup', eventID: 'ev-1' })).toBeUndefined();
    expect(actorOfRecord({ userIdentity: 'nobody' })).toBeUndefined();
  });
});
