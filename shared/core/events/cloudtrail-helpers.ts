/**
 * What every CloudTrail builder shares (cloudtrail.ts, cloudtrail-workload-identity.ts): the
 * problem type a builder throws, URL decoding of path parameters, ARN checks, and `handler`,
 * which pairs an event's schema with its builder.
 */
import type { Change } from '../predict/change.ts';
import { toOneLine } from '../snapshot/snapshot-schema.ts';
import * as z from '../zod-mini.ts';

// ---------------------------------------------------------------------------------------------
// Helpers

export type Segments = Array<PropertyKey>;

/** A problem with the record: where (path below the record) and what. */
export class RecordProblem {
  constructor(
    readonly segments: Segments,
    readonly message: string,
  ) {}
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Quote a value from the record for a reason, short and on one line. */
/**
 * Quote a value from the record for a reason, short and on one line. Only strings and primitives
 * are written out: an object is named by its kind, never stringified (a hostile
 * `{"toString": false}` makes `String(value)` throw; a long array would fill the reason).
 */
export function quote(value: unknown): string {
  if (typeof value === 'string') return toOneLine(JSON.stringify(value), 80);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  if (typeof value === 'function') return 'a function';
  return toOneLine(String(value), 80);
}

export function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined)
    return `required ${issue.expected} is missing`;
  if (issue.code === 'invalid_type' && issue.input === null) return `expected ${issue.expected}, got null`;
  return issue.message;
}

export const PARTITION = 'arn:aws(?:-[a-z]+)*';
export const IAM_NAME = '[\\w+=,.@/-]+';
export const ROLE_ARN = new RegExp(`^${PARTITION}:iam::\\d{12}:role/${IAM_NAME}$`);
export const PRINCIPAL_ARN = new RegExp(`^${PARTITION}:iam::\\d{12}:(?:(?:role|user)/${IAM_NAME}|root)$`);
export const POLICY_ARN = new RegExp(`^${PARTITION}:eks::aws:cluster-access-policy/[\\w+=,.@-]+$`);

/**
 * Decode a URL-encoded path parameter. Only values holding `%` are touched (an ARN never contains
 * one), up to three rounds for double encoding; a malformed escape is a problem, never a throw.
 */
export function decodePathParameter(value: string, segments: Segments): string {
  let out = value;
  for (let round = 0; round < 3 && out.includes('%'); round++) {
    try {
      out = decodeURIComponent(out);
    } catch {
      throw new RecordProblem(segments, `${quote(value)} is not valid URL encoding`);
    }
  }
  return out;
}

export function checkArn(value: string, pattern: RegExp, what: string, segments: Segments): string {
  if (!pattern.test(value)) throw new RecordProblem(segments, `expected ${what}, got ${quote(value)}`);
  return value;
}

/** Epoch seconds (CloudTrail), epoch milliseconds or an ISO 8601 string → ISO 8601; else undefined. */
export function toIsoTimestamp(value: unknown): string | undefined {
  let date: Date | undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    date = new Date(value > 1e11 ? value : value * 1000);
  } else if (typeof value === 'string' && z.iso.datetime({ offset: true }).safeParse(value).success) {
    date = new Date(value);
  }
  if (date === undefined || Number.isNaN(date.getTime())) return undefined;
  return date.toISOString();
}

export function pick<T>(...candidates: Array<T | undefined>): T | undefined {
  return candidates.find((candidate) => candidate !== undefined);
}

export function required<T>(value: T | undefined, segments: Segments, message: string): T {
  if (value === undefined) throw new RecordProblem(segments, message);
  return value;
}

/**
 * The cluster a record is about — the one rule, for a validated record and a raw one (the
 * handler's log keys) alike: `requestParameters.name`, older records' `clusterName`, else
 * `responseElements.clusterName` or any `responseElements.*.clusterName`; empty names skipped.
 */
export function clusterNameIn(request: unknown, response: unknown): string | undefined {
  const named = (value: unknown): value is string => typeof value === 'string' && value !== '';
  if (isRecord(request)) {
    if (named(request.name)) return request.name;
    if (named(request.clusterName)) return request.clusterName;
  }
  if (!isRecord(response)) return undefined;
  if (named(response.clusterName)) return response.clusterName;
  for (const value of Object.values(response)) {
    if (isRecord(value) && named(value.clusterName)) return value.clusterName;
  }
  return undefined;
}

export function clusterNameOf(
  request: { name?: string | undefined; clusterName?: string | undefined },
  response: unknown,
) {
  return required(
    clusterNameIn(request, response),
    ['requestParameters', 'name'],
    'no cluster name (looked at requestParameters.name, requestParameters.clusterName, responseElements.*.clusterName)',
  );
}

export const REQ = 'requestParameters';
export const RES = 'responseElements';

// ---------------------------------------------------------------------------------------------
// One builder per event: parsed record → Change (throws RecordProblem)

/** What every handled record has once its schema passed. */
export interface RecordHeader {
  eventID: string;
  eventTime: string;
  awsRegion?: string | undefined;
  recipientAccountId?: string | undefined;
  userIdentity?: { arn?: string | undefined } | undefined;
  requestParameters: { name?: string | undefined; clusterName?: string | undefined };
  responseElements?: unknown;
}

/** A Change, or a reason why the record is no authentication change (then ignored). */
export type Built = Change | { ignore: string };
export type Handled =
  | { ok: true; header: RecordHeader; change: Built }
  | { ok: false; issues: z.core.$ZodIssue[] };

/** Pair an event's schema with its builder: parse, then build (a builder throws RecordProblem). */
export function handler<S extends z.ZodMiniType<RecordHeader>>(
  schema: S,
  build: (record: z.output<S>) => Built,
) {
  return (record: unknown): Handled => {
    const parsed = schema.safeParse(record, { reportInput: true });
    if (!parsed.success) return { ok: false, issues: parsed.error.issues };
    return { ok: true, header: parsed.data, change: build(parsed.data) };
  };
}

// ---------------------------------------------------------------------------------------------
// Can the record be trusted to be a call that succeeded?

/** The services whose write calls the monitor handles, by the record's `eventSource`. */
export const RECORD_SOURCES = { 'eks.amazonaws.com': 'eks', 'iam.amazonaws.com': 'iam' } as const;

export type RecordStanding =
  | { kind: 'write'; service: 'eks' | 'iam' }
  | { kind: 'ignored'; reason: string }
  | { kind: 'invalid'; reason: string };

/**
 * What the record's envelope fields say, read as CloudTrail documents them ("CloudTrail record
 * contents", docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-record-contents.html):
 * `eventSource` is in every record (Optional: False); `errorCode` and `errorMessage` only in the
 * record of a call that returned an error; `readOnly` is `true` or `false`. A value outside that
 * (no `eventSource`, `errorCode: ""` or `null`, `readOnly: "true"`) is no CloudTrail record as
 * written, so nothing says the call succeeded: the record is invalid, with the field named, and
 * never handled as a change. `at` turns a field into its JSON path.
 */
export function standingOf(
  record: Record<string, unknown>,
  at: (segments: Segments) => string,
): RecordStanding {
  const { eventSource, errorCode, errorMessage, readOnly } = record;
  const invalid = (field: string, what: string): RecordStanding => ({
    kind: 'invalid',
    reason: `${at([field])}: ${what}`,
  });
  if (eventSource === undefined)
    return invalid(
      'eventSource',
      'required string is missing (CloudTrail names the service of every call; without it the record is neither an EKS nor an IAM call)',
    );
  if (typeof eventSource !== 'string' || !Object.hasOwn(RECORD_SOURCES, eventSource))
    return { kind: 'ignored', reason: `not an EKS or IAM call (eventSource ${quote(eventSource)})` };
  if (errorCode !== undefined) {
    if (typeof errorCode === 'string' && errorCode !== '')
      return { kind: 'ignored', reason: `the call failed: ${toOneLine(errorCode, 80)}` };
    return invalid(
      'errorCode',
      `expected the error code of a failed call, got ${errorCode === '' ? 'an empty string' : quote(errorCode)} (CloudTrail writes errorCode only when the call failed, so this record cannot be trusted to be a call that succeeded)`,
    );
  }
  if (errorMessage !== undefined)
    return invalid(
      'errorMessage',
      'present without errorCode (CloudTrail writes both only when the call failed, so this record cannot be trusted to be a call that succeeded)',
    );
  if (readOnly !== undefined && typeof readOnly !== 'boolean')
    return invalid('readOnly', `expected true or false, got ${quote(readOnly)}`);
  if (readOnly === true)
    return { kind: 'ignored', reason: `${String(record.eventName)} is a read-only call` };
  return { kind: 'write', service: RECORD_SOURCES[eventSource as keyof typeof RECORD_SOURCES] };
}
