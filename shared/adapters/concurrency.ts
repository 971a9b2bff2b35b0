/**
 * Bounded concurrency and retry with backoff for the collection adapters.
 *
 * Why no library: `p-limit`/`p-map` are ESM-only one-function packages and `p-retry` pulls in
 * more; what we need is ~40 lines with exactly the semantics below (fail fast, stop launching
 * after the first failure, a time budget), and the house rule is no new dependency without need.
 */

/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep input order.
 * Fails fast: after the first rejection no further item is started, and the first error is
 * thrown once the calls already in flight have settled (nothing keeps running in the background).
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`mapLimit: limit must be ≥ 1, got ${limit}`);
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  let firstError: unknown;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        if (!failed) {
          failed = true;
          firstError = error;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed) throw firstError;
  return results;
}

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
