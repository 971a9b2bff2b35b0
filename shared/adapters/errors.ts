/**
 * The adapters' converters from what an AWS SDK call threw to the monitor's error classes
 * (`shared/errors.ts`): `AwsApiError` for the cluster and account reads, `MonitorIoError` for the
 * monitor's own state, queue, notice and secret clients. Both classify the same way (the AWS
 * error name first, then the HTTP status, then the network error code) and name the operation
 * and, for 403, the missing IAM action.
 */
import { AwsApiError, type CollectionErrorCode, MonitorIoError, type MonitorService } from '../errors.ts';

// ---------------------------------------------------------------------------------------------
// AWS SDK errors → AwsApiError

const THROTTLING = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
]);
const FORBIDDEN = new Set([
  'AccessDeniedException',
  'AccessDenied',
  'UnauthorizedOperation',
  'UnauthorizedException',
  'Forbidden',
]);
const UNAUTHORIZED = new Set([
  'InvalidSignatureException',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'InvalidAccessKeyId',
  'AuthFailure',
  'ExpiredToken',
  'ExpiredTokenException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'CredentialsProviderError',
]);
const NOT_FOUND = new Set(['ResourceNotFoundException', 'NoSuchEntity', 'NotFoundException']);
const UNAVAILABLE = new Set([
  'ServiceUnavailableException',
  'ServiceUnavailable',
  'ServerException',
  'InternalFailure',
]);
const TIMEOUT = new Set(['TimeoutError', 'AbortError', 'RequestTimeout', 'RequestTimeoutException']);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ETIMEDOUT']);

interface SdkErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

function awsErrorCode(
  name: string,
  status: number | undefined,
  networkCode: string | undefined,
): CollectionErrorCode {
  // The error name is more precise than the status (e.g. UnrecognizedClientException is a 403).
  if (THROTTLING.has(name)) return 'throttled';
  if (UNAUTHORIZED.has(name)) return 'unauthorized';
  if (FORBIDDEN.has(name)) return 'forbidden';
  if (NOT_FOUND.has(name)) return 'not-found';
  if (TIMEOUT.has(name) || networkCode === 'ETIMEDOUT') return 'timeout';
  if (UNAVAILABLE.has(name)) return 'unavailable';
  if (status === 429) return 'throttled';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  if (status !== undefined && status >= 500) return 'unavailable';
  if (networkCode !== undefined && NETWORK.has(networkCode)) return 'unavailable';
  if (status === undefined) return 'unavailable';
  // Another 4xx, or a reply the SDK could not deserialize.
  return 'invalid-response';
}

/** What both converters read of an SDK error: its name, HTTP status, class and message. */
function readSdkError(error: unknown): {
  name: string;
  status: number | undefined;
  code: CollectionErrorCode;
  /** `failed with <name> (HTTP <status>)`. */
  failedWith: string;
  /** `: <the SDK's message>`, or empty. */
  original: string;
} {
  const e = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorLike;
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const networkCode = typeof e.code === 'string' ? e.code : undefined;
  return {
    name,
    status,
    code: awsErrorCode(name, status, networkCode),
    failedWith: `failed with ${name}${status === undefined ? '' : ` (HTTP ${status})`}`,
    original: typeof e.message === 'string' && e.message !== '' ? `: ${e.message}` : '',
  };
}

// The same converters serve the Lambda functions (the monitor's role) and the CLI (the user's own).
const WHOSE = "the monitor's role in Lambda, yours from the CLI";
const CREDENTIALS_IN_USE = `the credentials in use (${WHOSE})`;
const IDENTITY_IN_USE = `the IAM identity in use (${WHOSE})`;

/** Converts whatever an AWS SDK call threw into an `AwsApiError` naming cluster, operation and action. */
export function toAwsApiError(
  error: unknown,
  context: {
    service: 'eks' | 'ec2' | 'iam' | 'sts' | 'logs';
    operation: string;
    cluster?: string;
    subject?: string;
  },
): AwsApiError {
  if (error instanceof AwsApiError) return error;
  const { name, status, code, failedWith, original } = readSdkError(error);
  const iamAction = `${context.service}:${context.operation}`;
  const where = context.cluster === undefined ? '' : ` for cluster ${context.cluster}`;
  const about = context.subject === undefined ? '' : ` (${context.subject})`;
  let hint = '';
  if (code === 'forbidden') hint = ` — ${IDENTITY_IN_USE} is missing ${iamAction}`;
  else if (code === 'unauthorized')
    hint = ` — AWS rejected ${CREDENTIALS_IN_USE}: wrong, expired or not signed`;
  else if (code === 'throttled') hint = ' — throttled after all retries';
  return new AwsApiError(`${context.operation}${where}${about} ${failedWith}${hint}${original}`, {
    code,
    service: context.service,
    operation: context.operation,
    ...(context.cluster === undefined ? {} : { cluster: context.cluster }),
    cause: error,
    iamAction,
    awsErrorName: name,
    ...(status === undefined ? {} : { httpStatus: status }),
  });
}

/** True when an AWS error is the named error (works for SDK exceptions and plain objects). */
export function isAwsError(error: unknown, ...names: string[]): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as SdkErrorLike;
  if (typeof e.name === 'string' && names.includes(e.name)) return true;
  return (
    error instanceof AwsApiError && error.awsErrorName !== undefined && names.includes(error.awsErrorName)
  );
}

/** Converts whatever an SDK call of the monitor's state/queue/secret clients threw into a `MonitorIoError`. */
export function toMonitorIoError(
  error: unknown,
  context: { service: MonitorService; operation: string; resource: string },
): MonitorIoError {
  if (error instanceof MonitorIoError) return error;
  const { code, failedWith, original } = readSdkError(error);
  const hint =
    code === 'forbidden'
      ? ` — ${IDENTITY_IN_USE} is missing ${context.service}:${context.operation}`
      : code === 'unauthorized'
        ? ` — AWS rejected ${CREDENTIALS_IN_USE}: wrong, expired or not signed`
        : code === 'throttled'
          ? ' — throttled after all retries'
          : '';
  return new MonitorIoError(`${context.operation} on ${context.resource} ${failedWith}${hint}${original}`, {
    code,
    ...context,
    cause: error,
  });
}
