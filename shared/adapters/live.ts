/**
 * Wires the live adapters into `CaptureDeps`: one set of AWS clients per Region, one IAM reader
 * (IAM is global; its instance-profile cache is shared by every cluster of the account), one
 * token provider and Kubernetes reader.
 *
 * Deadline: `withDeadline(epochMs | AbortSignal)` gives the same clients and caches with every
 * retry (EKS, EC2, IAM and Kubernetes) stopping at the deadline; a handler calls it per invocation,
 * e.g. `deps.withDeadline(Date.now() + context.getRemainingTimeInMillis() - 5_000)`. A source
 * stopped there is an error naming the operation (`DeadlineExceededError`), so the snapshot is
 * partial and says why; DescribeCluster stopped there fails the capture.
 */
import type { CaptureDeps, Clock } from '../ports.ts';
import { type AwsClientOptions, type Deadline, perRegion } from './aws-clients.ts';
import { createLogsClient, createLogsReader } from './cloudwatch-logs.ts';
import { createEc2Client, createEc2Reader } from './ec2.ts';
import { createEksClient, createEksReader, type EksReaderOptions } from './eks.ts';
import { createIamClient, createIamReader } from './iam.ts';
import { createEksTokenProvider } from './kube-token.ts';
import { createKubeReader, type KubeReaderOptions } from './kubernetes.ts';

export interface LiveDepsOptions extends AwsClientOptions {
  /** Region of the IAM client (IAM is global; default `us-east-1`). */
  iamRegion?: string;
  eks?: EksReaderOptions;
  kube?: Omit<KubeReaderOptions, 'tokens'>;
  clock?: Clock;
  /** Retries stop here (see `withDeadline`). */
  deadline?: Deadline;
}

export interface LiveCaptureDeps extends CaptureDeps {
  /** The same clients and caches, with every retry stopping at `deadline` (undefined: none). */
  withDeadline(deadline: Deadline | undefined): LiveCaptureDeps;
}

export const systemClock: Clock = { now: () => new Date() };

export function createLiveCaptureDeps(options: LiveDepsOptions = {}): LiveCaptureDeps {
  const tokens = createEksTokenProvider(
    options.credentials === undefined ? {} : { credentials: options.credentials },
  );
  const eksClient = perRegion((region) => createEksClient(region, options));
  const ec2Client = perRegion((region) => createEc2Client(region, options));
  const logs = perRegion((region) => createLogsReader(createLogsClient(region, options)));
  const iam = createIamReader(createIamClient(options.iamRegion, options));
  const clock = options.clock ?? systemClock;
  const bound = (deadline: Deadline | undefined): LiveCaptureDeps => {
    const at = deadline === undefined ? {} : { deadline };
    return {
      eks: perRegion((region) => createEksReader(eksClient(region), { ...options.eks, ...at })),
      ec2: perRegion((region) => createEc2Reader(ec2Client(region), at)),
      iam: iam.withDeadline(deadline),
      kube: createKubeReader({ ...options.kube, tokens, ...at }),
      logs,
      clock,
      withDeadline: bound,
    };
  };
  return bound(options.deadline);
}
