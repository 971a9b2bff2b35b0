import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type createS3Client,
  createS3SnapshotStore,
  snapshotKey,
} from '../../shared/adapters/s3-snapshot-store.ts';
import type { ClusterId, ClusterSnapshot } from '../../shared/core/model.ts';
import { MonitorIoError } from '../../shared/errors.ts';
import { startS3rver } from '../support/s3rver-helpers.ts';
import { loadScenario } from '../support/sandbox-helpers.ts';

const BUCKET = 'sentinel-snapshots';
let local: Awaited<ReturnType<typeof startS3rver>>;
let s3: ReturnType<typeof createS3Client>;

beforeAll(async () => {
  local = await startS3rver(BUCKET);
  s3 = local.s3;
});
afterAll(async () => local?.close());

function anySnapshot(): ClusterSnapshot {
  return loadScenario('a-karpenter-shares-last-nodegroup-role');
}
const keyOf = (s: ClusterSnapshot): ClusterId => ({
  accountId: s.accountId,
  region: s.region,
  clusterName: s.clusterName,
});

describe('createS3SnapshotStore (s3rver)', () => {
  it('answers undefined for a cluster never stored', async () => {
    const store = createS3SnapshotStore({ s3, bucket: BUCKET });
    expect(
      await store.latest({ accountId: '111122223333', region: 'eu-west-1', clusterName: 'never' }),
    ).toBeUndefined();
  });

  it('stores JSON at snapshots/<account>/<region>/<cluster>/latest.json and reads it back', async () => {
    const store = createS3SnapshotStore({ s3, bucket: BUCKET });
    const snapshot = anySnapshot();
    await store.put(snapshot);
    const key = snapshotKey(keyOf(snapshot));
    expect(key).toBe(
      `snapshots/${snapshot.accountId}/${snapshot.region}/${snapshot.clusterName}/latest.json`,
    );
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentType).toBe('application/json');
    expect(await store.latest(keyOf(snapshot))).toEqual(snapshot);
  });

  it('keeps only the latest per cluster', async () => {
    const store = createS3SnapshotStore({ s3, bucket: BUCKET });
    const first = anySnapshot();
    const second = { ...anySnapshot(), capturedAt: '2030-01-01T00:00:00.000Z' };
    await store.put(first);
    await store.put(second);
    expect((await store.latest(keyOf(first)))?.capturedAt).toBe('2030-01-01T00:00:00.000Z');
  });

  it('refuses a stored document that is not a valid snapshot, naming bucket, key and path', async () => {
    const store = createS3SnapshotStore({ s3, bucket: BUCKET });
    const key: ClusterId = { accountId: '111122223333', region: 'eu-west-1', clusterName: 'corrupt' };
    const broken = {
      ...anySnapshot(),
      clusterName: 'corrupt',
      accountId: '111122223333',
      region: 'eu-west-1',
      nodegroups: { status: 'maybe' },
    };
    await s3.client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: snapshotKey(key), Body: JSON.stringify(broken) }),
    );
    const error = await store.latest(key).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MonitorIoError);
    expect((error as MonitorIoError).code).toBe('invalid-document');
    expect((error as Error).message).toContain(
      `s3://${BUCKET}/snapshots/111122223333/eu-west-1/corrupt/latest.json`,
    );
    expect((error as Error).message).toContain('$.nodegroups');
  });

  it('refuses a document that is not JSON', async () => {
    const store = createS3SnapshotStore({ s3, bucket: BUCKET });
    const key: ClusterId = { accountId: '111122223333', region: 'eu-west-1', clusterName: 'not-json' };
    await s3.client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: snapshotKey(key), Body: '{"schemaVersion": 1,' }),
    );
    await expect(store.latest(key)).rejects.toMatchObject({
      name: 'MonitorIoError',
      code: 'invalid-document',
    });
  });

  it('refuses a valid snapshot of another cluster stored under this key', async () => {
    const store = createS3SnapshotStore({ s3, bucket: BUCKET });
    const other = anySnapshot();
    const key: ClusterId = { ...keyOf(other), clusterName: 'elsewhere' };
    await s3.client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: snapshotKey(key), Body: JSON.stringify(other) }),
    );
    await expect(store.latest(key)).rejects.toMatchObject({ code: 'invalid-document' });
  });

  it('throws a typed error naming the bucket for a missing bucket (not "no snapshot")', async () => {
    const store = createS3SnapshotStore({ s3, bucket: 'no-such-bucket' });
    const error = await store
      .latest({ accountId: '111122223333', region: 'eu-west-1', clusterName: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MonitorIoError);
    expect((error as Error).message).toContain('GetObject on s3://no-such-bucket/');
    expect((error as Error).message).toContain('NoSuchBucket');
  });

  it('reads what it wrote as plain JSON (any reader can use the object)', async () => {
    const snapshot = anySnapshot();
    await createS3SnapshotStore({ s3, bucket: BUCKET }).put(snapshot);
    const out = await s3.client.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: snapshotKey(keyOf(snapshot)) }),
    );
    expect(JSON.parse((await out.Body?.transformToString()) ?? '')).toEqual(snapshot);
  });
});
