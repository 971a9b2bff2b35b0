import { describe, expect, it, vi } from 'vitest';
import { callAws, DeadlineExceededError } from '../../shared/adapters/aws-clients.ts';
import { toAwsApiError } from '../../shared/adapters/errors.ts';
import { retryWithBackoff } from '../../shared/adapters/retry.ts';
import { mapLimit } from '../../shared/core/concurrency.ts';
import { AwsApiError, redactSecrets, safeErrorMessage } from '../../shared/errors.ts';

describe('toAwsApiError', () => {
  it('names cluster, operation and the missing IAM action on AccessDenied', () => {
    const sdkError = Object.assign(new Error('User is not authorized to perform: eks:ListAccessEntries'), {
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 403 },
    });
    const error = toAwsApiError(sdkError, {
      service: 'eks',
      operation: 'ListAccessEntries',
      cluster: 'prod',
    });
    expect(error).toBeInstanceOf(AwsApiError);
    expect(error).toMatchObject({
      name: 'AwsApiError',
      code: 'forbidden',
      cluster: 'prod',
      iamAction: 'eks:ListAccessEntries',
    });
    expect(error.message).toContain('prod');
    expect(error.message).toContain('eks:ListAccessEntries');
    expect(error.cause).toBe(sdkError);
  });

  it.each([
    ['ThrottlingException', 429, 'throttled'],
    ['RequestLimitExceeded', 503, 'throttled'],
    ['UnrecognizedClientException', 403, 'unauthorized'],
    ['ResourceNotFoundException', 404, 'not-found'],
    ['NoSuchEntity', 404, 'not-found'],
    ['ServerException', 500, 'unavailable'],
    ['TimeoutError', undefined, 'timeout'],
    ['InvalidParameterException', 400, 'invalid-response'],
  ] as const)('maps %s (HTTP %s) to %s', (name, status, code) => {
    const sdkError = Object.assign(new Error('x'), {
      name,
      ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } }),
    });
    expect(toAwsApiError(sdkError, { service: 'eks', operation: 'DescribeCluster', cluster: 'c' }).code).toBe(
      code,
    );
  });
});

describe('redactSecrets', () => {
  it('removes EKS tokens, bearer headers and presigned-URL credentials', () => {
    const text = redactSecrets(
      'Authorization: Bearer k8s-aws-v1.aHR0cHM6Ly9zdHM after https://sts?X-Amz-Credential=AKID%2F&X-Amz-Signature=abc123&X-Amz-Security-Token=tok',
    );
    expect(text).not.toMatch(/aHR0cHM6Ly9zdHM|AKID|abc123|tok$/);
    expect(safeErrorMessage(new Error('k8s-aws-v1.abcDEF_-'))).toBe('Error: k8s-aws-v1.<redacted>');
  });
});

describe('mapLimit', () => {
  it('keeps input order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const result = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, n));
      running--;
      return n * 10;
    });
    expect(result).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });

  it('stops starting new items after the first failure and rethrows it', async () => {
    const started: number[] = [];
    await expect(
      mapLimit([1, 2, 3, 4, 5, 6], 2, async (n) => {
        started.push(n);
        if (n === 2) throw new Error('boom');
        await new Promise((r) => setTimeout(r, 5));
        return n;
      }),
    ).rejects.toThrow('boom');
    expect(started.length).toBeLessThan(6);
  });
});

describe('retryWithBackoff', () => {
  const base = { maxAttempts: 4, budgetMs: 10_000, baseDelayMs: 100, maxDelayMs: 1000, random: () => 1 };

  it('retries retryable errors with growing waits until success', async () => {
    const waits: number[] = [];
    let calls = 0;
    const value = await retryWithBackoff(
      async () => {
        calls++;
        if (calls < 3) throw new Error('429');
        return 'ok';
      },
      { ...base, isRetryable: () => true, sleep: async (ms) => void waits.push(ms) },
    );
    expect(value).toBe('ok');
    expect(waits).toEqual([100, 200]);
  });

  it('does not retry a non-retryable error, and gives up when the budget would be exceeded', async () => {
    let calls = 0;
    await expect(
      retryWithBackoff(
        async () => {
          calls++;
          throw new Error('403');
        },
        { ...base, isRetryable: () => false },
      ),
    ).rejects.toThrow('403');
    expect(calls).toBe(1);
    let now = 0;
    let attempts = 0;
    await expect(
      retryWithBackoff(
        async () => {
          attempts++;
          throw new Error('503');
        },
        {
          ...base,
          budgetMs: 250,
          isRetryable: () => true,
          now: () => now,
          sleep: async (ms) => {
            now += ms;
          },
        },
      ),
    ).rejects.toThrow('503');
    expect(attempts).toBe(2); // 100 ms wait fits, the next 200 ms would end at 300 > 250
  });
});

describe('callAws and a deadline the event loop reaches late', () => {
  it('sends no further round once the clock has passed the deadline, though the pause timer ran first', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), {
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 429 },
    });
    const aws = { callBudgetMs: 10_000, throttle: { budgetMs: 60_000, baseDelayMs: 50, maxDelayMs: 50 } };
    const sent: number[] = [];
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.99); // a 49 ms pause
    try {
      const deadline = Date.now() + 100;
      const call = callAws(
        aws,
        { service: 'iam', operation: 'GetRole' },
        async () => {
          sent.push(Date.now());
          throw throttled;
        },
        deadline,
      ).catch((e: unknown) => e);
      await new Promise((r) => setImmediate(r)); // the first round failed; the 49 ms pause is waiting
      // A loaded machine: the loop is busy past the deadline, so the pause's timer (due first)
      // and the deadline's run in the same turn, the pause's first.
      const busyUntil = deadline + 50;
      while (Date.now() < busyUntil);
      const error = await call;
      expect(error).toBeInstanceOf(DeadlineExceededError);
      expect(error).toMatchObject({ code: 'throttled', operation: 'GetRole' });
      expect(sent).toHaveLength(1);
    } finally {
      random.mockRestore();
    }
  });
});
