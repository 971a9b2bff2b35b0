/**
 * The audit subscription parser never throws and its output is bounded by its input, whatever
 * the payload: arbitrary JSON, audit Events with fields of any type, messages cut anywhere.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAuditEvent, parseAuditSubscription } from '../../shared/core/events/index.ts';
import { REPO_ROOT } from '../support/fake-io.ts';

const base = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/audit/aws-auth-update.json'), 'utf8'));

/** The fixture with some top-level and nested fields replaced by arbitrary JSON. */
const mutatedEvent = fc
  .record({
    top: fc.dictionary(
      fc.constantFrom(
        'verb',
        'stage',
        'user',
        'objectRef',
        'responseStatus',
        'responseObject',
        'annotations',
        'auditID',
        'sourceIPs',
        'userAgent',
        'kind',
      ),
      fc.jsonValue(),
      { maxKeys: 4 },
    ),
    extra: fc.option(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 })),
  })
  .map(({ top, extra }) => {
    const e = structuredClone(base);
    Object.assign(e, top);
    if (extra !== null && typeof e.user === 'object' && e.user !== null) e.user.extra = extra;
    return e;
  });

const logEventMessage = fc.oneof(
  mutatedEvent.map((e) => JSON.stringify(e)),
  fc.tuple(mutatedEvent, fc.nat()).map(([e, n]) => {
    const text = JSON.stringify(e);
    return text.slice(0, n % (text.length + 1));
  }),
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
);

const payload = fc.oneof(
  fc.record({
    messageType: fc.constantFrom('DATA_MESSAGE', 'CONTROL_MESSAGE', 'X'),
    logGroup: fc.oneof(fc.constant('/aws/eks/prod/cluster'), fc.string()),
    logEvents: fc.array(
      fc.oneof(
        fc.record({
          id: fc.string(),
          timestamp: fc.oneof(fc.integer(), fc.double()),
          message: logEventMessage,
        }),
        fc.jsonValue(),
      ),
      { maxLength: 8 },
    ),
  }),
  fc.jsonValue(),
);

describe('parseAuditSubscription (property)', () => {
  it('never throws; at most one change per log event (plus one for an overflow); reasons stay short', () => {
    fc.assert(
      fc.property(payload, (p) => {
        const parsed = parseAuditSubscription(p);
        if (parsed.kind === 'ignored') {
          expect(parsed.reason.length).toBeLessThan(400);
          return;
        }
        const events = (p as { logEvents: unknown[] }).logEvents;
        expect(parsed.changes.length + parsed.ignored.length).toBeLessThanOrEqual(events.length + 1);
        for (const c of parsed.changes) {
          expect(c.cluster).toBe('prod');
          if (c.observed.kind === 'read-fresh') expect(c.observed.reason.length).toBeLessThan(400);
          for (const v of Object.values(c.actor ?? {})) expect(String(v).length).toBeLessThanOrEqual(512);
        }
        for (const i of parsed.ignored) expect(i.reason.length).toBeLessThan(400);
      }),
      { numRuns: 2000 },
    );
  });

  it('a change carries an object only from a successful update or patch that is not truncated', () => {
    fc.assert(
      fc.property(mutatedEvent, (e) => {
        const parsed = parseAuditEvent(e, 'prod');
        if (parsed.kind !== 'change' || parsed.change.observed.kind !== 'object') return;
        expect(['update', 'patch']).toContain(e.verb);
        expect(e.responseStatus.code).toBeLessThan(400);
        expect(e.annotations?.['audit.k8s.io/truncated']).not.toBe('true');
        expect(e.responseObject.metadata.name).toBe('aws-auth');
      }),
      { numRuns: 2000 },
    );
  });
});
