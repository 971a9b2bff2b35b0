import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseReportRequest, parseWorkItem, WorkItemError } from '../../functions/lib/handler-inputs.ts';
import { logOutcome, outcomeLog } from '../../functions/lib/outcome-log.ts';
import { logger } from '../../functions/lib/runtime.ts';
import { ReportRequestError } from '../../shared/app/errors.ts';

const item = { accountId: '111122223333', region: 'eu-west-1', clusterName: 'prod', reason: 'schedule' };
const message = (body: unknown, messageId = 'm-1') => ({
  messageId,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('parseWorkItem', () => {
  it('returns the work item of the message as written, unknown keys included', () => {
    const followUp = {
      eventId: 'e-1',
      eventName: 'DeleteNodegroup',
      change: { kind: 'delete-nodegroup', nodegroupName: 'general', nodeRole: 'arn:aws:iam::1:role/n' },
      fingerprints: ['f1'],
      attempt: 1,
    };
    const written = { ...item, reason: 'follow-up', followUp, extra: 1 };
    expect(parseWorkItem(message(written))).toEqual(written);
  });

  it('names the message that is not JSON, with the parse error as cause', () => {
    let error: unknown;
    try {
      parseWorkItem(message('{nope', 'bad-1'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WorkItemError);
    expect(error).toMatchObject({ name: 'WorkItemError', code: 'invalid-work-item' });
    expect((error as Error).message).toBe('message bad-1 is not JSON');
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it.each([
    ['a JSON value that is no object', 'null'],
    ['a missing cluster name', { ...item, clusterName: undefined }],
    ['an unknown reason', { ...item, reason: 'whenever' }],
    [
      'a follow-up without fingerprints',
      {
        ...item,
        reason: 'follow-up',
        followUp: { eventId: 'e', eventName: 'n', change: { kind: 'k' }, attempt: 1 },
      },
    ],
  ])('rejects %s', (_what, body) => {
    expect(() => parseWorkItem(message(body, 'bad-2'))).toThrow(
      new WorkItemError('message bad-2 is not a cluster work item'),
    );
  });
});

describe('parseReportRequest', () => {
  it('reads an empty payload as every cluster, fresh', () => {
    expect(parseReportRequest(undefined)).toEqual({});
    expect(parseReportRequest(null)).toEqual({});
    expect(parseReportRequest('')).toEqual({});
  });

  it('keeps the fields given', () => {
    expect(parseReportRequest({ cluster: 'prod', region: 'eu-west-1', source: 'stored' })).toEqual({
      cluster: 'prod',
      region: 'eu-west-1',
      source: 'stored',
    });
  });

  it('takes format markdown or html, nothing else', () => {
    expect(parseReportRequest({ format: 'html' })).toEqual({ format: 'html' });
    expect(() => parseReportRequest({ format: 'pdf' })).toThrow(
      'invalid report request: format must be markdown or html',
    );
  });

  it('names every problem at once, unknown fields first', () => {
    expect(() =>
      parseReportRequest({ colour: 'blue', size: 2, cluster: '', region: 'Europe', source: 'cached' }),
    ).toThrow(
      new ReportRequestError(
        'invalid report request: unknown field(s) colour, size; cluster must be a name; region must be a Region; source must be fresh or stored',
      ),
    );
    expect(() => parseReportRequest({ cluster: 7 })).toThrow(
      'invalid report request: cluster must be a name',
    );
  });

  it('rejects a payload that is no object', () => {
    for (const event of [[], 'prod', 3]) {
      expect(() => parseReportRequest(event)).toThrow(
        'expected {"cluster"?: string, "region"?: string, "source"?: "fresh" | "stored", "format"?: "markdown" | "html"}',
      );
    }
  });
});

describe('the outcome log line', () => {
  afterEach(() => vi.restoreAllMocks());
  const context = {} as Context;

  it('logs the done line with the fields and durationMs, and returns the result', async () => {
    const info = vi.spyOn(logger, 'info').mockImplementation(() => undefined);
    const handler = middy(async () => ({ outcome: 'ok', n: 2 })).use(
      outcomeLog<unknown, { outcome: string; n: number }>({
        done: 'thing done',
        failed: 'thing failed',
        fields: (r) => ({ n: r.n }),
      }),
    );
    await expect(handler({}, context)).resolves.toEqual({ outcome: 'ok', n: 2 });
    expect(info).toHaveBeenCalledTimes(1);
    expect(info.mock.calls[0]?.[0]).toBe('thing done');
    expect(info.mock.calls[0]?.[1]).toEqual({ n: 2, durationMs: expect.any(Number) });
  });

  it('logs the done line at the level asked for', async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const handler = middy(async () => 'invalid').use(
      outcomeLog<unknown, string>({ done: 'thing done', failed: 'thing failed', level: () => 'warn' }),
    );
    await handler({}, context);
    expect(warn.mock.calls[0]?.[0]).toBe('thing done');
  });

  it('logs the failure line with the safe error fields and rethrows the error itself', async () => {
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const boom = new Error('token k8s-aws-v1.c2VjcmV0 refused');
    const handler = middy(async () => {
      throw boom;
    }).use(outcomeLog({ done: 'thing done', failed: 'thing failed' }));
    await expect(handler({}, context)).rejects.toBe(boom);
    expect(error.mock.calls[0]?.[0]).toBe('thing failed');
    expect(error.mock.calls[0]?.[1]).toEqual({
      error: 'Error: token k8s-aws-v1.<redacted> refused',
      durationMs: expect.any(Number),
    });
  });

  it('logOutcome puts its context first on the failure line of one item', async () => {
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const run = logOutcome(
      { done: 'item done', failed: 'item failed' },
      () => Promise.reject(new TypeError('x')),
      {
        messageId: 'm-9',
      },
    );
    await expect(run).rejects.toBeInstanceOf(TypeError);
    expect(Object.keys(error.mock.calls[0]?.[1] as object)).toEqual(['messageId', 'error', 'durationMs']);
  });
});
