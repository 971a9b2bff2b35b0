/** The sandbox's CloudWatch Logs DescribeSubscriptionFilters, over the real SDK client. */
import { CloudWatchLogsClient, DescribeSubscriptionFiltersCommand } from '@aws-sdk/client-cloudwatch-logs';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../infra/sandbox/index.ts';
import { baseSnapshot, REGION } from '../support/sandbox-seed.ts';

describe('sandbox CloudWatch Logs', () => {
  it("lists a cluster log group's subscription filters; a group that does not exist is ResourceNotFoundException", async () => {
    const s = await startSandbox({
      clusters: [{ snapshot: baseSnapshot('CONFIG_MAP'), logging: ['audit'] }],
    });
    const logs = new CloudWatchLogsClient({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_CLOUDWATCH_LOGS,
      credentials: s.credentials,
    });
    try {
      const group = '/aws/eks/prod/cluster';
      const empty = await logs.send(new DescribeSubscriptionFiltersCommand({ logGroupName: group }));
      expect(empty.subscriptionFilters).toEqual([]);
      s.logSubscriptions.set(group, [
        {
          filterName: 'eks-auth-sentinel-aws-auth',
          filterPattern: '"configmaps" "aws-auth" "kube-system"',
          destinationArn: 'arn:aws:lambda:eu-west-1:111122223333:function:onAuditEvent',
        },
      ]);
      const one = await logs.send(new DescribeSubscriptionFiltersCommand({ logGroupName: group }));
      expect(one.subscriptionFilters?.map((f) => [f.filterName, f.logGroupName])).toEqual([
        ['eks-auth-sentinel-aws-auth', group],
      ]);
      await expect(
        logs.send(new DescribeSubscriptionFiltersCommand({ logGroupName: '/aws/eks/nope/cluster' })),
      ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    } finally {
      logs.destroy();
      await s.close();
    }
  });
});
