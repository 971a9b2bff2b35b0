/**
 * Wires the live adapters into `CaptureDeps`: one set of AWS clients per Region, one IAM reader
 * (IAM is global; its instance-profile cache is shared by every cluster of the account), one
 * token provider and Kubernetes reader.
 */
import type { CaptureDeps, Clock } from '../ports.ts';
import { type AwsClientOptions, createAwsClientFactory } from './aws-clients.ts';
import { createEc2Reader } from './ec2.ts';
import { createEksReader, type EksReaderOptions } from './eks.ts';
import { createIamReader } from './iam.ts';
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
  const clientsFor = createAwsClientFactory(options);
  const eksReaders = new Map<string, ReturnType<typeof createEksReader>>();
  const ec2Readers = new Map<string, ReturnType<typeof createEc2Reader>>();
  const tokens = createEksTokenProvider(
    options.credentials === undefined ? {} : { credentials: options.credentials },
  );
  return {
    eks(region) {
      let reader = eksReaders.get(region);
      if (reader === undefined) {
        reader = createEksReader(clientsFor(region), options.eks);
        eksReaders.set(region, reader);
      }
      return reader;
    },
    ec2(region) {
      let reader = ec2Readers.get(region);
      if (reader === undefined) {
        reader = createEc2Reader(clientsFor(region));
        ec2Readers.set(region, reader);
      }
      return reader;
    },
    iam: createIamReader(clientsFor(options.iamRegion ?? 'us-east-1')),
    kube: createKubeReader({ ...options.kube, tokens }),
    clock: options.clock ?? systemClock,
  };
}
