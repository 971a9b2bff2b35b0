import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { subscriptionPayload } from '../../infra/sandbox/kube-audit.ts';
import {
  decodeSubscriptionEvent,
  MAX_DECODED_BYTES,
  SubscriptionPayloadError,
} from '../../shared/adapters/logs-subscription-payload.ts';
import { parseAuditSubscription } from '../../shared/core/events/index.ts';

describe('decodeSubscriptionEvent', () => {
  it('decodes what the sandbox delivers, which the core parser reads', () => {
    const payload = subscriptionPayload({
      owner: '111122223333',
      logGroup: '/aws/eks/prod/cluster',
      logStream: 'kube-apiserver-audit-x',
      subscriptionFilters: ['f'],
      logEvents: [],
    });
    const decoded = decodeSubscriptionEvent(payload);
    expect(parseAuditSubscription(decoded)).toEqual({
      kind: 'changes',
      cluster: 'prod',
      changes: [],
      ignored: [],
    });
  });

  it.each([
    ['no envelope', { records: [] }, 'awslogs.data is missing'],
    ['not base64', { awslogs: { data: '%%%' } }, 'not base64'],
    ['not gzip', { awslogs: { data: Buffer.from('hello').toString('base64') } }, 'not gzip'],
    ['not JSON', { awslogs: { data: gzipSync('{').toString('base64') } }, 'does not hold JSON'],
  ])('%s is a clear error', (_name, event, message) => {
    expect(() => decodeSubscriptionEvent(event)).toThrow(SubscriptionPayloadError);
    expect(() => decodeSubscriptionEvent(event)).toThrow(message);
  });

  it('a gzip bomb stops at the bound', () => {
    const bomb = gzipSync(Buffer.alloc(MAX_DECODED_BYTES + 1024, 0x20)).toString('base64');
    expect(() => decodeSubscriptionEvent({ awslogs: { data: bomb } })).toThrow(/inflates past/);
  });
});
