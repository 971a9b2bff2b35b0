/** What every function's wiring shares, without importing any adapter (keeps bundles apart). */
import type { AwsClientOptions } from '../../shared/adapters/aws-clients.ts';
import { SentinelError } from '../../shared/errors.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export class WiringError extends SentinelError {
  override readonly name = 'WiringError';
  readonly code = 'invalid-environment';
}

/** The Region the function runs in (Lambda sets AWS_REGION). */
export function homeRegion(env: Env): string {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (region === undefined || region === '') throw new WiringError('AWS_REGION is not set');
  return region;
}

/** SDK options shared by every client of a function: retries bounded well within the Lambda timeout. */
export function clientOptions(): AwsClientOptions {
  return { maxAttempts: 4, requestTimeoutMs: 5_000, callBudgetMs: 20_000 };
}

/** Account ID from the invoked function's ARN (`arn:aws:lambda:<region>:<account>:function:<name>`). */
export function accountOfFunctionArn(arn: string | undefined): string {
  const account = /^arn:[^:]+:lambda:[^:]*:(\d{12}):/.exec(arn ?? '')?.[1];
  if (account === undefined) {
    throw new WiringError(`cannot read the account ID from the function ARN ${arn ?? '(none)'}`);
  }
  return account;
}

/** The account ID of the function ARN, or undefined (`serverless invoke local` passes no ARN). */
export function tryAccountOfFunctionArn(arn: string | undefined): string | undefined {
  return /^arn:[^:]+:lambda:[^:]*:(\d{12}):/.exec(arn ?? '')?.[1];
}
