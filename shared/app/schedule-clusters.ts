/**
 * Use case of the scheduler: list the clusters of the configured Regions and queue one work item
 * per cluster for the snapshot worker. A Region whose ListClusters fails does not stop the
 * others: they are still queued, and the failure is thrown at the end (the schedule's retry and
 * DLQ then make it visible; the monitor is never silently blind to a Region).
 */
import type { CaptureDeps, ClusterWorkItem, WorkQueue } from '../ports.ts';
import { type ScheduleClustersResult, ScheduleError } from './errors.ts';
import { listClusters } from './list-clusters.ts';

export type { ScheduleClustersResult };

export interface ScheduleClustersDeps {
  eks: CaptureDeps['eks'];
  queue: WorkQueue;
}

export interface ScheduleClustersInput {
  accountId: string;
  regions: readonly string[];
}

export async function scheduleClusters(
  deps: ScheduleClustersDeps,
  input: ScheduleClustersInput,
): Promise<ScheduleClustersResult> {
  const listing = await listClusters(deps, input.regions);
  const items: ClusterWorkItem[] = listing.clusters.map((c) => ({
    accountId: input.accountId,
    region: c.region,
    clusterName: c.clusterName,
    reason: 'schedule',
  }));
  if (items.length > 0) await deps.queue.enqueue(items);
  const result: ScheduleClustersResult = {
    enqueued: items.length,
    clusters: items.map((i) => `${i.region}/${i.clusterName}`),
    failedRegions: listing.errors,
  };
  if (listing.errors.length > 0) {
    throw new ScheduleError(
      `ListClusters failed in ${listing.errors.map((e) => `${e.region} (${e.error})`).join(', ')}; ${items.length} cluster(s) of the other Regions were queued`,
      result,
    );
  }
  return result;
}
