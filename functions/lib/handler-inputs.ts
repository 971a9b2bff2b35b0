/**
 * The handlers' own inputs, checked by schema (zod/mini, as the CloudTrail parser does): the
 * snapshot worker's SQS message body (a `ClusterWorkItem`, written by the scheduler and the event
 * path) and the report function's direct-invoke request. The event records themselves are parsed
 * by `shared/core/events/cloudtrail.ts`.
 */
import type { ReportRequest } from '../../shared/app/commands/report-command.ts';
import { ReportRequestError } from '../../shared/app/errors.ts';
import { REGION_CODE } from '../../shared/core/model.ts';
import * as z from '../../shared/core/zod-mini.ts';
import { SentinelError } from '../../shared/errors.ts';
import type { ClusterWorkItem } from '../../shared/ports.ts';

/** An SQS message that is not a cluster work item (it is retried, then reaches the DLQ). */
export class WorkItemError extends SentinelError {
  override readonly name = 'WorkItemError';
  readonly code = 'invalid-work-item';
}

const workItemSchema = z.looseObject({
  accountId: z.string(),
  region: z.string(),
  clusterName: z.string(),
  reason: z.enum(['schedule', 'follow-up']),
  followUp: z.optional(
    z.looseObject({
      eventId: z.string(),
      eventName: z.string(),
      change: z.looseObject({ kind: z.string() }),
      fingerprints: z.array(z.string()),
      attempt: z.number(),
    }),
  ),
});

/** The work item of an SQS message body; a `WorkItemError` naming the message otherwise. */
export function parseWorkItem(record: { messageId: string; body: string }): ClusterWorkItem {
  let item: unknown;
  try {
    item = JSON.parse(record.body);
  } catch (error) {
    throw new WorkItemError(`message ${record.messageId} is not JSON`, { cause: error });
  }
  if (!workItemSchema.safeParse(item).success) {
    throw new WorkItemError(`message ${record.messageId} is not a cluster work item`);
  }
  // The message as written (the schema checked what the worker reads; unknown keys pass).
  return item as ClusterWorkItem;
}

const CLUSTER = 'cluster must be a name';
const REGION_PROBLEM = 'region must be a Region';
const SOURCE = 'source must be fresh or stored';
const FORMAT = 'format must be markdown or html';

const reportRequestSchema = z.strictObject({
  cluster: z.optional(z.string({ error: CLUSTER }).check(z.minLength(1, CLUSTER))),
  region: z.optional(z.string({ error: REGION_PROBLEM }).check(z.regex(REGION_CODE, REGION_PROBLEM))),
  source: z.optional(z.enum(['fresh', 'stored'], { error: SOURCE })),
  format: z.optional(z.enum(['markdown', 'html'], { error: FORMAT })),
});

/**
 * The report request of a direct invoke: `{cluster?, region?, source?: "fresh"|"stored"}`, an empty
 * payload meaning "every cluster, fresh". Every problem is named at once in one `ReportRequestError`.
 */
export function parseReportRequest(event: unknown): ReportRequest {
  const input = event === null || event === undefined || event === '' ? {} : event;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new ReportRequestError(
      'expected {"cluster"?: string, "region"?: string, "source"?: "fresh" | "stored", "format"?: "markdown" | "html"}',
    );
  }
  const parsed = reportRequestSchema.safeParse(input);
  if (!parsed.success) {
    const unknown = parsed.error.issues.flatMap((i) => (i.code === 'unrecognized_keys' ? i.keys : []));
    const problems = [
      ...(unknown.length > 0 ? [`unknown field(s) ${unknown.join(', ')}`] : []),
      ...parsed.error.issues.filter((i) => i.code !== 'unrecognized_keys').map((i) => i.message),
    ];
    throw new ReportRequestError(`invalid report request: ${problems.join('; ')}`);
  }
  const { cluster, region, source, format } = parsed.data;
  return {
    ...(cluster === undefined ? {} : { cluster }),
    ...(region === undefined ? {} : { region }),
    ...(source === undefined ? {} : { source }),
    ...(format === undefined ? {} : { format }),
  };
}
