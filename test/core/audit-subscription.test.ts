import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  actorOfAuditEvent,
  clusterOfLogGroup,
  parseAuditEvent,
  parseAuditSubscription,
} from '../../shared/core/events/index.ts';
import { REPO_ROOT } from '../support/fake-io.ts';

// biome-ignore lint/suspicious/noExplicitAny: an audit Event edited per case
function event(): any {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/audit/aws-auth-update.json'), 'utf8'));
}

function message(events: unknown[], logGroup = '/aws/eks/prod/cluster'): Record<string, unknown> {
  return {
    messageType: 'DATA_MESSAGE',
    owner: '111122223333',
    logGroup,
    logStream: 'kube-apiserver-audit-0123456789abcdef0123456789abcdef',
    subscriptionFilters: ['eks-auth-sentinel-aws-auth'],
    logEvents: events.map((e, i) => ({
      id: String(i).padStart(56, '0'),
      timestamp: 1772446503131,
      message: typeof e === 'string' ? e : JSON.stringify(e),
    })),
  };
}

describe('parseAuditEvent', () => {
  it('an update carries the new object, its resourceVersion and the writer', () => {
    const parsed = parseAuditEvent(event(), 'prod');
    expect(parsed.kind).toBe('change');
    if (parsed.kind !== 'change') return;
    const { change } = parsed;
    expect(change.auditId).toBe('0f4e2c9a-6b1d-4c3e-9a55-2f7d8e1b3c40');
    expect(change.verb).toBe('update');
    expect(change.time).toBe('2026-03-02T10:15:03.131077Z');
    expect(change.observed.kind).toBe('object');
    if (change.observed.kind !== 'object') return;
    expect(change.observed.configMap.resourceVersion).toBe('1234');
    expect(change.observed.configMap.data.mapRoles).toContain('role/eks-node');
    expect(change.actor).toEqual({
      source: 'audit',
      arn: 'arn:aws:sts::111122223333:assumed-role/Admin/jane.doe',
      canonicalArn: 'arn:aws:iam::111122223333:role/Admin',
      principalId: 'AROAEXAMPLEROLEID',
      sessionName: 'jane.doe',
      roleName: 'Admin',
      username: 'arn:aws:sts::111122223333:assumed-role/Admin/jane.doe',
      userAgent: 'kubectl/v1.31.2 (linux/amd64) kubernetes/5864a46',
      sourceIp: '203.0.113.7',
      time: '2026-03-02T10:15:03.131077Z',
      eventId: '0f4e2c9a-6b1d-4c3e-9a55-2f7d8e1b3c40',
    });
  });

  it('a patch with its responseObject carries the object', () => {
    const e = event();
    e.verb = 'patch';
    e.requestObject = { data: { mapUsers: '[]' } };
    const parsed = parseAuditEvent(e, 'prod');
    expect(parsed.kind === 'change' && parsed.change.observed.kind).toBe('object');
  });

  it.each([
    [
      'a create (logged at Metadata)',
      (e: ReturnType<typeof event>) => {
        e.verb = 'create';
        e.level = 'Metadata';
        delete e.requestObject;
        delete e.responseObject;
        e.responseStatus.code = 201;
      },
      'create',
    ],
    [
      'a delete',
      (e: ReturnType<typeof event>) => {
        e.verb = 'delete';
        e.responseObject = { kind: 'Status', apiVersion: 'v1', status: 'Success' };
      },
      'delete',
    ],
    [
      'a truncated update',
      (e: ReturnType<typeof event>) => {
        e.annotations['audit.k8s.io/truncated'] = 'true';
      },
      'truncated',
    ],
    [
      'a patch without a body',
      (e: ReturnType<typeof event>) => {
        e.verb = 'patch';
        delete e.requestObject;
        delete e.responseObject;
      },
      'no responseObject',
    ],
    [
      'an update whose responseObject is not the ConfigMap',
      (e: ReturnType<typeof event>) => {
        e.responseObject.data.mapRoles = 42;
      },
      'not the aws-auth ConfigMap',
    ],
  ])('%s asks for a fresh read, never a guessed object', (_name, edit, reason) => {
    const e = event();
    edit(e);
    const parsed = parseAuditEvent(e, 'prod');
    expect(parsed.kind).toBe('change');
    if (parsed.kind !== 'change') return;
    expect(parsed.change.observed).toEqual({ kind: 'read-fresh', reason: expect.stringContaining(reason) });
    // The writer is still known.
    expect(parsed.change.actor?.sessionName).toBe('jane.doe');
  });

  it.each([
    [
      'a denied write',
      (e: ReturnType<typeof event>) => {
        e.responseStatus = { metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403 };
      },
      'failed (HTTP 403)',
    ],
    [
      'a conflict',
      (e: ReturnType<typeof event>) => {
        e.responseStatus.code = 409;
      },
      'failed (HTTP 409)',
    ],
    [
      'another ConfigMap',
      (e: ReturnType<typeof event>) => {
        e.objectRef.name = 'coredns';
      },
      'not kube-system/aws-auth',
    ],
    [
      'aws-auth in another namespace',
      (e: ReturnType<typeof event>) => {
        e.objectRef.namespace = 'default';
      },
      'not kube-system/aws-auth',
    ],
    [
      'a read',
      (e: ReturnType<typeof event>) => {
        e.verb = 'get';
      },
      'writes nothing',
    ],
    [
      'stage ResponseStarted',
      (e: ReturnType<typeof event>) => {
        e.stage = 'ResponseStarted';
      },
      'not ResponseComplete',
    ],
    [
      'an event without a status',
      (e: ReturnType<typeof event>) => {
        delete e.responseStatus;
      },
      'no responseStatus.code',
    ],
  ])('%s is not a change', (_name, edit, reason) => {
    const e = event();
    edit(e);
    expect(parseAuditEvent(e, 'prod')).toEqual({ kind: 'ignored', reason: expect.stringContaining(reason) });
  });

  it("EKS's own edit names its Kubernetes user when there is no IAM ARN", () => {
    const e = event();
    e.user = { username: 'eks:node-manager', groups: ['system:authenticated'] };
    e.userAgent = 'eks/sandbox';
    expect(actorOfAuditEvent(e)).toMatchObject({ source: 'audit', username: 'eks:node-manager' });
    expect(actorOfAuditEvent(e)?.arn).toBeUndefined();
  });
});

describe('parseAuditSubscription', () => {
  it('names the cluster from the log group and reads each log event', () => {
    const create = event();
    create.auditID = 'b';
    create.verb = 'create';
    delete create.responseObject;
    const parsed = parseAuditSubscription(message([event(), create]));
    expect(parsed.kind).toBe('changes');
    if (parsed.kind !== 'changes') return;
    expect(parsed.cluster).toBe('prod');
    expect(parsed.changes.map((c) => [c.auditId, c.observed.kind])).toEqual([
      ['0f4e2c9a-6b1d-4c3e-9a55-2f7d8e1b3c40', 'object'],
      ['b', 'read-fresh'],
    ]);
  });

  it('a message cut short asks for a fresh read of that cluster', () => {
    const text = JSON.stringify(event());
    const parsed = parseAuditSubscription(message([text.slice(0, 300)]));
    expect(parsed.kind === 'changes' && parsed.changes).toEqual([
      expect.objectContaining({ cluster: 'prod', observed: expect.objectContaining({ kind: 'read-fresh' }) }),
    ]);
  });

  it('a log group that is not an EKS cluster log group is ignored with a reason', () => {
    expect(parseAuditSubscription(message([event()], '/aws/lambda/x'))).toEqual({
      kind: 'ignored',
      reason: expect.stringContaining('not an EKS cluster'),
    });
  });

  it('a control message is ignored', () => {
    expect(parseAuditSubscription({ messageType: 'CONTROL_MESSAGE', logEvents: [] }).kind).toBe('ignored');
  });

  it('the same auditID twice in one payload is one change', () => {
    const parsed = parseAuditSubscription(message([event(), event()]));
    expect(parsed.kind === 'changes' && parsed.changes.length).toBe(1);
  });

  it('clusterOfLogGroup reads only /aws/eks/<name>/cluster', () => {
    expect(clusterOfLogGroup('/aws/eks/my-cluster_1/cluster')).toBe('my-cluster_1');
    expect(clusterOfLogGroup('/aws/eks/a/b/cluster')).toBeUndefined();
    expect(clusterOfLogGroup('/aws/eks/../cluster')).toBeUndefined();
  });
});
