/**
 * The one error hierarchy of the monitor: every error it throws on purpose is a `SentinelError`
 * with a stable `name` (set explicitly: minification renames classes, so never read
 * `constructor.name`), a stable `code` to branch on, and the original error as `cause`.
 * Messages name the cluster and the operation but never a secret: the base class passes every
 * message through `redactSecrets`. Findings and parse issues are data, not errors; an error means
 * "could not look" or "cannot run like this".
 *
 * Pure (no import at all), so the core, the use cases, the adapters and the handlers may use it.
 * The adapters keep only the converters from SDK/HTTP errors to these classes.
 *
 * Use-case errors extend `SentinelError` in shared/app/errors.ts: `ScheduleError`, `DeliveryError`,
 * `ReportRequestError`, `EventProcessingError`, `ConfigError`, `CommandInputError` (a CLI
 * command's input; `CliError`, cli/errors.ts, extends it); elsewhere `SimulationError`
 * (core/predict/simulate.ts),
 * `WiringError` and `WorkItemError` (functions/).
 */

/** The monitor could not read a cluster or the account (EKS, EC2, IAM, STS, Kubernetes). */
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

export type SentinelErrorCode =
  | MonitorIoErrorCode
  /** `ConfigError`: the `SENTINEL_*` environment is invalid. */
  | 'invalid-config'
  /** `WiringError`: the Lambda environment lacks what the wiring needs (Region, function ARN). */
  | 'invalid-environment'
  /** `ReportRequestError`: the report function's request. */
  | 'invalid-request'
  /** `WorkItemError`: an SQS message that is not a cluster work item. */
  | 'invalid-work-item'
  /** `SimulationError`: a what-if change that does not apply to the snapshot. */
  | 'invalid-change'
  /** `ScheduleError`: some Regions could not be listed (the others were queued). */
  | 'schedule-incomplete'
  /** `DeliveryError`: notices reached their attempt limit on a channel. */
  | 'delivery-exhausted'
  /** `EventProcessingError`: processing a CloudTrail event failed (the claim was released). */
  | 'event-failed'
  /** `EventInProgressError`: another invocation holds the event's in-progress claim (retried after it expires). */
  | 'event-in-progress'
  /** `FollowUpInProgressError`: another invocation holds a follow-up attempt's claim (retried after it expires). */
  | 'follow-up-in-progress'
  /** `CliError`: bad usage or an unreadable input file of the CLI. */
  | 'usage';

/** The base class. Subclasses set `name` (a string literal) and `code`. */
export abstract class SentinelError extends Error {
  abstract override readonly name: string;
  abstract readonly code: SentinelErrorCode;

  constructor(message: string, options?: { cause?: unknown }) {
    super(redactSecrets(message), options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

// ---------------------------------------------------------------------------------------------
// Secret redaction: the one place that knows what a secret looks like.

const TOKEN_PATTERN = /k8s-aws-v1\.[A-Za-z0-9_-]+/g;
const PRESIGNED_PATTERN = /X-Amz-(Signature|Credential|Security-Token)=[^&\s"']+/gi;
const BEARER_PATTERN = /Bearer\s+[A-Za-z0-9._~+/=-]+/gi;
/** Anything under Slack's webhook host, to the next white space, with or without the scheme. */
const SLACK_HOOK_PATTERN = /(?:https?:\/\/)?hooks\.slack\.com\/[^\s"'<>]*[^\s"'<>:;,.)\]]/gi;
/** A Slack-style incoming-webhook URL (`…/services/T…/B…/…`), whatever the host. */
const WEBHOOK_PATTERN = /https?:\/\/[^\s"'<>]*\/services\/[^\s"'<>]+/gi;
/**
 * The path or token alone, as a proxy's error page echoes it: `/services/T…/B…/…`, `services/T…/…`
 * or just the `T…/B…/secret` triple (workspace, channel hook, token).
 */
const WEBHOOK_PATH_PATTERN = /(?:\/?\bservices\/)?\bT[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9_-]+/g;
/** Slack tokens: bot `xoxb-`, user `xoxp-`, app-level `xapp-`, and the other `xox?-` kinds. */
const SLACK_TOKEN_PATTERN = /\b(xox[abceprs]|xapp)-[A-Za-z0-9-]+/g;

/**
 * Removes EKS tokens, bearer headers, presigned-URL credentials, Slack tokens (`xoxb-…`) and
 * webhook URLs (or their path or token alone) from a string.
 * `webhookUrl` and `token`, when known, are removed verbatim as well (a webhook needs no
 * `/services/` path).
 */
export function redactSecrets(
  text: string,
  known: { webhookUrl?: string | undefined; token?: string | undefined } = {},
): string {
  // The patterns first (a Slack-shaped URL or path goes whole), then what is known verbatim.
  let out = text
    .replace(TOKEN_PATTERN, 'k8s-aws-v1.<redacted>')
    .replace(BEARER_PATTERN, 'Bearer <redacted>')
    .replace(SLACK_TOKEN_PATTERN, '$1-<redacted>')
    .replace(PRESIGNED_PATTERN, 'X-Amz-$1=<redacted>')
    .replace(SLACK_HOOK_PATTERN, '<webhook>')
    .replace(WEBHOOK_PATTERN, '<webhook>')
    .replace(WEBHOOK_PATH_PATTERN, '<webhook>');
  const url = known.webhookUrl;
  if (url !== undefined && url !== '')
    for (const form of webhookSecretForms(url)) out = out.split(form).join('<webhook>');
  const token = known.token;
  if (token !== undefined && token.length >= 8) out = out.split(token).join('<token>');
  return out;
}

/**
 * The forms in which an endpoint may echo a webhook URL, longest first: as given, without its
 * scheme, JSON-escaped (`\/`), percent-encoded, its path and query, and each path segment or query
 * value of 8 or more characters (the token part; `services` itself excepted).
 */
export function webhookSecretForms(url: string): string[] {
  const forms = new Set<string>([
    url,
    url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''),
    url.replace(/\//g, '\\/'),
  ]);
  forms.add(encodeURIComponent(url));
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed !== undefined) {
    const tail = `${parsed.pathname}${parsed.search}`;
    if (tail.length >= 8) forms.add(tail);
    const parts = [...parsed.pathname.split('/'), ...[...parsed.searchParams.values()]];
    for (const part of parts) {
      if (part.length < 8 || part === 'services') continue;
      forms.add(part);
      forms.add(encodeURIComponent(part));
      forms.add(decodeURIComponentSafe(part));
    }
  }
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A one-line, secret-free description of any error, for a snapshot's `{status:'error'}`. */
export function safeErrorMessage(error: unknown): string {
  if (error instanceof CollectionError) return error.message;
  if (error instanceof Error) return redactSecrets(`${error.name}: ${error.message}`);
  return redactSecrets(String(error));
}

// ---------------------------------------------------------------------------------------------
// "Could not look": the collection adapters (cluster and account reads).

export type CollectionService = 'eks' | 'ec2' | 'iam' | 'sts' | 'logs' | 'kubernetes';

export interface CollectionErrorDetails {
  code: CollectionErrorCode;
  service: CollectionService;
  /** The API operation (`DescribeCluster`) or Kubernetes request (`list nodes`). */
  operation: string;
  cluster?: string;
  cause?: unknown;
}

/** A read of a cluster or the account failed; the message names cluster and operation. */
export class CollectionError extends SentinelError {
  override readonly name: string = 'CollectionError';
  readonly code: CollectionErrorCode;
  readonly service: CollectionService;
  readonly operation: string;
  readonly cluster: string | undefined;

  constructor(message: string, details: CollectionErrorDetails) {
    super(message, details);
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

// ---------------------------------------------------------------------------------------------
// The monitor's own I/O: state stores (S3, DynamoDB), the work queue (SQS), notices (SNS, Slack),
// secrets (SSM). The message names the operation and the resource — never a secret value.

export type MonitorService = 's3' | 'dynamodb' | 'sqs' | 'sns' | 'ssm' | 'slack';

export interface MonitorIoErrorDetails {
  code: MonitorIoErrorCode;
  service: MonitorService;
  operation: string;
  /** What was read or written: `s3://bucket/key`, `table pk/sk`, a queue URL, a parameter name. */
  resource: string;
  cause?: unknown;
}

export class MonitorIoError extends SentinelError {
  override readonly name: string = 'MonitorIoError';
  readonly code: MonitorIoErrorCode;
  readonly service: MonitorService;
  readonly operation: string;
  readonly resource: string;

  constructor(message: string, details: MonitorIoErrorDetails) {
    super(message, details);
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
