/**
 * AWS SDK clients for one Region, with the monitor's retry and time budget.
 *
 * Endpoints: the SDK itself honours `AWS_ENDPOINT_URL_EKS`, `AWS_ENDPOINT_URL_EC2`,
 * `AWS_ENDPOINT_URL_IAM` and `AWS_ENDPOINT_URL` (checked in @smithy/core
 * `submodules/endpoints`: `getEndpointUrlConfig(serviceId)` reads `AWS_ENDPOINT_URL_<SERVICE ID>`
 * then `AWS_ENDPOINT_URL`), so nothing here reads them. `endpoints` exists so that tests can point
 * clients at a sandbox without mutating `process.env`.
 *
 * Retry: SDK retry strategy (`standard` by default, `adaptive` adds client-side rate limiting
 * for the N+1 describe calls — facts §4.4, trap 15) with `maxAttempts`; each call also gets a
 * total time budget through an AbortSignal (`send`), which bounds the retries as a whole.
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';

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
  retryMode?: 'standard' | 'adaptive';
  /** Socket-level timeout of one HTTP attempt, ms. Default 10 000. */
  requestTimeoutMs?: number;
  /** Total time budget of one call including all retries, ms. Default 30 000. */
  callBudgetMs?: number;
}

export interface AwsClients {
  region: string;
  eks: EKSClient;
  ec2: EC2Client;
  iam: IAMClient;
  /** Total time budget per call, to pass to `send`. */
  callBudgetMs: number;
}

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_CALL_BUDGET_MS = 30_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

function commonConfig(region: string, options: AwsClientOptions, endpoint: string | undefined) {
  return {
    region,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    retryMode: options.retryMode ?? 'standard',
    requestHandler: {
      requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      connectionTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    },
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    ...(endpoint === undefined ? {} : { endpoint }),
  };
}

export function createAwsClients(region: string, options: AwsClientOptions = {}): AwsClients {
  return {
    region,
    eks: new EKSClient(commonConfig(region, options, options.endpoints?.eks)),
    ec2: new EC2Client(commonConfig(region, options, options.endpoints?.ec2)),
    iam: new IAMClient(commonConfig(region, options, options.endpoints?.iam)),
    callBudgetMs: options.callBudgetMs ?? DEFAULT_CALL_BUDGET_MS,
  };
}

/** Clients per Region, created once and reused (the Lambda keeps them warm across invocations). */
export function createAwsClientFactory(options: AwsClientOptions = {}): (region: string) => AwsClients {
  const byRegion = new Map<string, AwsClients>();
  return (region) => {
    let clients = byRegion.get(region);
    if (clients === undefined) {
      clients = createAwsClients(region, options);
      byRegion.set(region, clients);
    }
    return clients;
  };
}

/** `{ abortSignal }` for `client.send(command, …)`: the whole call, retries included, within the budget. */
export function budgetOptions(budgetMs: number): { abortSignal: AbortSignal } {
  return { abortSignal: AbortSignal.timeout(budgetMs) };
}
