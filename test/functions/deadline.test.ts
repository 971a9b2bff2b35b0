/**
 * The invocation's one deadline (functions/lib/deadline.ts): `getRemainingTimeInMillis()` read
 * once, placed on the injected clock, and what is left measured by that clock.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type DeadlineContext, deadline } from '../../functions/lib/deadline.ts';
import { createFakeClock } from '../support/monitor.ts';

describe('the deadline middleware', () => {
  it('puts the deadline on the context, on the injected clock, read once', async () => {
    const clock = createFakeClock('2026-11-29T12:00:00.000Z');
    let remaining = 30_000;
    const seen: number[] = [];
    const handler = middy(async (_event: unknown, context: Context) => {
      const { deadline: d } = context as DeadlineContext;
      // the context's own figure changes; the deadline does not read it again
      remaining = 1;
      seen.push(d.at, d.totalMs, d.leftMs());
      clock.advance(12_000);
      seen.push(d.leftMs());
      clock.advance(60_000);
      seen.push(d.leftMs());
    }).use(deadline(() => clock));
    await handler({}, { getRemainingTimeInMillis: () => remaining } as unknown as Context);
    const start = Date.parse('2026-11-29T12:00:00.000Z');
    expect(seen).toEqual([start + 30_000, 30_000, 30_000, 18_000, 0]);
  });
});
