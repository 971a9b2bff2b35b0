/**
 * One deadline per invocation, from one signal: `context.getRemainingTimeInMillis()` read once
 * when the invocation starts, placed on the injected clock's time line, so that every budget
 * after it (what a capture may take, whether an item still starts, the claims' expiry) is the
 * same instant seen through the same clock the stores and readers use.
 *
 * A Middy middleware like @middy/core's own timeout handling (which only aborts): `before`
 * puts the deadline on the context for the handler. Local rather than a package: what the
 * handlers need is the deadline on the injected clock, which no published middleware gives.
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Clock } from '../../shared/ports.ts';

export interface InvocationDeadline {
  /** The deadline, in ms on the clock's time line. */
  at: number;
  /** What the invocation had when it started. */
  totalMs: number;
  /** What is left now, by the clock (never below 0). */
  leftMs(): number;
}

/** The deadline of an invocation whose context says `getRemainingTimeInMillis()` now. */
export function invocationDeadline(
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  clock: Clock,
): InvocationDeadline {
  // Fractions of a millisecond are fine: the readers round their deadline (`callAws`).
  const totalMs = Math.max(0, context.getRemainingTimeInMillis());
  const at = clock.now().getTime() + totalMs;
  return { at, totalMs, leftMs: () => Math.max(0, at - clock.now().getTime()) };
}

/** The context a handler behind `deadline()` gets. */
export type DeadlineContext = Context & { deadline: InvocationDeadline };

/** Puts the invocation's deadline on the context (`context.deadline`); `clock` is read per invocation. */
export function deadline<E, R>(clock: () => Clock): middy.MiddlewareObj<E, R, Error, Context> {
  return {
    name: 'deadline',
    before: (request) => {
      (request.context as DeadlineContext).deadline = invocationDeadline(request.context, clock());
    },
  };
}
