/**
 * Configuration shared by the AWS SDK clients of the adapters: retry and time budget.
 * Each service module builds its own client (`createEksClient` in eks.ts, …) so that a bundle
 * that needs only EKS (the event path) never pulls in the EC2 client (~1.5 MB, ~190 ms:
 * docs/design.md#bundles-and-cold-start).
 *
 * Endpoints: the SDK itself honours `AWS_ENDPOINT_URL_EKS`, `AWS_ENDPOINT_URL_EC2`,
 * `AWS_ENDPOINT_URL_IAM` and `AWS_ENDPOINT_URL` (checked in @smithy/core
 * `submodules/endpoints`: `getEndpointUrlConfig(serviceId)` reads `AWS_ENDPOINT_URL_<SERVICE ID>`
 * then `AWS_ENDPOINT_URL`), so nothing here reads them. `endpoints` exists so that tests can point
 * clients at a sandbox without mutating `process.env`.
 *
 * Retry: the SDK's `adaptive` mode by default — `standard` retries plus a client-side rate
 * limiter that learns the service's rate from its throttling replies, shared by every call of one
 * client (so by every cluster of a Region: one EKS client per Region). Measured in
 * bench/capture.ts (20 calls/s EKS limit, ~420 EKS calls per cluster): `standard` exhausts its
 * retry quota under sustained throttling and leaves sources unread (access entries "throttled
 * after all retries"); `adaptive` reads everything at ~1.15× the throttling floor. `maxAttempts`
 * bounds the attempts; each call also gets a total time budget through an AbortSignal (`send`),
 * which bounds the SDK's retries as a whole.
 *
 * Throttling gets a longer budget than other errors (`callAws`): a call still throttled after
 * the SDK's attempts is sent again after a full-jitter wait (base 1 s, doubling, cap 20 s: the
 * SDK's own throttling numbers) until it has been throttled for `throttleBudgetMs` (default
 * 120 s) or the caller's deadline would pass. Other errors keep the SDK's `maxAttempts`. Each new
 * round passes the SDK's adaptive rate limiter again, which has learnt the lower rate from every
 * throttled reply. A deadline (`Deadline`: epoch ms or an AbortSignal) stops the retries there
 * with a `DeadlineExceededError` naming the operation and how long it was throttled.
 *
 * TLS: every client verifies certificates whatever `NODE_TLS_REJECT_UNAUTHORIZED` says (the
 * https agent is built with `rejectUnauthorized: true`); plain-http endpoints (the sandbox) are
 * unaffected.
 */
import { AwsApiError } from '../errors.ts';
import { toAwsApiError } from './errors.ts';

export interface StaticCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** Credentials or a provider of them (e.g. `defaultProvider()` of `@aws-sdk/credential-provider-node`). */
export type CredentialsInput = StaticCredentials | (() => Promise<StaticCredentials>);

export interface AwsEndpoints {
  eks?: string;
  ec2?: string;
  iam?: string;
  logs?: string;
}

export interface AwsClientOptions {
  /** Leave undefined to use the SDK's default credential chain. */
  credentials?: CredentialsInput;
  /** Explicit endpoints (tests, sandbox). Undefined: the SDK's resolution, incl. AWS_ENDPOINT_URL_*. */
  endpoints?: AwsEndpoints;
  /** SDK attempts per call, first included. Default 5. */
  maxAttempts?: number;
  /** Default `adaptive` (see above). */
  retryMode?: 'standard' | 'adaptive';
  /** Socket-level timeout of one HTTP attempt, ms. Default 10 000. */
  requestTimeoutMs?: number;
  /** Total time budget of one SDK call including the SDK's retries, ms. Default 30 000. */
  callBudgetMs?: number;
  /** How long one call may stay throttled, SDK rounds included, before it fails, ms. Default 120 000. */
  throttleBudgetMs?: number;
  /** Base of the full-jitter wait between throttled rounds, ms (doubles each round). Default 1 000. */
  throttleBaseDelayMs?: number;
  /** Longest wait between throttled rounds, ms. Default 20 000. */
  throttleMaxDelayMs?: number;
}

/** When retries must stop: epoch milliseconds, or a signal that aborts then. */
export type Deadline = number | AbortSignal;

export interface ThrottlePolicy {
  budgetMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** One SDK client with its Region and per-call time budget. */
export interface AwsClient<C> {
  region: string;
  client: C;
  /** Total time budget per call, to pass to `send` through `budgetOptions`. */
  callBudgetMs: number;
  /** Retries beyond the SDK's for throttled calls (`callAws`). */
  throttle: ThrottlePolicy;
}

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_CALL_BUDGET_MS = 30_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const DEFAULT_THROTTLE_BUDGET_MS = 120_000;
const DEFAULT_THROTTLE_BASE_DELAY_MS = 1_000;
const DEFAULT_THROTTLE_MAX_DELAY_MS = 20_000;

/** Constructor options of any SDK v3 client: Region, retry, timeouts, credentials, endpoint. */
export function sdkClientConfig(region: string, options: AwsClientOptions, endpoint: string | undefined) {
  return {
    region,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    retryMode: options.retryMode ?? 'adaptive',
    requestHandler: {
      requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      connectionTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      // Explicit, so that NODE_TLS_REJECT_UNAUTHORIZED=0 cannot turn verification off.
      httpsAgent: { rejectUnauthorized: true },
    },
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    ...(endpoint === undefined ? {} : { endpoint }),
  };
}

/** Options of a client built for one explicit endpoint (tests, local servers). */
export interface EndpointClientOptions extends AwsClientOptions {
  /** Explicit endpoint; undefined: the SDK's resolution, incl. `AWS_ENDPOINT_URL_<SERVICE>`. */
  endpoint?: string;
}

/**
 * Every adapter's client: the SDK client built with `sdkClientConfig`, with its Region and call
 * budget. `extra` carries service-specific constructor options (e.g. S3 `forcePathStyle`).
 */
export function createAwsClient<C, X extends object = Record<never, never>>(
  Client: new (config: ReturnType<typeof sdkClientConfig> & X) => C,
  region: string,
  options: AwsClientOptions,
  endpoint: string | undefined,
  extra?: X,
): AwsClient<C> {
  return {
    region,
    client: new Client({ ...sdkClientConfig(region, options, endpoint), ...(extra ?? ({} as X)) }),
    callBudgetMs: callBudgetOf(options),
    throttle: {
      budgetMs: options.throttleBudgetMs ?? DEFAULT_THROTTLE_BUDGET_MS,
      baseDelayMs: options.throttleBaseDelayMs ?? DEFAULT_THROTTLE_BASE_DELAY_MS,
      maxDelayMs: options.throttleMaxDelayMs ?? DEFAULT_THROTTLE_MAX_DELAY_MS,
    },
  };
}

export function callBudgetOf(options: AwsClientOptions): number {
  return options.callBudgetMs ?? DEFAULT_CALL_BUDGET_MS;
}

/** Memoizes a per-Region factory (the Lambda keeps clients warm across invocations). */
export function perRegion<T>(create: (region: string) => T): (region: string) => T {
  const byRegion = new Map<string, T>();
  return (region) => {
    let value = byRegion.get(region);
    if (value === undefined) {
      value = create(region);
      byRegion.set(region, value);
    }
    return value;
  };
}

/** `{ abortSignal }` for `client.send(command, …)`: the whole call, retries included, within the budget. */
export function budgetOptions(budgetMs: number, until?: AbortSignal): { abortSignal: AbortSignal } {
  const budget = AbortSignal.timeout(budgetMs);
  return { abortSignal: until === undefined ? budget : AbortSignal.any([budget, until]) };
}

// ---------------------------------------------------------------------------------------------
// Calls with a throttling budget and a deadline

/** What a call is, for its errors: `{ service: 'eks', operation: 'DescribeCluster', cluster }`. */
export interface AwsCallContext {
  service: 'eks' | 'ec2' | 'iam' | 'sts' | 'logs';
  operation: string;
  cluster?: string;
  subject?: string;
}

/**
 * The deadline won: the call was stopped there. `code` is `throttled` when the call was being
 * throttled, else `timeout`; `throttledMs` says for how long. `cause` is the last AWS error.
 */
export class DeadlineExceededError extends AwsApiError {
  override readonly name: string = 'DeadlineExceededError';
  readonly throttledMs: number;

  constructor(context: AwsCallContext, throttledMs: number, cause: unknown) {
    const where = context.cluster === undefined ? '' : ` for cluster ${context.cluster}`;
    const about = context.subject === undefined ? '' : ` (${context.subject})`;
    const what =
      throttledMs > 0
        ? `throttled for ${Math.round(throttledMs / 1000)} s, deadline reached`
        : 'deadline reached';
    super(`${context.operation}${where}${about}: ${what}`, {
      code: throttledMs > 0 ? 'throttled' : 'timeout',
      service: context.service,
      operation: context.operation,
      ...(context.cluster === undefined ? {} : { cluster: context.cluster }),
      cause,
      iamAction: `${context.service}:${context.operation}`,
    });
    this.throttledMs = throttledMs;
  }
}

export function deadlineSignal(deadline: Deadline | undefined): AbortSignal | undefined {
  if (deadline === undefined) return undefined;
  if (typeof deadline !== 'number') return deadline;
  // Whole milliseconds: `AbortSignal.timeout` throws a RangeError for a fractional delay, and a
  // deadline computed from `performance.now()` or a share of the remaining time can be one.
  return AbortSignal.timeout(Math.max(0, Math.ceil(deadline - Date.now())));
}

/** True when `deadline` is set and has passed at `at` (epoch ms). */
export function deadlinePassed(deadline: Deadline | undefined, at = Date.now()): boolean {
  if (deadline === undefined) return false;
  return typeof deadline === 'number' ? at >= deadline : deadline.aborted;
}

/** Resolves after `ms`, or early (false) when `signal` aborts. */
function wait(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One AWS call: `send` (the SDK call, given the abort signal of its budget and of the deadline),
 * re-sent while it is throttled within `aws.throttle` and the deadline; every failure becomes an
 * `AwsApiError` (`DeadlineExceededError` when the deadline stopped it).
 */
export async function callAws<O>(
  aws: Pick<AwsClient<unknown>, 'callBudgetMs' | 'throttle'>,
  context: AwsCallContext,
  send: (options: { abortSignal: AbortSignal }) => Promise<O>,
  deadline?: Deadline,
): Promise<O> {
  let throttledSince: number | undefined;
  for (let round = 0; ; round++) {
    const roundStart = Date.now();
    const atDeadline = deadlineSignal(deadline);
    const budget = AbortSignal.timeout(aws.callBudgetMs);
    try {
      return await send({
        abortSignal: atDeadline === undefined ? budget : AbortSignal.any([budget, atDeadline]),
      });
    } catch (error) {
      const now = Date.now();
      const throttledMs = throttledSince === undefined ? 0 : now - throttledSince;
      if (deadlinePassed(deadline, now)) throw new DeadlineExceededError(context, throttledMs, error);
      const failure = toAwsApiError(error, context);
      if (failure.code !== 'throttled') throw failure;
      // Counted from the start of the first throttled round: the SDK's own attempts were throttled too.
      throttledSince ??= roundStart;
      const { maxDelayMs, baseDelayMs, budgetMs } = aws.throttle;
      const pause = Math.floor(Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** round));
      if (now - throttledSince + pause > budgetMs) throw failure;
      if (typeof deadline === 'number' && now + pause >= deadline) {
        throw new DeadlineExceededError(context, now - throttledSince, failure);
      }
      // Also by the clock: when the event loop runs late, the pause's timer can run before the
      // deadline's (both overdue), and the next round would be sent after the deadline.
      if (!(await wait(pause, atDeadline)) || deadlinePassed(deadline)) {
        throw new DeadlineExceededError(context, Date.now() - throttledSince, failure);
      }
    }
  }
}
