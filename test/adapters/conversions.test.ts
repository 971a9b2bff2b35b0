import { describe, expect, it } from 'vitest';
import { attributeByTags, toEc2Instance } from '../../shared/adapters/ec2.ts';
import { iamNameOf, iamRoleArnOf } from '../../shared/adapters/iam.ts';
import {
  dataKeysOfFieldsV1,
  instanceIdFromProviderId,
  toAwsAuth,
  toEc2NodeClass,
  toKubeNode,
} from '../../shared/adapters/kubernetes.ts';

describe('instanceIdFromProviderId', () => {
  it('takes the instance ID out of aws:///<az>/<instance-id>', () => {
    expect(instanceIdFromProviderId('aws:///eu-west-1a/i-0123456789abcdef0')).toBe('i-0123456789abcdef0');
    expect(instanceIdFromProviderId('aws:///us-east-1b/i-12345678')).toBe('i-12345678');
  });

  it('gives nothing for Fargate, hybrid, other clouds and malformed IDs', () => {
    expect(instanceIdFromProviderId(undefined)).toBeUndefined();
    expect(
      instanceIdFromProviderId('aws:///eu-west-1a/fargate-ip-10-0-1-2.eu-west-1.compute.internal'),
    ).toBeUndefined();
    expect(instanceIdFromProviderId('eks-hybrid:///eu-west-1/prod/mi-0123456789abcdef0')).toBeUndefined();
    expect(instanceIdFromProviderId('gce://project/zone/name')).toBeUndefined();
    expect(instanceIdFromProviderId('aws:///eu-west-1a/i-xyz')).toBeUndefined();
  });
});

describe('dataKeysOfFieldsV1', () => {
  it('lists the data keys a field manager owns, without the f: prefix and the "." marker', () => {
    expect(dataKeysOfFieldsV1({ 'f:data': { '.': {}, 'f:mapRoles': {}, 'f:mapUsers': {} } })).toEqual([
      'mapRoles',
      'mapUsers',
    ]);
  });

  it('is empty when the manager owns metadata only, or fieldsV1 is missing', () => {
    expect(dataKeysOfFieldsV1({ 'f:metadata': { 'f:labels': {} } })).toEqual([]);
    expect(dataKeysOfFieldsV1(undefined)).toEqual([]);
    expect(dataKeysOfFieldsV1({ 'f:data': 'x' })).toEqual([]);
  });
});

describe('toAwsAuth', () => {
  it('keeps data raw, the resourceVersion and every field manager with its data keys and time', () => {
    const awsAuth = toAwsAuth({
      data: { mapRoles: '- rolearn: arn:aws:iam::111122223333:role/node\n' },
      metadata: {
        name: 'aws-auth',
        namespace: 'kube-system',
        resourceVersion: '4242',
        managedFields: [
          {
            manager: 'eks',
            operation: 'Update',
            time: new Date('2026-01-02T03:04:05Z'),
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:data': { 'f:mapRoles': {} } },
          },
          {
            manager: 'terraform',
            operation: 'Apply',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:data': { 'f:mapRoles': {}, 'f:mapUsers': {} } },
          },
        ],
      },
    });
    expect(awsAuth).toEqual({
      data: { mapRoles: '- rolearn: arn:aws:iam::111122223333:role/node\n' },
      resourceVersion: '4242',
      managedFields: [
        { manager: 'eks', operation: 'Update', time: '2026-01-02T03:04:05.000Z', dataKeys: ['mapRoles'] },
        { manager: 'terraform', operation: 'Apply', dataKeys: ['mapRoles', 'mapUsers'] },
      ],
    });
  });
});

describe('toKubeNode', () => {
  it('reads name, labels, providerID → instance ID and the Ready condition', () => {
    const node = toKubeNode({
      metadata: {
        name: 'ip-10-0-1-2.eu-west-1.compute.internal',
        labels: { 'karpenter.sh/nodepool': 'default' },
      },
      spec: { providerID: 'aws:///eu-west-1a/i-0123456789abcdef0' },
      status: {
        conditions: [
          { type: 'MemoryPressure', status: 'False' },
          { type: 'Ready', status: 'Unknown' },
        ],
      },
    });
    expect(node).toEqual({
      name: 'ip-10-0-1-2.eu-west-1.compute.internal',
      providerId: 'aws:///eu-west-1a/i-0123456789abcdef0',
      instanceId: 'i-0123456789abcdef0',
      labels: { 'karpenter.sh/nodepool': 'default' },
      ready: 'Unknown',
    });
  });

  it('keeps when the Ready condition last changed (lastTransitionTime), for "NotReady since …"', () => {
    const node = toKubeNode({
      metadata: { name: 'n' },
      status: {
        conditions: [
          { type: 'Ready', status: 'Unknown', lastTransitionTime: new Date('2026-11-20T09:58:00Z') },
        ],
      },
    });
    expect(node.readySince).toBe('2026-11-20T09:58:00.000Z');
  });

  it('leaves Ready unknown when the node reports no Ready condition', () => {
    expect(toKubeNode({ metadata: { name: 'n' } }).ready).toBeUndefined();
  });
});

describe('toEc2NodeClass', () => {
  it('takes spec.role, or spec.instanceProfile', () => {
    expect(
      toEc2NodeClass({
        metadata: { name: 'default' },
        spec: { role: 'KarpenterNodeRole-prod' },
        status: { instanceProfile: 'prod_123' },
      }),
    ).toEqual({
      name: 'default',
      role: 'KarpenterNodeRole-prod',
    });
    expect(
      toEc2NodeClass({ metadata: { name: 'private' }, spec: { instanceProfile: 'KarpenterProfile' } }),
    ).toEqual({
      name: 'private',
      instanceProfile: 'KarpenterProfile',
    });
  });
});

describe('EC2 attribution', () => {
  it('is managed with eks:nodegroup-name, karpenter with karpenter.sh/nodepool, else self-managed', () => {
    expect(attributeByTags({ 'eks:nodegroup-name': 'ng-1', 'eks:cluster-name': 'prod' })).toBe('managed');
    expect(
      attributeByTags({ 'karpenter.sh/nodepool': 'default', 'kubernetes.io/cluster/prod': 'owned' }),
    ).toBe('karpenter');
    expect(attributeByTags({ 'kubernetes.io/cluster/prod': 'owned' })).toBe('self-managed');
  });

  it('converts an instance with its profile, node pool, node class and OS', () => {
    expect(
      toEc2Instance({
        InstanceId: 'i-0123456789abcdef0',
        State: { Name: 'running' },
        IamInstanceProfile: {
          Arn: 'arn:aws:iam::111122223333:instance-profile/KarpenterNodeInstanceProfile',
        },
        PrivateDnsName: 'ip-10-0-1-2.eu-west-1.compute.internal',
        Platform: 'Windows',
        Tags: [
          { Key: 'karpenter.sh/nodepool', Value: 'default' },
          { Key: 'karpenter.k8s.aws/ec2nodeclass', Value: 'default' },
        ],
      }),
    ).toEqual({
      instanceId: 'i-0123456789abcdef0',
      state: 'running',
      kind: 'karpenter',
      instanceProfileArn: 'arn:aws:iam::111122223333:instance-profile/KarpenterNodeInstanceProfile',
      privateDnsName: 'ip-10-0-1-2.eu-west-1.compute.internal',
      nodePool: 'default',
      nodeClass: 'default',
      os: 'windows',
    });
  });
});

describe('iamNameOf', () => {
  it('is the last path segment of a role or instance-profile ARN, or the name itself', () => {
    expect(iamNameOf('arn:aws:iam::111122223333:role/team/nodes/NodeRole', 'role')).toBe('NodeRole');
    expect(iamNameOf('arn:aws-cn:iam::111122223333:instance-profile/p', 'instance-profile')).toBe('p');
    expect(iamNameOf('NodeRole', 'role')).toBe('NodeRole');
    expect(() => iamNameOf('arn:aws:iam::111122223333:user/alice', 'role')).toThrow(RangeError);
  });
});

describe('iamRoleArnOf', () => {
  const arn = 'arn:aws:iam::111122223333:role/eks/legacy-node';

  it("keeps GetRole's ARN and path when they name the role asked for", () => {
    expect(iamRoleArnOf(arn, '/eks/', 'legacy-node')).toEqual({ arn, path: '/eks/' });
    expect(iamRoleArnOf('arn:aws:iam::111122223333:role/x', '/', 'X')).toEqual({
      arn: 'arn:aws:iam::111122223333:role/x',
      path: '/',
    });
  });

  it('drops an answer that is missing, malformed or about another role', () => {
    expect(iamRoleArnOf(undefined, '/eks/', 'legacy-node')).toBeUndefined();
    expect(iamRoleArnOf(arn, undefined, 'legacy-node')).toBeUndefined();
    expect(iamRoleArnOf(arn, '/', 'legacy-node')).toBeUndefined();
    expect(iamRoleArnOf(arn, 'eks', 'legacy-node')).toBeUndefined();
    expect(iamRoleArnOf(arn, '/eks/', 'other')).toBeUndefined();
    expect(
      iamRoleArnOf('arn:aws:iam::111122223333:user/eks/legacy-node', '/eks/', 'legacy-node'),
    ).toBeUndefined();
  });
});
