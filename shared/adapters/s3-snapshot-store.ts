/**
 * SnapshotStore over S3: the last snapshot of each cluster at
 * `snapshots/<account>/<region>/<cluster>/latest.json` (JSON, `ContentType: application/json`).
 * Encryption and old versions are the bucket's business (SSE default, versioning, lifecycle).
 * A stored document is validated against the snapshot schema; an invalid one is an error, never
 * used as "the last state".
 *
 * IAM: s3:GetObject and s3:PutObject on `arn:aws:s3:::<bucket>/snapshots/*`; s3:ListBucket on the
 * bucket lets a missing key answer NoSuchKey (without it S3 answers AccessDenied).
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { ClusterId, ClusterSnapshot } from '../core/model.ts';
import { formatSnapshotErrors, parseSnapshotJson } from '../core/snapshot/index.ts';
import { MonitorIoError } from '../errors.ts';
import type { SnapshotStore } from '../ports.ts';
import { type AwsClient, budgetOptions, createAwsClient, type EndpointClientOptions } from './aws-clients.ts';
import { isAwsError, toMonitorIoError } from './errors.ts';

export interface S3ClientOptions extends EndpointClientOptions {
  /** Path-style addressing (local S3 servers). */
  forcePathStyle?: boolean;
}

export function createS3Client(region: string, options: S3ClientOptions = {}): AwsClient<S3Client> {
  return createAwsClient(
    S3Client,
    region,
    options,
    options.endpoint,
    options.forcePathStyle === undefined ? {} : { forcePathStyle: options.forcePathStyle },
  );
}

export interface S3SnapshotStoreOptions {
  s3: AwsClient<S3Client>;
  bucket: string;
  /** Key prefix, default `snapshots/`. */
  prefix?: string;
}

function segment(value: string): string {
  // EKS cluster names, Regions and account IDs are key-safe; encode anything else.
  return encodeURIComponent(value);
}

export function snapshotKey(key: ClusterId, prefix = 'snapshots/'): string {
  return `${prefix}${segment(key.accountId)}/${segment(key.region)}/${segment(key.clusterName)}/latest.json`;
}

export function createS3SnapshotStore(options: S3SnapshotStoreOptions): SnapshotStore {
  const { client, callBudgetMs } = options.s3;
  const { bucket } = options;
  const prefix = options.prefix ?? 'snapshots/';

  return {
    async latest(key, options): Promise<ClusterSnapshot | undefined> {
      const objectKey = snapshotKey(key, prefix);
      const resource = `s3://${bucket}/${objectKey}`;
      let text: string;
      try {
        const out = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: objectKey }),
          budgetOptions(callBudgetMs, options?.signal),
        );
        text = (await out.Body?.transformToString('utf-8')) ?? '';
      } catch (error) {
        if (isAwsError(error, 'NoSuchKey')) return undefined;
        throw toMonitorIoError(error, { service: 's3', operation: 'GetObject', resource });
      }
      const result = parseSnapshotJson(text, resource);
      if (!result.ok) {
        throw new MonitorIoError(
          `GetObject on ${resource}: the stored snapshot is not a valid ClusterSnapshot:\n${formatSnapshotErrors(resource, result)}`,
          { code: 'invalid-document', service: 's3', operation: 'GetObject', resource },
        );
      }
      const s = result.snapshot;
      if (s.accountId !== key.accountId || s.region !== key.region || s.clusterName !== key.clusterName) {
        throw new MonitorIoError(
          `GetObject on ${resource}: the stored snapshot is of cluster ${s.clusterName} (${s.accountId}, ${s.region})`,
          { code: 'invalid-document', service: 's3', operation: 'GetObject', resource },
        );
      }
      return s;
    },

    async put(snapshot) {
      const objectKey = snapshotKey(
        { accountId: snapshot.accountId, region: snapshot.region, clusterName: snapshot.clusterName },
        prefix,
      );
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: objectKey,
            Body: JSON.stringify(snapshot),
            ContentType: 'application/json',
          }),
          budgetOptions(callBudgetMs),
        );
      } catch (error) {
        throw toMonitorIoError(error, {
          service: 's3',
          operation: 'PutObject',
          resource: `s3://${bucket}/${objectKey}`,
        });
      }
    },
  };
}
