/**
 * Wiring of the Lambda functions: config → adapters → use-case deps. Split by what each function
 * needs, so that a bundle holds only the SDK clients it uses:
 *   wiring.ts          state and delivery (S3, DynamoDB, SQS, SNS, Slack via SSM) — worker, event, report
 *   wiring-capture.ts  the full capture (EKS, EC2, IAM, Kubernetes) — worker, report
 *   wiring-event.ts    the event path's readers (EKS, Kubernetes; never EC2/IAM) — onEksEvent
 *   wiring-scheduler.ts  EKS ListClusters + SQS — scheduler
 *
 * Endpoints: the SDK honours `AWS_ENDPOINT_URL_<SERVICE>` (sandbox, dynalite, s3rver); a local
 * S3 endpoint gets path-style addressing. Clients are created once per cold start.
 */

import { createDynamoDbAlertStore, createDynamoDbClient } from '../adapters/dynamodb-alert-store.ts';
import { createDynamoDbIdempotencyStore } from '../adapters/dynamodb-idempotency.ts';
import { createS3Client, createS3SnapshotStore } from '../adapters/s3-snapshot-store.ts';
import { createSqsClient, createSqsWorkQueue } from '../adapters/sqs-work-queue.ts';
import type { ChannelPolicy } from '../core/alerts.ts';
import type { Clock, Deliver, IdempotencyStore, NoticeSender, SnapshotStore, WorkQueue } from '../ports.ts';
import type { SentinelConfig } from './config.ts';
import { deliverAlerts } from './deliver-alerts.ts';
import { clientOptions, type Env, homeRegion } from './wiring-env.ts';
import { createSenders } from './wiring-senders.ts';

export interface StateWiring {
  clock: Clock;
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
