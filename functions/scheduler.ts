/**
 * scheduler — EventBridge schedule (async invoke): list the clusters of the configured Regions
 * and queue one work item per cluster. Throws when a Region failed (after queueing the others):
 * the async retry and then the DLQ make the blind Region visible.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { type ScheduleClustersResult, scheduleClusters } from '../shared/app/schedule-clusters.ts';
import { outcomeLog } from './lib/outcome-log.ts';
import { coldStartConfig, logger, once } from './lib/runtime.ts';
import { accountOfFunctionArn } from './wiring/env.ts';
import { createSchedulerWiring } from './wiring/scheduler.ts';

const deps = once(() => createSchedulerWiring(coldStartConfig(), process.env));

export async function schedule(event: ScheduledEvent, context: Context): Promise<ScheduleClustersResult> {
  const config = coldStartConfig();
  return scheduleClusters(deps(), {
    accountId: event.account ?? accountOfFunctionArn(context.invokedFunctionArn),
    regions: config.regions,
  });
}

export const handler = middy(schedule)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(
    outcomeLog<ScheduledEvent, ScheduleClustersResult>({
      done: 'clusters scheduled',
      failed: 'scheduling failed',
      fields: (result) => ({ scheduled: result }),
    }),
  );
