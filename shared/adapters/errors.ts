/**
 * "Could not look" errors of the collection adapters: one small hierarchy with a stable `name`,
 * a stable `code`, the original error as `cause`, and a message that names the cluster and the
 * operation — and, for 401/403, what permission is missing. Messages never carry a token,
 * a presigned URL or credentials (`redactSecrets` is applied to every message built here).
 * Use `instanceof` or `.code`, never `constructor.name` (minification renames classes).
 */

export const COLLECTION_ERROR_CODES = [
  'throttled',
  'forbidden',
  'unauthorized',
  'not-found',
  'unavailable',
  'timeout',
  'invalid-response',
] as const;
export type CollectionErrorCode = (typeof COLLECTION_ERROR_CODES)[number];

export type CollectionService = 'eks' | 'ec2' | 'iam' | 'sts' | 'kubernetes';

export interface CollectionErrorDetails {
  code: CollectionErrorCode;
  service: CollectionService;
  /** The API operation (`DescribeCluster`) or Kubernetes request (`list nodes`). */
  operation: string;
  cluster?: string;
  cause?: unknown;
}

export class CollectionError extends Error {
  override readonly name: string = 'CollectionError';
  readonly code: CollectionErrorCode;
  readonly service: CollectionService;
  readonly operation: string;
  readonly cluster: string | undefined;

  constructor(message: string, details: CollectionErrorDetails) {
    super(redactSecrets(message), details.cause === undefined ? undefined : { cause: details.cause });
    this.code = details.code;
    this.service = details.service;
    this.operation = details.operation;
    this.cluster = details.cluster;
  }
}

/** An AWS API call failed. `iamAction` is the action the call needs (`eks:DescribeCluster`). */
export class AwsApiError extends CollectionError {
  override readonly name: string = 'AwsApiError';
  readonly iamAction: string;
  /** The AWS error name (`AccessDeniedException`, `ThrottlingException` …) when known. */
  readonly awsErrorName: string | undefined;
  readonly httpStatus: number | undefined;

  constructor(
    message: string,
    details: CollectionErrorDetails & { iamAction: string; awsErrorName?: string; httpStatus?: number },
  ) {
    super(message, details);
    this.iamAction = details.iamAction;
    this.awsErrorName = details.awsErrorName;
    this.httpStatus = details.httpStatus;
  }
}

/** A Kubernetes API request failed. `verb`/`resource` name the RBAC permission it needs. */
export class KubernetesApiError extends CollectionError {
  override readonly name: string = 'KubernetesApiError';
  readonly verb: string;
  readonly resource: string;
  readonly httpStatus: number | undefined;

  constructor(
    message: string,
    details: CollectionErrorDetails & { verb: string; resource: string; httpStatus?: number },
  ) {
    super(message, details);
    this.verb = details.verb;
    this.resource = details.resource;
    this.httpStatus = details.httpStatus;
  }
}

/** The API server's certificate did not verify against the cluster CA: refused, never skipped. */
export class TlsVerificationError extends KubernetesApiError {
  override readonly name: string = 'TlsVerificationError';
}

/** Creating the EKS bearer token failed (no credentials, signing error). */
export class TokenError extends CollectionError {
  override readonly name: string = 'TokenError';
}

const TOKEN_PATTERN = /k8s-aws-v1\.[A-Za-z0-9_-]+/g;
const PRESIGNED_PATTERN = /X-Amz-(Signature|Credential|Security-Token)=[^&\s"']+/gi;
const BEARER_PATTERN = /Bearer\s+[A-Za-z0-9._~+/=-]+/gi;

/** Removes EKS tokens, bearer headers and presigned-URL credentials from a string. */
export function redactSecrets(text: string): string {
  return text
    .replace(TOKEN_PATTERN, 'k8s-aws-v1.<redacted>')
    .replace(BEARER_PATTERN, 'Bearer <redacted>')
    .replace(PRESIGNED_PATTERN, 'X-Amz-$1=<redacted>');
}

/** A one-line, secret-free description of any error, for a snapshot's `{status:'error'}`. */
export function safeErrorMessage(error: unknown): string {
  if (error instanceof CollectionError) return error.message;
  if (error instanceof Error) return redactSecrets(`${error.name}: ${error.message}`);
  return redactSecrets(String(error));
}

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

/** Converts whatever an AWS SDK call threw into an `AwsApiError` naming cluster, operation and action. */
export function toAwsApiError(
  error: unknown,
  context: { service: 'eks' | 'ec2' | 'iam' | 'sts'; operation: string; cluster?: string; subject?: string },
): AwsApiError {
  if (error instanceof AwsApiError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorLike;
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const networkCode = typeof e.code === 'string' ? e.code : undefined;
  const code = awsErrorCode(name, status, networkCode);
  const iamAction = `${context.service}:${context.operation}`;
  const where = context.cluster === undefined ? '' : ` for cluster ${context.cluster}`;
  const about = context.subject === undefined ? '' : ` (${context.subject})`;
  const original = typeof e.message === 'string' && e.message !== '' ? `: ${e.message}` : '';
  const head = `${context.operation}${where}${about} failed with ${name}${status === undefined ? '' : ` (HTTP ${status})`}`;
  let hint = '';
  if (code === 'forbidden') hint = ` — the monitor's IAM role is missing ${iamAction}`;
  else if (code === 'unauthorized') hint = ' — AWS rejected the monitor’s credentials';
  else if (code === 'throttled') hint = ' — throttled after all retries';
  return new AwsApiError(`${head}${hint}${original}`, {
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

// ---------------------------------------------------------------------------------------------
// The serverless monitor's own I/O: state stores (S3, DynamoDB), the work queue (SQS), secrets
// (SSM). Same rules: stable `name` and `code`, `cause`, a message naming the operation and the
// resource (bucket/key, table/item, queue, parameter name) — never a secret value.

export type MonitorService = 's3' | 'dynamodb' | 'sqs' | 'sns' | 'ssm' | 'slack';

export type MonitorIoErrorCode =
  | CollectionErrorCode
  /** Another writer saved first (optimistic concurrency). */
  | 'conflict'
  /** A stored document is not what the monitor wrote (schema, JSON). */
  | 'invalid-document'
  /** A document would exceed the store's item/object limit. */
  | 'too-large'
  /** Some entries of a batch were rejected. */
  | 'partial-failure'
  /** A configuration the adapter cannot serve (e.g. a Secrets Manager ARN without that client). */
  | 'unsupported';

export interface MonitorIoErrorDetails {
  code: MonitorIoErrorCode;
  service: MonitorService;
  operation: string;
  /** What was read or written: `s3://bucket/key`, `table pk/sk`, a queue URL, a parameter name. */
  resource: string;
  cause?: unknown;
}

export class MonitorIoError extends Error {
  override readonly name: string = 'MonitorIoError';
  readonly code: MonitorIoErrorCode;
  readonly service: MonitorService;
  readonly operation: string;
  readonly resource: string;

  constructor(message: string, details: MonitorIoErrorDetails) {
    super(redactSecrets(message), details.cause === undefined ? undefined : { cause: details.cause });
    this.code = details.code;
    this.service = details.service;
    this.operation = details.operation;
    this.resource = details.resource;
  }
}

/** `AlertStore.save` lost the race: another writer saved since the version that was loaded. */
export class ConcurrentUpdateError extends MonitorIoError {
  override readonly name: string = 'ConcurrentUpdateError';
}

/** The Slack webhook URL (or another secret) could not be read. Names the parameter, never its value. */
export class SecretReadError extends MonitorIoError {
  override readonly name: string = 'SecretReadError';
}

/** SQS SendMessageBatch rejected some entries; `failed` lists them (entry ID, SQS error code). */
export class QueueSendError extends MonitorIoError {
  override readonly name: string = 'QueueSendError';
  readonly failed: ReadonlyArray<{ id: string; code: string; senderFault: boolean }>;

  constructor(
    message: string,
    details: MonitorIoErrorDetails & {
      failed: ReadonlyArray<{ id: string; code: string; senderFault: boolean }>;
    },
  ) {
    super(message, details);
    this.failed = details.failed;
  }
}

/** Converts whatever an SDK call of the monitor's state/queue/secret clients threw into a `MonitorIoError`. */
export function toMonitorIoError(
  error: unknown,
  context: { service: MonitorService; operation: string; resource: string },
): MonitorIoError {
  if (error instanceof MonitorIoError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorLike;
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const networkCode = typeof e.code === 'string' ? e.code : undefined;
  const code = awsErrorCode(name, status, networkCode);
  const original = typeof e.message === 'string' && e.message !== '' ? `: ${e.message}` : '';
  const hint =
    code === 'forbidden'
      ? ` — the monitor's IAM role is missing ${context.service}:${context.operation}`
      : code === 'throttled'
        ? ' — throttled after all retries'
        : '';
  return new MonitorIoError(
    `${context.operation} on ${context.resource} failed with ${name}${status === undefined ? '' : ` (HTTP ${status})`}${hint}${original}`,
    { code, ...context, cause: error },
  );
}
