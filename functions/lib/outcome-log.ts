/**
 * The one summary line per invocation (or per SQS item): on success `done` with the result's
 * fields and `durationMs`; on failure `failed` (level error) with the error's safe fields and
 * `durationMs`, and the error rethrown — a handler never swallows an error and reports success.
 *
 * `outcomeLog` is the Middy middleware; use it after `injectLambdaContext` so that the line is
 * written before the context keys are reset. `logOutcome` is the same line around one item of a
 * batch (the snapshot worker logs one line per SQS message).
 */
import type middy from '@middy/core';
import { errorFields, logger } from './runtime.ts';

export interface OutcomeLog<R> {
  /** Message of the success line (`eks event handled`). */
  done: string;
  /** Message of the failure line (`eks event failed`). */
  failed: string;
  /** Fields of the success line, before `durationMs`. */
  fields?: (result: R) => Record<string, unknown>;
  /** Level of the success line (default `info`). */
  level?: (result: R) => 'info' | 'warn';
}

function logDone<R>(spec: OutcomeLog<R>, result: R, started: number): void {
  logger[spec.level?.(result) ?? 'info'](spec.done, {
    ...spec.fields?.(result),
    durationMs: Date.now() - started,
  });
}

function logFailed(
  message: string,
  error: unknown,
  started: number,
  context: Record<string, unknown> = {},
): void {
  logger.error(message, { ...context, ...errorFields(error), durationMs: Date.now() - started });
}

/** Runs `run` and logs its outcome line; `context` leads the failure line (e.g. the SQS message ID). */
export async function logOutcome<R>(
  spec: OutcomeLog<R>,
  run: () => Promise<R>,
  context?: Record<string, unknown>,
): Promise<R> {
  const started = Date.now();
  try {
    const result = await run();
    logDone(spec, result, started);
    return result;
  } catch (error) {
    logFailed(spec.failed, error, started, context);
    throw error;
  }
}

/** The Middy middleware: the outcome line of the whole invocation. */
export function outcomeLog<E, R>(spec: OutcomeLog<R>): middy.MiddlewareObj<E, R> {
  const started = new WeakMap<object, number>();
  return {
    name: 'outcomeLog',
    before: (request) => {
      started.set(request, Date.now());
    },
    after: (request) => {
      logDone(spec, request.response as R, started.get(request) ?? Date.now());
    },
    // Logs only: with no response set, Middy rethrows the error after the onError stack.
    onError: (request) => {
      logFailed(spec.failed, request.error, started.get(request) ?? Date.now());
    },
  };
}
