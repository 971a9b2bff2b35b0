/**
 * Fast detection of aws-auth writes, both modes (docs/design.md#fast-detection-of-aws-auth-writes):
 *
 * - default, `checkAwsAuth`: one `GET kube-system/aws-auth` of each monitored cluster; a
 *   resourceVersion this container already assessed costs nothing more, any other goes to
 *   `assessAwsAuthChange` (source `poll`), which compares it with the stored snapshot.
 * - continuous, `followAwsAuth`: a watch of each cluster's aws-auth (the watcher re-watches on
 *   close, re-lists on `410 Gone`, refreshes its token) for the invocation's window; every write it
 *   reports is assessed (source `watch`). Windows of successive invocations overlap: the
 *   per-resourceVersion claim of the use case makes the second sighting a `duplicate`.
 *
 * The cluster list comes from ListClusters of the configured Regions, as the scheduler's does; the
 * schedule's full capture stays the backstop (and the baseline: a cluster never captured is
 * `no-baseline`, nothing reported).
 */
import { safeErrorMessage } from '../errors.ts';
import type { AwsAuthReader, AwsAuthWatcher, CaptureTarget, EksReader, KubeClusterRef } from '../ports.ts';
import {
  type AssessAwsAuthChangeDeps,
  type AwsAuthChangeOutcome,
  assessAwsAuthChange,
} from './assess-aws-auth-change.ts';
import { listClusters } from './list-clusters.ts';
import { awaitRead } from './read-sources.ts';

export interface FollowAwsAuthDeps extends AssessAwsAuthChangeDeps {
  eks(region: string): EksReader;
  kube: AwsAuthReader;
  /** Where a cluster's API is (DescribeCluster, cached by the wiring); undefined when it is gone. */
  cluster(target: CaptureTarget): Promise<KubeClusterRef | undefined>;
  regions: readonly string[];
  /** The resourceVersion last assessed per cluster, in this container (warm invocations skip it). */
  seen: Map<string, string>;
}

export interface ClusterCheck {
  cluster: string;
  region: string;
  outcome: AwsAuthChangeOutcome | 'seen' | 'unreachable' | 'gone';
  resourceVersion?: string;
  findings?: number;
  error?: string;
}

export interface CheckAwsAuthResult {
  clusters: ClusterCheck[];
  /** Regions whose ListClusters failed. */
  listErrors: Array<{ region: string; error: string }>;
}

function keyOf(t: CaptureTarget): string {
  return `${t.region}/${t.clusterName}`;
}

async function refsOf(deps: FollowAwsAuthDeps): Promise<{
  refs: Array<{ target: CaptureTarget; ref: KubeClusterRef | undefined; error?: string }>;
  listErrors: CheckAwsAuthResult['listErrors'];
}> {
  const listing = await listClusters(deps, deps.regions);
  const refs = await Promise.all(
    listing.clusters.map(async (target) => {
      const ref = await awaitRead(deps.cluster(target));
      return ref.ok
        ? { target, ref: ref.value }
        : { target, ref: undefined, error: safeErrorMessage(ref.error) };
    }),
  );
  return { refs, listErrors: listing.errors };
}

/** One GET per cluster (in parallel); an unseen resourceVersion is assessed. */
export async function checkAwsAuth(deps: FollowAwsAuthDeps): Promise<CheckAwsAuthResult> {
  const { refs, listErrors } = await refsOf(deps);
  const clusters = await Promise.all(
    refs.map(async ({ target, ref, error }): Promise<ClusterCheck> => {
      const base = { cluster: target.clusterName, region: target.region };
      if (ref === undefined)
        return error === undefined
          ? { ...base, outcome: 'gone' }
          : { ...base, outcome: 'unreachable', error };
      const read = await awaitRead(deps.kube.awsAuth(ref));
      const rv = read.ok ? (read.value.found ? read.value.value.resourceVersion : 'absent') : undefined;
      if (rv !== undefined && deps.seen.get(keyOf(target)) === rv)
        return { ...base, outcome: 'seen', resourceVersion: rv };
      const result = await assessAwsAuthChange(deps, { cluster: ref, awsAuth: read, source: 'poll' });
      // Remembered only once the stored state holds it: a no-baseline or failed look is tried again.
      if (rv !== undefined && ['unchanged', 'evaluated', 'duplicate'].includes(result.outcome))
        deps.seen.set(keyOf(target), rv);
      return {
        ...base,
        outcome: result.outcome,
        ...(result.resourceVersion === undefined ? {} : { resourceVersion: result.resourceVersion }),
        findings: result.findings.length,
        ...(result.error === undefined ? {} : { error: result.error }),
      };
    }),
  );
  return { clusters, listErrors };
}

export interface FollowAwsAuthResult extends CheckAwsAuthResult {
  /** Writes each cluster's watch reported, and what their assessment was. */
  events: Array<{ cluster: string; type: string; via: string; resourceVersion: string; outcome: string }>;
  restarts: number;
}

/**
 * Watches every cluster's aws-auth until `signal` aborts: first a check (the state as of now),
 * then a watch from the resourceVersion read. A cluster whose watch ends with an error is checked
 * once more and not watched again in this window (the next invocation retries).
 */
export async function followAwsAuth(
  deps: FollowAwsAuthDeps & { watcher: AwsAuthWatcher },
  signal: AbortSignal,
): Promise<FollowAwsAuthResult> {
  const { refs, listErrors } = await refsOf(deps);
  const events: FollowAwsAuthResult['events'] = [];
  const clusters: ClusterCheck[] = [];
  let restarts = 0;
  await Promise.all(
    refs.map(async ({ target, ref, error }) => {
      const base = { cluster: target.clusterName, region: target.region };
      if (ref === undefined) {
        clusters.push(
          error === undefined ? { ...base, outcome: 'gone' } : { ...base, outcome: 'unreachable', error },
        );
        return;
      }
      const read = await awaitRead(deps.kube.awsAuth(ref));
      const first = await assessAwsAuthChange(deps, { cluster: ref, awsAuth: read, source: 'watch' });
      const from = read.ok && read.value.found ? read.value.value.resourceVersion : undefined;
      try {
        for await (const event of deps.watcher.watch(ref, {
          signal,
          ...(from === undefined ? {} : { from }),
          present: read.ok && read.value.found,
          onRestart: () => {
            restarts += 1;
          },
        })) {
          const assessed = await assessAwsAuthChange(deps, {
            cluster: ref,
            awsAuth: event.awsAuth,
            resourceVersion: event.resourceVersion,
            source: 'watch',
          });
          deps.seen.set(keyOf(target), event.resourceVersion);
          events.push({
            cluster: target.clusterName,
            type: event.type,
            via: event.via,
            resourceVersion: event.resourceVersion,
            outcome: assessed.outcome,
          });
        }
        clusters.push({
          ...base,
          outcome: first.outcome,
          ...(from === undefined ? {} : { resourceVersion: from }),
        });
      } catch (e) {
        if (signal.aborted) {
          clusters.push({ ...base, outcome: first.outcome });
          return;
        }
        clusters.push({ ...base, outcome: 'unreachable', error: safeErrorMessage(e) });
      }
    }),
  );
  return { clusters, listErrors, events, restarts };
}
