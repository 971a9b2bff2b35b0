import { describe, expect, it } from 'vitest';
import {
  type Ec2Instance,
  type KubeNode,
  mergeCompute,
  parseClusterArn,
  roleArnFromName,
} from '../../shared/core/access/compute.ts';

const ACCT = '111122223333';
const profile = (name: string) => `arn:aws:iam::${ACCT}:instance-profile/${name}`;
const role = (name: string) => `arn:aws:iam::${ACCT}:role/${name}`;

const karpenterInstance: Ec2Instance = {
  instanceId: 'i-0000000000000000a',
  state: 'running',
  kind: 'karpenter',
  instanceProfileArn: profile('karpenter'),
  nodePool: 'default',
  nodeClass: 'default',
  os: 'linux',
};
const managedInstance: Ec2Instance = {
  instanceId: 'i-0000000000000000b',
  state: 'running',
  kind: 'managed',
  instanceProfileArn: profile('ng'),
  nodegroup: 'ng-1',
  os: 'linux',
};
const node = (
  name: string,
  instanceId: string | undefined,
  labels: Record<string, string>,
  ready: KubeNode['ready'] = 'True',
): KubeNode => ({
  name,
  ...(instanceId === undefined ? {} : { instanceId, providerId: `aws:///eu-west-1a/${instanceId}` }),
  labels,
  ...(ready === undefined ? {} : { ready }),
});

const profileRoles = new Map([
  [profile('karpenter'), role('NodeRole')],
  [profile('ng'), role('NodeRole')],
]);

describe('mergeCompute', () => {
  it('joins instances and nodes on providerID, role from the instance profile, Ready from the node', () => {
    const compute = mergeCompute({
      instances: [karpenterInstance, managedInstance],
      nodes: [
        node('ip-a', 'i-0000000000000000a', { 'karpenter.sh/nodepool': 'default' }, 'Unknown'),
        node('ip-b', 'i-0000000000000000b', { 'eks.amazonaws.com/nodegroup': 'ng-1' }),
      ],
      profileRoles,
      nodegroups: undefined,
      fargateProfiles: undefined,
      nodeClasses: undefined,
    });
    expect(compute).toEqual([
      {
        kind: 'karpenter',
        id: 'i-0000000000000000a',
        nodeName: 'ip-a',
        roleArn: role('NodeRole'),
        nodePool: 'default',
        nodeClass: 'default',
        os: 'linux',
        ready: 'Unknown',
      },
      {
        kind: 'managed',
        id: 'i-0000000000000000b',
        nodeName: 'ip-b',
        roleArn: role('NodeRole'),
        nodegroup: 'ng-1',
        os: 'linux',
        ready: 'True',
      },
    ]);
  });

  it('keeps an instance that never registered as a node, with Ready unknown', () => {
    const [only] = mergeCompute({
      instances: [karpenterInstance],
      nodes: [],
      profileRoles,
      nodegroups: undefined,
      fargateProfiles: undefined,
      nodeClasses: undefined,
    });
    expect(only).toMatchObject({ kind: 'karpenter', id: 'i-0000000000000000a', roleArn: role('NodeRole') });
    expect(only?.ready).toBeUndefined();
    expect(only?.nodeName).toBeUndefined();
  });

  it('when Kubernetes is unreadable, lists the EC2 instances with Ready unknown', () => {
    const compute = mergeCompute({
      instances: [karpenterInstance, managedInstance],
      nodes: undefined,
      profileRoles,
      nodegroups: undefined,
      fargateProfiles: undefined,
      nodeClasses: undefined,
    });
    expect(compute.map((c) => [c.kind, c.ready])).toEqual([
      ['karpenter', undefined],
      ['managed', undefined],
    ]);
  });

  it('gives a Fargate node the pod execution role of its profile (from the node label)', () => {
    const compute = mergeCompute({
      instances: [],
      nodes: [
        node('fargate-ip-10-0-1-9.eu-west-1.compute.internal', undefined, {
          'eks.amazonaws.com/compute-type': 'fargate',
          'eks.amazonaws.com/fargate-profile': 'fp-default',
        }),
      ],
      profileRoles: new Map(),
      nodegroups: undefined,
      fargateProfiles: [
        { name: 'fp-default', status: 'ACTIVE', podExecutionRoleArn: role('PodExec'), selectors: [] },
      ],
      nodeClasses: undefined,
    });
    expect(compute).toEqual([
      {
        kind: 'fargate',
        id: 'fargate-ip-10-0-1-9.eu-west-1.compute.internal',
        nodeName: 'fargate-ip-10-0-1-9.eu-west-1.compute.internal',
        roleArn: role('PodExec'),
        fargateProfile: 'fp-default',
        ready: 'True',
      },
    ]);
  });

  it('classifies auto and hybrid nodes by compute-type, and unlabelled tagged instances as self-managed', () => {
    const compute = mergeCompute({
      instances: [{ instanceId: 'i-0000000000000000c', state: 'running', kind: 'self-managed', os: 'linux' }],
      nodes: [
        node('auto-1', 'i-0000000000000000d', { 'eks.amazonaws.com/compute-type': 'auto' }),
        node('mi-1', undefined, { 'eks.amazonaws.com/compute-type': 'hybrid' }),
      ],
      profileRoles: new Map(),
      nodegroups: undefined,
      fargateProfiles: undefined,
      nodeClasses: undefined,
    });
    expect(compute.map((c) => [c.kind, c.id])).toEqual([
      ['auto', 'i-0000000000000000d'],
      ['hybrid', 'mi-1'],
      ['self-managed', 'i-0000000000000000c'],
    ]);
  });

  it('falls back to the node group or node class role for a node whose instance EC2 did not list', () => {
    const compute = mergeCompute({
      instances: [],
      nodes: [
        node('ip-e', 'i-0000000000000000e', { 'eks.amazonaws.com/nodegroup': 'ng-1' }),
        node('ip-f', 'i-0000000000000000f', {
          'karpenter.sh/nodepool': 'default',
          'karpenter.k8s.aws/ec2nodeclass': 'default',
        }),
      ],
      profileRoles: new Map(),
      nodegroups: [{ name: 'ng-1', status: 'ACTIVE', nodeRole: role('NgRole'), healthIssues: [] }],
      fargateProfiles: undefined,
      nodeClasses: [{ name: 'default', role: 'KarpenterRole', roleArn: role('KarpenterRole') }],
    });
    expect(compute.map((c) => [c.kind, c.roleArn])).toEqual([
      ['karpenter', role('KarpenterRole')],
      ['managed', role('NgRole')],
    ]);
  });
});

describe('ARN helpers', () => {
  it('reads partition and account from a cluster ARN', () => {
    expect(parseClusterArn(`arn:aws-cn:eks:cn-north-1:${ACCT}:cluster/prod`)).toEqual({
      partition: 'aws-cn',
      accountId: ACCT,
    });
    expect(parseClusterArn('not-an-arn')).toBeUndefined();
  });

  it('builds a role ARN from a Karpenter role name, keeping an ARN as is', () => {
    expect(roleArnFromName('KarpenterNodeRole-prod', 'aws', ACCT)).toBe(role('KarpenterNodeRole-prod'));
    expect(roleArnFromName(role('x'), 'aws', ACCT)).toBe(role('x'));
  });
});
