/**
 * The application's error classes, in one file so that the use cases that throw or catch them
 * need not import each other. Each extends SentinelError (shared/errors.ts) with its own `code`.
 */
import type { Channel } from '../core/alerts/index.ts';
import type { ClusterId } from '../core/model.ts';
import { SentinelError } from '../errors.ts';
import type { DeliverySummary } from '../ports.ts';

/** What the scheduler queued, and the Regions whose ListClusters failed. */
export interface ScheduleClustersResult {
  enqueued: number;
  clusters: string[];
  failedRegions: Array<{ region: string; error: string }>;
}

/** A report request (cluster, Region, format) that cannot be served as asked. */
export class ReportRequestError extends SentinelError {
  override readonly name = 'ReportRequestError';
  readonly code = 'invalid-request';
}

/** The environment does not configure the monitor: every problem found, not the first. */
export class ConfigError extends SentinelError {
  override readonly name = 'ConfigError';
  readonly code = 'invalid-config';
  constructor(readonly problems: string[]) {
    super(`invalid configuration (${problems.length} problem(s)): ${problems.join('; ')}`);
  }
}

/** Some notices could not be delivered after `maxAttempts` sends; they are still stored and will be retried. */
export class DeliveryError extends SentinelError {
  override readonly name: string = 'DeliveryError';
  readonly code = 'delivery-exhausted';
  readonly cluster: ClusterId;
  /** Channel → how many notices have reached the attempt limit there, and the last error. */
  readonly exhausted: Partial<Record<Channel, { notices: number; lastError?: string }>>;
  readonly summary: Required<DeliverySummary>;

  constructor(
    message: string,
    details: {
      cluster: ClusterId;
      exhausted: DeliveryError['exhausted'];
      summary: Required<DeliverySummary>;
      cause?: unknown;
    },
  ) {
    super(message, details);
    this.cluster = details.cluster;
    this.exhausted = details.exhausted;
    this.summary = details.summary;
  }
}

/** Thrown when processing an event failed; the claim was released. */
export class EventProcessingError extends SentinelError {
  override readonly name = 'EventProcessingError';
  readonly code = 'event-failed';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/** A redelivery found the event in progress in another invocation: retried after the claim's expiry. */
export class EventInProgressError extends SentinelError {
  override readonly name = 'EventInProgressError';
  readonly code = 'event-in-progress';
}

/** Another invocation holds this follow-up attempt's claim: the message is retried after it expires. */
export class FollowUpInProgressError extends SentinelError {
  override readonly name = 'FollowUpInProgressError';
  readonly code = 'follow-up-in-progress';
}

/** Some Regions could not be listed: the others were queued (`result` says which). */
export class ScheduleError extends SentinelError {
  override readonly name = 'ScheduleError';
  readonly code = 'schedule-incomplete';
  constructor(
    message: string,
    readonly result: ScheduleClustersResult,
  ) {
    super(message);
  }
}

/**
 * A CLI command's input that the user can fix (a file that is not what the command needs, a
 * change that names nothing in the snapshot, a cluster that cannot be read): one line on stderr
 * naming `where`, and exit 2 unless `exitCode` says otherwise.
 */
export class CommandInputError extends SentinelError {
  override readonly name: string = 'CommandInputError';
  readonly code = 'usage';
  /** Where the problem is: a file, a JSON path, a line:column, the option to look at. */
  readonly where: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: { where?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, options);
    this.where = options.where;
    this.exitCode = options.exitCode ?? 2;
  }
}
