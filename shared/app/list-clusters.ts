/**
 * Use case: which clusters there are. ListClusters in every configured Region, for the scheduler
 * (one work item per cluster), the report and the CLI's multi-cluster commands.
 */
import { safeErrorMessage } from '../errors.ts';
import type { CaptureDeps, CaptureTarget } from '../ports.ts';
import { awaitRead } from './read-sources.ts';

export interface ClusterListing {
  clusters: CaptureTarget[];
  /** Regions whose ListClusters failed: the monitor is blind there. */
  errors: Array<{ region: string; error: string }>;
}

/** ListClusters in every Region; one Region failing does not hide the others. */
export async function listClusters(
  deps: Pick<CaptureDeps, 'eks'>,
  regions: readonly string[],
): Promise<ClusterListing> {
  const results = await Promise.all(regions.map((region) => awaitRead(deps.eks(region).listClusters())));
  const listing: ClusterListing = { clusters: [], errors: [] };
  results.forEach((result, i) => {
    const region = regions[i] as string;
    if (result.ok) for (const clusterName of result.value) listing.clusters.push({ region, clusterName });
    else listing.errors.push({ region, error: safeErrorMessage(result.error) });
  });
  return listing;
}
