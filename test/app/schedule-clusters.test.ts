import { describe, expect, it } from 'vitest';
import { ScheduleError } from '../../shared/app/errors.ts';
import { scheduleClusters } from '../../shared/app/schedule-clusters.ts';
import { createFakeCluster } from '../support/fake-cluster.ts';
import { createFakeWorkQueue } from '../support/monitor.ts';
import { buildSnapshot } from '../support/snapshot-builder.ts';

describe('scheduleClusters', () => {
  it('queues one schedule item per cluster of the configured Regions', async () => {
    const cluster = createFakeCluster(buildSnapshot());
    const queue = createFakeWorkQueue();
    const result = await scheduleClusters(
      { eks: cluster.deps.eks, queue },
      { accountId: '111122223333', regions: ['eu-west-1', 'us-east-1'] },
    );
    expect(result).toEqual({ enqueued: 1, clusters: ['eu-west-1/prod'], failedRegions: [] });
    expect(queue.sent.map((s) => s.item)).toEqual([
      { accountId: '111122223333', region: 'eu-west-1', clusterName: 'prod', reason: 'schedule' },
    ]);
  });

  it('a Region that fails does not stop the others: they are queued, then the failure is thrown', async () => {
    const cluster = createFakeCluster(buildSnapshot());
    const queue = createFakeWorkQueue();
    const eks = (region: string) => {
      const reader = cluster.deps.eks(region);
      return region === 'us-east-1'
        ? { ...reader, listClusters: () => Promise.reject(new Error('AccessDenied')) }
        : reader;
    };
    const run = scheduleClusters(
      { eks, queue },
      { accountId: '111122223333', regions: ['us-east-1', 'eu-west-1'] },
    );
    await expect(run).rejects.toBeInstanceOf(ScheduleError);
    await expect(run).rejects.toThrow(/us-east-1/);
    expect(queue.sent.map((s) => s.item.clusterName)).toEqual(['prod']);
  });
});
