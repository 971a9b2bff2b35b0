/**
 * Ec2Reader over `@aws-sdk/client-ec2`: the running/pending instances of a cluster and their
 * attribution from tags (docs/eks-auth-semantics.md#karpenter-and-node-attribution). EC2 filters
 * AND across names and OR within values, so the three ways an instance can be tagged for a cluster are three queries, merged by instance ID:
 *   - `tag-key = kubernetes.io/cluster/<name>` (self-managed, Karpenter)
 *   - `tag:eks:cluster-name = <name>` (managed node groups)
 *   - `tag:eks:eks-cluster-name = <name>` (Karpenter, restricted tag)
 * They cannot be one query (three filter names AND together; a `tag-key` filter on the three
 * keys would fetch every EKS instance of the account, of every cluster). Memory is what scales:
 * each page is converted to `Ec2Instance` (≈ 0.3 KiB instead of the SDK's ≈ 12.5 KiB object per
 * instance) and merged by instance ID as it arrives, so at most one SDK page per query is held.
 */
import { DescribeInstancesCommand, EC2Client, type Filter, type Instance } from '@aws-sdk/client-ec2';
import type { Ec2Instance, Ec2InstanceKind, Ec2Reader } from '../ports.ts';
import {
  type AwsClient,
  type AwsClientOptions,
  callAws,
  createAwsClient,
  type Deadline,
} from './aws-clients.ts';
import { dropUndefined } from './util.ts';

/** DescribeInstances allows 5–1000 per page. */
export const EC2_PAGE_SIZE = 1000;
const LIVE_STATES = ['pending', 'running'];

export const TAG_NODEGROUP = 'eks:nodegroup-name';
export const TAG_KARPENTER_NODEPOOL = 'karpenter.sh/nodepool';
export const TAG_KARPENTER_NODECLASS = 'karpenter.k8s.aws/ec2nodeclass';

export function clusterTagFilters(clusterName: string): Filter[][] {
  return [
    [{ Name: 'tag-key', Values: [`kubernetes.io/cluster/${clusterName}`] }],
    [{ Name: 'tag:eks:cluster-name', Values: [clusterName] }],
    [{ Name: 'tag:eks:eks-cluster-name', Values: [clusterName] }],
  ];
}

/** Attribution by tags: `eks:nodegroup-name` → managed, `karpenter.sh/nodepool` → karpenter, else self-managed. */
export function attributeByTags(tags: Record<string, string>): Ec2InstanceKind {
  if (tags[TAG_NODEGROUP] !== undefined) return 'managed';
  if (tags[TAG_KARPENTER_NODEPOOL] !== undefined) return 'karpenter';
  return 'self-managed';
}

export function toEc2Instance(instance: Instance): Ec2Instance | undefined {
  if (instance.InstanceId === undefined) return undefined;
  const tags: Record<string, string> = {};
  for (const tag of instance.Tags ?? []) if (tag.Key !== undefined) tags[tag.Key] = tag.Value ?? '';
  const windows =
    instance.Platform?.toLowerCase() === 'windows' || /windows/i.test(instance.PlatformDetails ?? '');
  return dropUndefined({
    instanceId: instance.InstanceId,
    state: instance.State?.Name ?? 'unknown',
    kind: attributeByTags(tags),
    instanceProfileArn: instance.IamInstanceProfile?.Arn,
    privateDnsName: instance.PrivateDnsName === '' ? undefined : instance.PrivateDnsName,
    nodegroup: tags[TAG_NODEGROUP],
    nodePool: tags[TAG_KARPENTER_NODEPOOL],
    nodeClass: tags[TAG_KARPENTER_NODECLASS],
    os: windows ? ('windows' as const) : ('linux' as const),
  });
}

export function createEc2Client(region: string, options: AwsClientOptions = {}): AwsClient<EC2Client> {
  return createAwsClient(EC2Client, region, options, options.endpoints?.ec2);
}

export interface Ec2ReaderOptions {
  /** Retries stop here (`DeadlineExceededError`); none by default. */
  deadline?: Deadline;
}

export function createEc2Reader(ec2: AwsClient<EC2Client>, options: Ec2ReaderOptions = {}): Ec2Reader {
  const { client } = ec2;

  /** Pages one query to the end, converting each instance into `into` as its page arrives. */
  async function query(
    clusterName: string,
    filters: Filter[],
    into: Map<string, Ec2Instance>,
  ): Promise<void> {
    let nextToken: string | undefined;
    do {
      const output = await callAws(
        ec2,
        { service: 'ec2', operation: 'DescribeInstances', cluster: clusterName },
        (sendOptions) =>
          client.send(
            new DescribeInstancesCommand(
              dropUndefined({
                Filters: [...filters, { Name: 'instance-state-name', Values: LIVE_STATES }],
                MaxResults: EC2_PAGE_SIZE,
                NextToken: nextToken,
              }),
            ),
            sendOptions,
          ),
        options.deadline,
      );
      for (const reservation of output.Reservations ?? []) {
        for (const instance of reservation.Instances ?? []) {
          const converted = toEc2Instance(instance);
          if (converted !== undefined && LIVE_STATES.includes(converted.state))
            into.set(converted.instanceId, converted);
        }
      }
      nextToken = output.NextToken === '' ? undefined : output.NextToken;
    } while (nextToken !== undefined);
  }

  return {
    region: ec2.region,
    async instancesOfCluster(clusterName) {
      // The same instance under two filters converts to the same value: last write wins harmlessly.
      const byId = new Map<string, Ec2Instance>();
      await Promise.all(clusterTagFilters(clusterName).map((filters) => query(clusterName, filters, byId)));
      return [...byId.values()].sort((a, b) => a.instanceId.localeCompare(b.instanceId));
    },
  };
}
