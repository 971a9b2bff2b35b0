/**
 * Bounded concurrency for the use cases and the adapters (pure: no timer, no clock, no I/O).
 *
 * Why no library: `p-limit`/`p-map` are ESM-only one-function packages; what we need is ~30 lines
 * with exactly the semantics below (fail fast, stop launching after the first failure).
 */

/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep input order.
 * Fails fast: after the first rejection no further item is started, and the first error is
 * thrown once the calls already in flight have finished (nothing keeps running in the background).
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
