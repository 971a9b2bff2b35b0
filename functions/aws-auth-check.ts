/**
 * awsAuthCheck — the default mode's fast detection of aws-auth writes: every minute (EventBridge
 * schedule) one `GET kube-system/aws-auth` per monitored cluster, a write assessed and alerted
 * through the lifecycle (`checkAwsAuth`). With the re-check queue set, the scheduled invocation
 * also queues a second check `SENTINEL_AWS_AUTH_RECHECK_SECONDS` later (SQS `DelaySeconds`), so
 * a write waits at most about 30 s for a look instead of 60 (README "Fast detection").
 * A failure is logged and rethrown (the schedule retries; the next tick looks again anyway).
 * This bundle never contains the EC2 or IAM clients or @kubernetes/client-node.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createSqsRecheck, type DelayedRecheck } from '../shared/adapters/sqs-recheck.ts';
import { createSqsClient } from '../shared/adapters/sqs-work-queue.ts';
import { type CheckAwsAuthResult, checkAwsAuth } from '../shared/app/follow-aws-auth.ts';
import { outcomeLog } from './lib/outcome-log.ts';
import { coldStartConfig, logger, once } from './lib/runtime.ts';
import { createAwsAuthPathsWiring } from './wiring/aws-auth-paths.ts';
import { clientOptions, homeRegion, tryAccountOfFunctionArn } from './wiring/env.ts';

const deps = once(() => createAwsAuthPathsWiring(coldStartConfig(), process.env));
const recheck = once((): { queue: DelayedRecheck; delaySeconds: number } | undefined => {
  const settings = coldStartConfig().awsAuthRecheck;
  if (settings === undefined) return undefined;
  const sqs = createSqsClient(homeRegion(process.env), clientOptions());
  return {
    queue: createSqsRecheck({ sqs, queueUrl: settings.queueUrl }),
    delaySeconds: settings.delaySeconds,
  };
});
/** resourceVersions assessed by this container (a warm invocation skips what it already saw). */
const seen = new Map<string, string>();

export interface AwsAuthCheckResult extends CheckAwsAuthResult {
  trigger: 'schedule' | 'recheck';
  recheckQueued: boolean;
}

/** A scheduled event (`source: aws.events`) or the re-check queue's batch (`Records`). */
export async function onAwsAuthCheck(
  event: { source?: unknown; Records?: unknown },
  context?: Pick<Context, 'invokedFunctionArn'>,
): Promise<AwsAuthCheckResult> {
  const trigger = Array.isArray(event?.Records) ? 'recheck' : 'schedule';
  const d = deps();
  const accountId = tryAccountOfFunctionArn(context?.invokedFunctionArn);
  const again = trigger === 'schedule' ? recheck() : undefined;
  // Queued first: the second look keeps its place in the minute however long this one takes.
  if (again !== undefined) await again.queue.schedule(again.delaySeconds);
  const result = await checkAwsAuth({
    ...d,
    seen,
    cluster: async (target) => {
      if (accountId === undefined) throw new Error('the function ARN names no account');
      return d.cluster(target.clusterName, target.accountId ?? accountId, target.region);
    },
  });
  return { ...result, trigger, recheckQueued: again !== undefined };
}

export const handler = middy(onAwsAuthCheck)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(
    outcomeLog<unknown, AwsAuthCheckResult>({
      done: 'aws-auth checked',
      failed: 'aws-auth check failed',
      level: (r) =>
        r.listErrors.length > 0 ||
        r.clusters.some((c) => c.outcome === 'unreachable' || c.outcome === 'unreadable')
          ? 'warn'
          : 'info',
      fields: (r) => ({
        trigger: r.trigger,
        recheckQueued: r.recheckQueued,
        clusters: r.clusters,
        listErrors: r.listErrors,
      }),
    }),
  );
