/**
 * scheduler — EventBridge schedule (async invoke): list the clusters of the configured Regions
 * and queue one work item per cluster. Throws when a Region failed (after queueing the others):
 * the async retry and then the DLQ make the blind Region visible.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { scheduleClusters } from '../shared/app/schedule-clusters.ts';
import { accountOfFunctionArn } from '../shared/app/wiring-env.ts';
import { createSchedulerWiring } from '../shared/app/wiring-scheduler.ts';
import { coldStartConfig, errorFields, logger, once } from './lib/runtime.ts';

const deps = once(() => createSchedulerWiring(coldStartConfig(), process.env));

export async function schedule(event: ScheduledEvent, context: Context) {
  try {
    const config = coldStartConfig();
    const result = await scheduleClusters(deps(), {
      accountId: event.account ?? accountOfFunctionArn(context.invokedFunctionArn),
      regions: config.regions,
    });
    logger.info('clusters scheduled', { scheduled: result });
    return result;
  } catch (error) {
    logger.error('scheduling failed', errorFields(error));
    throw error;
  }
}

export const handler = middy(schedule).use(injectLambdaContext(logger, { resetKeys: true }));
