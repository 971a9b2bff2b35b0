/**
 * Issue 8 case 6: a stored snapshot that cannot be read or validated (an older format, a damaged
 * object) must not blind the cluster for good. The worker runs against a real S3 (s3rver): the
 * run evaluates the fresh capture as if nothing had been stored, reports
 * `monitor/source-unavailable` naming the object, and stores the fresh snapshot over it.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type createS3Client,
  createS3SnapshotStore,
  snapshotKey,
} from '../../shared/adapters/s3-snapshot-store.ts';
import { handleEksEvent } from '../../shared/app/handle-eks-event.ts';
import { runSnapshot } from '../../shared/app/run-snapshot.ts';
import { createHarness, KEY, loadRecord, MONITOR } from '../support/app-harness.ts';
import { startS3rver } from '../support/s3rver-helpers.ts';
import { loadScenario } from '../support/snapshot-builder.ts';

const BUCKET = 'sentinel-snapshots';
let local: Awaited<ReturnType<typeof startS3rver>>;
let s3: ReturnType<typeof createS3Client>;

beforeAll(async () => {
  local = await startS3rver(BUCKET);
  s3 = local.s3;
});
afterAll(async () => local?.close());

/** An older-format document: schemaVersion 0 and the sources under other names. */
const OLDER_FORMAT = JSON.stringify({
  schemaVersion: 0,
  capturedAt: '2025-01-01T00:00:00.000Z',
  cluster: { name: 'prod', mode: 'API_AND_CONFIG_MAP' },
  configMap: { mapRoles: '' },
});

function setup(body: string) {
  const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
  const snapshots = createS3SnapshotStore({ s3, bucket: BUCKET });
  const put = () =>
    s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: snapshotKey(KEY), Body: body }));
  const worker = () => {
    h.cluster.clock.advance(300_000);
    return runSnapshot(
      {
        capture: h.cluster.deps,
        snapshots,
        deliver: h.deliver,
        queue: h.queue,
        clock: h.cluster.clock,
        monitorPrincipalArn: MONITOR,
        followUp: { delaySeconds: 60, maxAttempts: 3 },
        idempotency: h.idempotency,
        idempotencyTtlSeconds: 86_400,
      },
      { ...KEY, reason: 'schedule' },
    );
  };
  return { h, snapshots, put, worker };
}

const objectName = `s3://${BUCKET}/${snapshotKey(KEY)}`;

describe('a stored snapshot that cannot be read or validated (issue 8 case 6)', () => {
  for (const [name, body] of [
    ['older format', OLDER_FORMAT],
    ['not JSON', '{"schemaVersion": 1, "capturedAt": '],
  ] as const) {
    it(`${name}: the run evaluates as if none were stored, alerts monitor/source-unavailable naming the object, and the next run is clean`, async () => {
      const { h, snapshots, put, worker } = setup(body);
      await put();
      const first = await worker();
      expect(first.outcome).toBe('evaluated');
      expect(first.previous).toBe('unreadable');
      const notices = h.sns.delivered.filter((n) => n.finding.ruleId === 'monitor/source-unavailable');
      expect(notices.map((n) => [n.kind, n.finding.subject])).toEqual([['opened', 'stored-snapshot']]);
      expect(notices[0]?.finding.title).toContain(objectName);
      // The fresh snapshot replaced the unreadable object.
      expect((await snapshots.latest(KEY))?.clusterName).toBe('prod');

      const second = await worker();
      expect(second.previous).toBe('found');
      expect(second.sourceUnavailable).toBe(0);
      expect(h.snsNotices()).toContain('resolved monitor/source-unavailable');
    });
  }

  it('the event path predicts from a bootstrap capture instead of throwing', async () => {
    const { h, snapshots, put } = setup(OLDER_FORMAT);
    await put();
    const result = await handleEksEvent(
      {
        eks: h.cluster.deps.eks,
        kube: h.cluster.deps.kube,
        snapshots,
        idempotency: h.idempotency,
        deliver: h.deliver,
        queue: h.queue,
        clock: h.cluster.clock,
        monitorPrincipalArn: MONITOR,
        followUpDelaySeconds: 60,
        idempotencyTtlSeconds: 86_400,
      },
      loadRecord('delete-nodegroup'),
    );
    expect(result).toMatchObject({ outcome: 'alerted', basis: 'bootstrap-capture' });
    expect(h.queue.sent).toHaveLength(1);
  });
});
