/**
 * onAuditEvent — a CloudWatch Logs subscription on a cluster's control-plane log group
 * (`/aws/eks/<cluster>/cluster`, filter on aws-auth writes: infra/cloudformation/aws-auth-audit-subscription.yaml)
 * (async invoke): each aws-auth write of the Kubernetes audit log is assessed with its writer, or
 * its writer is added to the alert a poll or a watch already sent. The audit log names who; it is
 * not the detector. A payload that cannot be decoded is logged and returns (a retry cannot fix
 * it); a failure is logged and rethrown so Lambda retries. Correlation key: `cluster`.
 * This bundle never contains the EC2 or IAM clients or @kubernetes/client-node.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { CloudWatchLogsEvent, Context } from 'aws-lambda';
import {
  decodeSubscriptionEvent,
  SubscriptionPayloadError,
} from '../shared/adapters/logs-subscription-payload.ts';
import { type HandleAuditEventResult, handleAuditEvent } from '../shared/app/handle-audit-event.ts';
import { outcomeLog } from './lib/outcome-log.ts';
import { coldStartConfig, logger, once } from './lib/runtime.ts';
import { createAwsAuthPathsWiring } from './wiring/aws-auth-paths.ts';
import { tryAccountOfFunctionArn } from './wiring/env.ts';

const deps = once(() => createAwsAuthPathsWiring(coldStartConfig(), process.env));

export async function onAuditEvent(
  event: CloudWatchLogsEvent,
  context?: Pick<Context, 'invokedFunctionArn'>,
): Promise<HandleAuditEventResult> {
  let message: unknown;
  try {
    message = decodeSubscriptionEvent(event);
  } catch (error) {
    if (error instanceof SubscriptionPayloadError) return { outcome: 'ignored', reason: error.message };
    throw error;
  }
  const logGroup = (message as { logGroup?: unknown } | null)?.logGroup;
  if (typeof logGroup === 'string') logger.appendKeys({ logGroup: logGroup.slice(0, 200) });
  const d = deps();
  const monitorAccount = tryAccountOfFunctionArn(context?.invokedFunctionArn);
  return handleAuditEvent(
    {
      ...d,
      // A subscription delivers to a function of the log group's Region: the cluster is in this
      // Region, in the account the message names (which must be this monitor's).
      async cluster(name, owner) {
        if (!d.regions.includes(d.home)) return undefined;
        const accountId = monitorAccount ?? owner;
        if (accountId === undefined || (owner !== undefined && owner !== accountId)) return undefined;
        return d.cluster(name, accountId);
      },
    },
    message,
  );
}

export const handler = middy(onAuditEvent)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(
    outcomeLog<CloudWatchLogsEvent, HandleAuditEventResult>({
      done: 'audit event handled',
      failed: 'audit event failed',
      level: (result) => (result.outcome === 'ignored' ? 'warn' : 'info'),
      fields: (result) =>
        result.outcome === 'ignored'
          ? {
              outcome: result.outcome,
              reason: result.reason,
              ...(result.cluster ? { cluster: result.cluster } : {}),
            }
          : {
              outcome: result.outcome,
              cluster: result.cluster,
              ignoredLogEvents: result.ignored,
              writes: result.writes.map((w) => ({
                auditId: w.auditId,
                outcome: w.outcome,
                observed: w.observed,
                resourceVersion: w.resourceVersion,
                findings: w.findings,
                attributed: w.attributed,
              })),
            },
    }),
  );
