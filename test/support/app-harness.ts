/** Use-case test set-up: a fake cluster, in-memory state and channels, the real alert lifecycle. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import type { ChannelPolicy } from '../../shared/core/alerts/lifecycle.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import type { Deliver } from '../../shared/ports.ts';
import { createFakeCluster } from './fake-cluster.ts';
import {
  createFakeAlertStore,
  createFakeIdempotencyStore,
  createFakeSender,
  createFakeSnapshotStore,
  createFakeWorkQueue,
} from './monitor.ts';
import { ROOT } from './snapshot-builder.ts';

export const MONITOR = 'arn:aws:iam::111122223333:role/eks-auth-sentinel';
export const KEY = { accountId: '111122223333', region: 'eu-west-1', clusterName: 'prod' };

export function loadRecord(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'cloudtrail', `${name}.json`), 'utf8'));
}

export function createHarness(
  snapshot: ClusterSnapshot,
  channels: { sns?: ChannelPolicy; slack?: ChannelPolicy } = {},
) {
  const cluster = createFakeCluster(snapshot);
  const alerts = createFakeAlertStore();
  const sns = createFakeSender('sns');
  const slack = createFakeSender('slack');
  const snapshots = createFakeSnapshotStore();
  const queue = createFakeWorkQueue();
  const idempotency = createFakeIdempotencyStore(cluster.clock);
  const policy = {
    sns: channels.sns ?? { minSeverity: 'low' },
    slack: channels.slack ?? { minSeverity: 'high' },
  };
  const deliver: Deliver = (key, findings, scope) =>
    deliverAlerts({ alerts, senders: [sns, slack], clock: cluster.clock }, key, findings, scope, policy);
  /** Notices delivered to SNS as `kind ruleId` lines. */
  const snsNotices = () => sns.delivered.map((n) => `${n.kind} ${n.finding.ruleId}`);
  return { cluster, alerts, sns, slack, snapshots, queue, idempotency, deliver, snsNotices };
}
