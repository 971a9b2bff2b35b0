/**
 * awsAuthWatch — continuous mode (parameter `awsAuthContinuous`, off by default): holds a watch of
 * each monitored cluster's aws-auth for `SENTINEL_AWS_AUTH_WATCH_SECONDS`, every write assessed at
 * once (`followAwsAuth`). The schedule re-invokes it every 5 minutes with a window longer than
 * that, so windows overlap and a write is never unwatched; the use case's per-resourceVersion claim
 * makes the second sighting a duplicate. The window ends before the Lambda timeout.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { type FollowAwsAuthResult, followAwsAuth } from '../shared/app/follow-aws-auth.ts';
import { outcomeLog } from './lib/outcome-log.ts';
import { coldStartConfig, logger, once } from './lib/runtime.ts';
import { createAwsAuthPathsWiring } from './wiring/aws-auth-paths.ts';
import { tryAccountOfFunctionArn } from './wiring/env.ts';

const deps = once(() => createAwsAuthPathsWiring(coldStartConfig(), process.env));
const seen = new Map<string, string>();
/** Kept for assessing and delivering the last write before the timeout. */
const RESERVE_MS = 20_000;

export async function onAwsAuthWatch(
  _event: unknown,
  context?: Pick<Context, 'invokedFunctionArn' | 'getRemainingTimeInMillis'>,
): Promise<FollowAwsAuthResult> {
  const d = deps();
  const accountId = tryAccountOfFunctionArn(context?.invokedFunctionArn);
  const windowMs = Math.min(
    coldStartConfig().awsAuthWatchSeconds * 1000,
    Math.max(0, (context?.getRemainingTimeInMillis() ?? Number.POSITIVE_INFINITY) - RESERVE_MS),
  );
  const signal = AbortSignal.timeout(Math.max(1, windowMs));
  return followAwsAuth(
    {
      ...d,
      seen,
      watcher: d.watcher(),
      cluster: async (target) => {
        if (accountId === undefined) throw new Error('the function ARN names no account');
        return d.cluster(target.clusterName, target.accountId ?? accountId, target.region);
      },
    },
    signal,
  );
}

export const handler = middy(onAwsAuthWatch)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(
    outcomeLog<unknown, FollowAwsAuthResult>({
      done: 'aws-auth watched',
      failed: 'aws-auth watch failed',
      fields: (r) => ({
        clusters: r.clusters,
        events: r.events,
        restarts: r.restarts,
        listErrors: r.listErrors,
      }),
    }),
  );
