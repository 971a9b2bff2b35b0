/**
 * The composition root of the Lambda functions: config → adapters → use-case deps, all of it in
 * functions/wiring/ (the use cases in shared/app import no adapter). Split by what each function
 * needs, so that a bundle holds only the SDK clients it uses:
 *   state.ts      state and delivery (S3, DynamoDB, SQS, SNS, Slack via SSM) — worker, event, report
 *   senders.ts    the notice channels (SNS, Slack with its webhook URL from SSM) — via state.ts
 *   capture.ts    the full capture (EKS, EC2, IAM, Kubernetes) — worker, report
 *   worker.ts     snapshotWorker: capture + state + the follow-up settings
 *   report.ts     report: capture + the snapshot store
 *   event.ts      onEksEvent: EKS and Kubernetes aws-auth readers only (never EC2/IAM) + state
 *   scheduler.ts  scheduler: EKS ListClusters + SQS
 *   env.ts        what they share without importing an adapter (Region, client options, account)
 *
 * Endpoints: the SDK honours `AWS_ENDPOINT_URL_<SERVICE>` (sandbox, dynalite, s3rver); a local
 * S3 endpoint gets path-style addressing. Clients are created once per cold start.
 */

import {
  createDynamoDbAlertStore,
  createDynamoDbClient,
} from '../../shared/adapters/dynamodb-alert-store.ts';
import { createDynamoDbIdempotencyStore } from '../../shared/adapters/dynamodb-idempotency.ts';
import { createS3Client, createS3SnapshotStore } from '../../shared/adapters/s3-snapshot-store.ts';
import { createSqsClient, createSqsWorkQueue } from '../../shared/adapters/sqs-work-queue.ts';
import type { SentinelConfig } from '../../shared/app/config.ts';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import type { ChannelPolicy } from '../../shared/core/alerts/index.ts';
import type {
  AlertStore,
  Clock,
  Deliver,
  IdempotencyStore,
  NoticeSender,
  SnapshotStore,
  WorkQueue,
} from '../../shared/ports.ts';
import { clientOptions, type Env, homeRegion } from './env.ts';
import { createSenders } from './senders.ts';

export interface StateWiring {
  clock: Clock;
  alerts: AlertStore;
  snapshots: SnapshotStore;
  idempotency: IdempotencyStore;
  queue: WorkQueue;
  senders: NoticeSender[];
  deliver: Deliver;
}

export function createStateWiring(config: SentinelConfig, env: Env): StateWiring {
  const region = homeRegion(env);
  const options = clientOptions();
  const dynamodb = createDynamoDbClient(region, options);
  const sqs = createSqsClient(region, options);
  const clock: Clock = { now: () => new Date() };
  const senders = createSenders(config, region, options);
  const alerts = createDynamoDbAlertStore({ dynamodb, tableName: config.tableName });
  const channels: Partial<Record<'sns' | 'slack', ChannelPolicy>> = { sns: config.channels.sns };
  if (config.channels.slack !== undefined) channels.slack = config.channels.slack;
  return {
    clock,
    alerts,
    snapshots: createSnapshotStore(config, env),
    idempotency: createDynamoDbIdempotencyStore({ dynamodb, tableName: config.tableName, clock }),
    queue: createSqsWorkQueue({ sqs, queueUrl: config.queueUrl }),
    senders,
    deliver: (key, findings, scope) =>
      deliverAlerts({ alerts, senders, clock }, key, findings, scope, channels),
  };
}

/** The snapshot store alone (the report needs nothing else of the state). */
export function createSnapshotStore(config: SentinelConfig, env: Env): SnapshotStore {
  const s3 = createS3Client(homeRegion(env), {
    ...clientOptions(),
    forcePathStyle: env.AWS_ENDPOINT_URL_S3 !== undefined,
  });
  return createS3SnapshotStore({ s3, bucket: config.bucketName });
}
