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
 * which bounds the retries as a whole.
 */
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
  /** Total time budget of one call including all retries, ms. Default 30 000. */
  callBudgetMs?: number;
}

/** One SDK client with its Region and per-call time budget. */
export interface AwsClient<C> {
  region: string;
  client: C;
  /** Total time budget per call, to pass to `send` through `budgetOptions`. */
  callBudgetMs: number;
}

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_CALL_BUDGET_MS = 30_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** Constructor options of any SDK v3 client: Region, retry, timeouts, credentials, endpoint. */
export function sdkClientConfig(region: string, options: AwsClientOptions, endpoint: string | undefined) {
  return {
    region,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    retryMode: options.retryMode ?? 'adaptive',
    requestHandler: {
      requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      connectionTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
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
export function budgetOptions(budgetMs: number): { abortSignal: AbortSignal } {
  return { abortSignal: AbortSignal.timeout(budgetMs) };
}
