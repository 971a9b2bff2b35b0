/**
 * What every CloudTrail builder shares (cloudtrail.ts, cloudtrail-workload-identity.ts): the
 * problem type a builder throws, URL decoding of path parameters, ARN checks, and `handler`,
 * which pairs an event's schema with its builder.
 */
import type { Change } from './change.ts';
import { toOneLine } from './snapshot-schema.ts';
import * as z from './zod-mini.ts';

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

export function clusterNameOf(
  request: { name?: string | undefined; clusterName?: string | undefined },
  response: unknown,
) {
  const fromResponse = (): string | undefined => {
    if (!isRecord(response)) return undefined;
    if (typeof response.clusterName === 'string' && response.clusterName !== '') return response.clusterName;
    for (const value of Object.values(response)) {
      if (isRecord(value) && typeof value.clusterName === 'string' && value.clusterName !== '') {
        return value.clusterName;
      }
    }
    return undefined;
  };
  return required(
    pick(request.name, request.clusterName, fromResponse()),
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
