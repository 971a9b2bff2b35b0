/**
 * Retry with backoff for the collection adapters (timers and the clock: I/O-side, not core).
 * Bounded concurrency (`mapLimit`) is pure and lives in `shared/core/concurrency.ts`.
 *
 * Why no library: `p-retry` pulls in more than the ~30 lines with exactly the semantics below
 * (a time budget, Retry-After), and the house rule is no new dependency without need.
 */

export interface RetryOptions {
  /** Total attempts, first included. */
  maxAttempts: number;
  /** Give up (throw the last error) when the next wait would end after this many ms from the start. */
  budgetMs: number;
  /** Base of the exponential backoff (full jitter: wait = random · min(maxDelayMs, base · 2^attempt)). */
  baseDelayMs: number;
  maxDelayMs: number;
  isRetryable(error: unknown): boolean;
  /** Server-suggested wait (Retry-After), in ms, if any. */
  retryAfterMs?(error: unknown): number | undefined;
  sleep?(ms: number): Promise<void>;
  random?(): number;
  now?(): number;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `fn` until it succeeds, the error is not retryable, attempts run out or the budget would be exceeded. */
export async function retryWithBackoff<R>(
  fn: (attempt: number) => Promise<R>,
  options: RetryOptions,
): Promise<R> {
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const started = now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= options.maxAttempts || !options.isRetryable(error)) throw error;
      const backoff = random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
      const wait = Math.max(backoff, options.retryAfterMs?.(error) ?? 0);
      if (now() - started + wait > options.budgetMs) throw error;
      await sleep(wait);
    }
  }
}
