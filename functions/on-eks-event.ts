/**
 * onEksEvent — EventBridge rule on the CloudTrail records of
 * docs/design.md#cloudtrail-events-handled (async invoke): predict, alert at once, queue
 * follow-ups. Ignored and invalid records are logged and return; a failure is logged and rethrown
 * (the claim on the eventID was released), so EventBridge/Lambda retry and then the DLQ take
 * over. Correlation keys: CloudTrail `eventId` and `cluster`.
 * This bundle never contains the EC2 or IAM clients.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { type HandleEksEventResult, handleEksEvent } from '../shared/app/handle-eks-event.ts';
import { clusterNameIn } from '../shared/core/events/index.ts';
import { outcomeLog } from './lib/outcome-log.ts';
import { coldStartConfig, logger, once } from './lib/runtime.ts';
import { tryAccountOfFunctionArn } from './wiring/env.ts';
import { createEventWiring } from './wiring/event.ts';

const deps = once(() => createEventWiring(coldStartConfig(), process.env));

type CloudTrailEvent = EventBridgeEvent<
  string,
  { eventID?: unknown; eventName?: unknown; requestParameters?: unknown; responseElements?: unknown }
>;

/** The log keys of a record, read before it is validated (the cluster by core's rule). */
export function correlation(event: CloudTrailEvent): Record<string, string> {
  const detail = event?.detail;
  const keys: Record<string, string> = {};
  if (typeof detail?.eventID === 'string') keys.eventId = detail.eventID;
  if (typeof detail?.eventName === 'string') keys.eventName = detail.eventName;
  const name = clusterNameIn(detail?.requestParameters, detail?.responseElements);
  if (name !== undefined) keys.cluster = `${event.region}/${name}`;
  return keys;
}

export async function onEvent(
  event: CloudTrailEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis' | 'invokedFunctionArn'>,
): Promise<HandleEksEventResult> {
  logger.appendKeys(correlation(event));
  // One deadline for the invocation; the account the monitor runs in (none under `invoke local`).
  const accountId = tryAccountOfFunctionArn(context?.invokedFunctionArn);
  return handleEksEvent(deps(), event, {
    ...(context === undefined ? {} : { remainingMs: context.getRemainingTimeInMillis() }),
    ...(accountId === undefined ? {} : { accountId }),
  });
}

export const handler = middy(onEvent)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(
    outcomeLog<CloudTrailEvent, HandleEksEventResult>({
      done: 'eks event handled',
      failed: 'eks event failed',
      level: (result) => (result.outcome === 'invalid' ? 'warn' : 'info'),
      // `cluster` stays the correlation key (`region/name`).
      fields: (result) => {
        const {
          cluster: _name,
          region: _region,
          ...fields
        } = result as typeof result & { cluster?: string; region?: string };
        return fields;
      },
    }),
  );
