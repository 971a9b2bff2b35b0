/**
 * `whatif --event` with the Kubernetes audit log: a subscription event as Lambda receives it, its
 * decoded message, or one audit Event; the JSON output names the writer (`actor`), as it does for
 * a CloudTrail record.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { subscriptionPayload } from '../../infra/sandbox/kube-audit.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { createFakeIo, deleteNodegroupEvent, REPO_ROOT } from '../support/fake-io.ts';

const SCENARIO = 'scenarios/a-two-nodegroups-share-role.json';
const NODE_ROLE = 'arn:aws:iam::111122223333:role/prod-node-role';

/** The fixture update, its new object = the scenario's aws-auth without the node role's entry. */
// biome-ignore lint/suspicious/noExplicitAny: an audit Event edited per case
function auditEvent(): any {
  const event = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/audit/aws-auth-update.json'), 'utf8'));
  const snapshot = JSON.parse(readFileSync(join(REPO_ROOT, SCENARIO), 'utf8'));
  const mapRoles: string = snapshot.awsAuth.data.data.mapRoles;
  event.responseObject.data = {
    mapRoles: mapRoles
      .split(/\n(?=- )/)
      .filter((e) => !e.includes('prod-node-role'))
      .join('\n'),
  };
  event.responseObject.metadata.resourceVersion = '51878';
  return event;
}

function message(events: unknown[], cluster = 'prod') {
  return {
    messageType: 'DATA_MESSAGE',
    owner: '111122223333',
    logGroup: `/aws/eks/${cluster}/cluster`,
    logStream: 'kube-apiserver-audit-0123456789abcdef0123456789abcdef',
    subscriptionFilters: ['eks-auth-sentinel-aws-auth'],
    logEvents: events.map((e, i) => ({
      id: String(i).padStart(56, '0'),
      timestamp: 1,
      message: JSON.stringify(e),
    })),
  };
}

async function whatif(input: unknown): Promise<{ code: number; out: string; err: string }> {
  const fake = createFakeIo({ 'event.json': JSON.stringify(input) });
  const code = await runCli(
    ['whatif', '--snapshot', SCENARIO, '--event', 'event.json', '--format', 'json'],
    fake.io,
  );
  return { code, out: fake.out(), err: fake.err() };
}

describe('whatif --event with audit events', () => {
  it.each([
    ['one audit Event', () => auditEvent()],
    ['a decoded subscription message', () => message([auditEvent()])],
    [
      'a subscription event as Lambda receives it',
      () => subscriptionPayload(message([auditEvent()]) as never),
    ],
  ])('%s: the removed node role is found, and the writer is named', async (_name, input) => {
    const r = await whatif(input());
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.actor).toMatchObject({ source: 'audit', sessionName: 'jane.doe', roleName: 'Admin' });
    const removed = report.findings.find((f: { ruleId: string }) => f.ruleId === 'aws-auth/entry-removed');
    expect(removed.subject).toBe(NODE_ROLE);
  });

  it('an event without an object (a create) is no guess: ignored, saying to take a fresh snapshot', async () => {
    const event = auditEvent();
    event.verb = 'create';
    delete event.responseObject;
    const r = await whatif(event);
    expect(r.code).toBe(0);
    expect(r.out).toContain('fresh snapshot');
  });

  it('the audit log of another cluster is a usage error naming both', async () => {
    const r = await whatif(message([auditEvent()], 'staging'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('the audit log is of cluster staging, the snapshot is of cluster prod');
  });

  it('a CloudTrail record still works and its JSON names the actor too', async () => {
    const event = deleteNodegroupEvent();
    (event.detail as Record<string, unknown>).userIdentity = {
      type: 'AssumedRole',
      arn: 'arn:aws:sts::111122223333:assumed-role/Admin/jane.doe',
    };
    const fake = createFakeIo({ 'event.json': JSON.stringify(event) });
    const code = await runCli(
      [
        'whatif',
        '--snapshot',
        'scenarios/a-karpenter-shares-last-nodegroup-role.json',
        '--event',
        'event.json',
        '--format',
        'json',
      ],
      fake.io,
    );
    expect(code).toBe(1);
    expect(JSON.parse(fake.out()).actor).toMatchObject({ source: 'cloudtrail', sessionName: 'jane.doe' });
  });
});
