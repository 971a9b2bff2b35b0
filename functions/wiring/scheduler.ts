/** The scheduler's deps: EKS ListClusters per Region and the work queue (no state, no delivery). */
import { perRegion } from '../../shared/adapters/aws-clients.ts';
import { createEksClient, createEksReader } from '../../shared/adapters/eks.ts';
import { createSqsClient, createSqsWorkQueue } from '../../shared/adapters/sqs-work-queue.ts';
import type { SentinelConfig } from '../../shared/app/config.ts';
import type { ScheduleClustersDeps } from '../../shared/app/schedule-clusters.ts';
import { clientOptions, type Env, homeRegion } from './env.ts';

export function createSchedulerWiring(config: SentinelConfig, env: Env): ScheduleClustersDeps {
  const options = clientOptions();
  return {
    eks: perRegion((region) => createEksReader(createEksClient(region, options))),
    queue: createSqsWorkQueue({ sqs: createSqsClient(homeRegion(env), options), queueUrl: config.queueUrl }),
  };
}
