/**
 * Reading a cluster's sources, shared by the scheduled capture (`capture-snapshot.ts`) and the
 * event path (`handle-eks-event.ts`): a read ends in a value or its error (`ReadResult`), and becomes a
 * snapshot `Source` — `ok`, `absent` (a real 404, or a mode in which the store cannot exist) or
 * `error` with a safe message, never empty on error.
 */

import type { AccessEntry, AwsAuthConfigMap, ClusterId, ClusterSnapshot, Source } from '../core/model.ts';
import { CollectionError, safeErrorMessage } from '../errors.ts';
import type { ClusterDescription, EksReader, KubeClusterRef, Lookup } from '../ports.ts';

export type ReadResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A read that never rejects: its value, or the error it failed with. */
export async function awaitRead<T>(promise: Promise<T>): Promise<ReadResult<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

/** A lookup (found / really absent) or its failure, as a snapshot source. */
export function sourceOfLookup<T>(read: ReadResult<Lookup<T>>): Source<T> {
  if (!read.ok) return { status: 'error', error: safeErrorMessage(read.error) };
  return read.value.found
    ? { status: 'ok', data: read.value.value }
    : { status: 'absent', reason: read.value.reason };
}

/** A read that always finds something (a list) or its failure, as a snapshot source. */
export function sourceOfValue<T>(read: ReadResult<T>): Source<T> {
  return read.ok
    ? { status: 'ok', data: read.value }
    : { status: 'error', error: safeErrorMessage(read.error) };
}

/** The read failed because the cluster (or the thing read) does not exist. */
export function failedNotFound(read: ReadResult<unknown>): boolean {
  return !read.ok && read.error instanceof CollectionError && read.error.code === 'not-found';
}

/** Where the cluster's Kubernetes API is, from DescribeCluster (empty while it is being created). */
export function kubeClusterRef(
  cluster: ClusterDescription,
  at: Pick<ClusterId, 'accountId' | 'region'>,
): KubeClusterRef {
  return {
    accountId: at.accountId,
    region: at.region,
    clusterName: cluster.name,
    endpoint: cluster.endpoint ?? '',
    certificateAuthorityData: cluster.certificateAuthorityData ?? '',
  };
}

/** In `CONFIG_MAP` mode access entries cannot exist: the answer, without asking EKS. */
const NO_ACCESS_ENTRIES: Lookup<never> = {
  found: false,
  reason: 'authentication mode is CONFIG_MAP: access entries cannot exist',
};

/** The cluster's access entries; not read at all in `CONFIG_MAP` mode. */
export function readAccessEntries(
  eks: EksReader,
  cluster: ClusterDescription,
): Promise<Lookup<AccessEntry[]>> {
  return cluster.authenticationMode === 'CONFIG_MAP'
    ? Promise.resolve(NO_ACCESS_ENTRIES)
    : eks.accessEntries(cluster.name);
}

/** Fresh reads of the sources that change within seconds of an EKS write call. */
export interface VolatileReads {
  cluster: ClusterDescription;
  awsAuth: ReadResult<Lookup<AwsAuthConfigMap>>;
  /** Read before the mode was known: in `CONFIG_MAP` mode it is replaced by "cannot exist". */
  accessEntries: ReadResult<Lookup<AccessEntry[]>>;
}

/**
 * The stored source when the fresh read holds the same, so that the state evaluated from it is
 * seen as the stored one (core `predictEvent` then evaluates it once).
 */
function unlessSame<T>(stored: T, fresh: T): T {
  return JSON.stringify(stored) === JSON.stringify(fresh) ? stored : fresh;
}

/**
 * aws-auth as just read, for a snapshot that stored `stored`: the stored source when the read
 * failed (`stale`: a prediction, not a verdict) or found the same.
 */
export function freshAwsAuth(
  stored: ClusterSnapshot,
  read: ReadResult<Lookup<AwsAuthConfigMap>>,
): { awsAuth: ClusterSnapshot['awsAuth']; stale: boolean } {
  const awsAuth = sourceOfLookup(read);
  return awsAuth.status === 'error'
    ? { awsAuth: stored.awsAuth, stale: true }
    : { awsAuth: unlessSame(stored.awsAuth, awsAuth), stale: false };
}

/**
 * The event path's "before": the stored snapshot with the cluster's status and mode, aws-auth and
 * access entries read fresh. A fresh read that failed keeps the stored version (a prediction, not
 * a verdict) and is named in `staleSources`.
 */
export function refreshVolatile(
  stored: ClusterSnapshot,
  reads: VolatileReads,
  capturedAt: string,
): { snapshot: ClusterSnapshot; staleSources: string[] } {
  const { cluster } = reads;
  const awsAuth = freshAwsAuth(stored, reads.awsAuth);
  const accessEntries = sourceOfLookup<AccessEntry[]>(
    cluster.authenticationMode === 'CONFIG_MAP'
      ? { ok: true, value: NO_ACCESS_ENTRIES }
      : reads.accessEntries,
  );
  const staleSources: string[] = [];
  if (awsAuth.stale) staleSources.push('awsAuth');
  if (accessEntries.status === 'error') staleSources.push('accessEntries');
  const snapshot: ClusterSnapshot = {
    ...stored,
    capturedAt,
    cluster: { ...stored.cluster, status: cluster.status, authenticationMode: cluster.authenticationMode },
    awsAuth: awsAuth.awsAuth,
    accessEntries:
      accessEntries.status === 'error'
        ? stored.accessEntries
        : unlessSame(stored.accessEntries, accessEntries),
  };
  return { snapshot, staleSources };
}
