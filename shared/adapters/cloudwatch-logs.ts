/**
 * CloudWatch Logs, read-only: the subscription filters of a cluster's control-plane log group
 * (`logs:DescribeSubscriptionFilters`), so a snapshot says whether the audit log reaches anything.
 * A log group that does not exist (`ResourceNotFoundException`) is `found: false`.
 */
import { CloudWatchLogsClient, DescribeSubscriptionFiltersCommand } from '@aws-sdk/client-cloudwatch-logs';
import type { LogsReader, Lookup } from '../ports.ts';
import { type AwsClient, type AwsClientOptions, budgetOptions, createAwsClient } from './aws-clients.ts';
import { isAwsError, toAwsApiError } from './errors.ts';

export function createLogsClient(
  region: string,
  options: AwsClientOptions = {},
): AwsClient<CloudWatchLogsClient> {
  return createAwsClient(CloudWatchLogsClient, region, options, options.endpoints?.logs);
}

export function createLogsReader(logs: AwsClient<CloudWatchLogsClient>): LogsReader {
  return {
    async subscriptionFilterNames(logGroupName, cluster): Promise<Lookup<string[]>> {
      const names: string[] = [];
      let nextToken: string | undefined;
      try {
        // A log group holds at most two filters: one page, but follow the token anyway.
        for (let page = 0; page < 10; page++) {
          const out = await logs.client.send(
            new DescribeSubscriptionFiltersCommand({ logGroupName, ...(nextToken ? { nextToken } : {}) }),
            budgetOptions(logs.callBudgetMs),
          );
          for (const f of out.subscriptionFilters ?? []) if (f.filterName) names.push(f.filterName);
          nextToken = out.nextToken;
          if (nextToken === undefined) break;
        }
      } catch (error) {
        if (isAwsError(error, 'ResourceNotFoundException'))
          return { found: false, reason: `log group ${logGroupName} does not exist` };
        throw toAwsApiError(error, {
          service: 'logs',
          operation: 'DescribeSubscriptionFilters',
          ...(cluster === undefined ? {} : { cluster }),
        });
      }
      return { found: true, value: names };
    },
  };
}
