/**
 * Wires the live adapters into `CaptureDeps`: one set of AWS clients per Region, one IAM reader
 * (IAM is global; its instance-profile cache is shared by every cluster of the account), one
 * token provider and Kubernetes reader.
 */
import type { CaptureDeps, Clock } from '../ports.ts';
import { type AwsClientOptions, perRegion } from './aws-clients.ts';
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
}

export const systemClock: Clock = { now: () => new Date() };

export function createLiveCaptureDeps(options: LiveDepsOptions = {}): CaptureDeps {
  const tokens = createEksTokenProvider(
    options.credentials === undefined ? {} : { credentials: options.credentials },
  );
  return {
    eks: perRegion((region) => createEksReader(createEksClient(region, options), options.eks)),
    ec2: perRegion((region) => createEc2Reader(createEc2Client(region, options))),
    iam: createIamReader(createIamClient(options.iamRegion, options)),
    kube: createKubeReader({ ...options.kube, tokens }),
    clock: options.clock ?? systemClock,
  };
}
