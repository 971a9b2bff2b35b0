/** Seed snapshots for the sandbox tests (cloned per use). */
import type { ClusterSnapshot } from '../../shared/core/model.ts';

export const ACCOUNT = '111122223333';
export const REGION = 'eu-west-1';
export const SHARED_ROLE = `arn:aws:iam::${ACCOUNT}:role/eks-shared-node-role`;
export const SOLO_ROLE = `arn:aws:iam::${ACCOUNT}:role/eks-solo-node-role`;
export const FARGATE_ROLE = `arn:aws:iam::${ACCOUNT}:role/eks-fargate-pod-execution`;
export const ADMIN_ROLE = `arn:aws:iam::${ACCOUNT}:role/platform-admin`;

export const MAP_ROLES = `- rolearn: ${SHARED_ROLE}
  username: system:node:{{EC2PrivateDNSName}}
  groups:
    - system:bootstrappers
    - system:nodes
- rolearn: ${SOLO_ROLE}
  username: system:node:{{EC2PrivateDNSName}}
  groups:
    - system:bootstrappers
    - system:nodes
- rolearn: ${FARGATE_ROLE}
  username: system:node:{{SessionName}}
  groups:
    - system:bootstrappers
    - system:nodes
    - system:node-proxier
- rolearn: ${ADMIN_ROLE}
  username: admin
  groups:
    - system:masters
`;

export function baseSnapshot(
  mode: ClusterSnapshot['cluster']['authenticationMode'] = 'API_AND_CONFIG_MAP',
): ClusterSnapshot {
  return {
    schemaVersion: 1,
    capturedAt: '2026-11-29T12:00:00.000Z',
    accountId: ACCOUNT,
    region: REGION,
    clusterName: 'prod',
    clusterArn: `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/prod`,
    cluster: { status: 'ACTIVE', version: '1.31', platformVersion: 'eks.12', authenticationMode: mode },
    awsAuth: {
      status: 'ok',
      data: {
        data: { mapRoles: MAP_ROLES },
        resourceVersion: '4242',
        managedFields: [{ manager: 'Terraform', operation: 'Update', dataKeys: ['mapRoles'] }],
      },
    },
    accessEntries:
      mode === 'CONFIG_MAP'
        ? { status: 'absent', reason: 'CONFIG_MAP' }
        : {
            status: 'ok',
            data: [
              {
                principalArn: SOLO_ROLE,
                type: 'EC2_LINUX',
                kubernetesGroups: [],
                createdAt: '2026-01-01T00:00:00.000Z',
                accessPolicies: [],
              },
            ],
          },
    nodegroups: {
      status: 'ok',
      data: [
        { name: 'ng-a', status: 'ACTIVE', nodeRole: SHARED_ROLE, desiredSize: 1, healthIssues: [] },
        { name: 'ng-b', status: 'ACTIVE', nodeRole: SHARED_ROLE, desiredSize: 1, healthIssues: [] },
        { name: 'ng-solo', status: 'ACTIVE', nodeRole: SOLO_ROLE, desiredSize: 1, healthIssues: [] },
      ],
    },
    fargateProfiles: {
      status: 'ok',
      data: [
        {
          name: 'fp-default',
          status: 'ACTIVE',
          podExecutionRoleArn: FARGATE_ROLE,
          selectors: [{ namespace: 'jobs' }],
        },
      ],
    },
    compute: {
      status: 'ok',
      data: [
        {
          kind: 'managed',
          id: 'i-0aaaaaaaaaaaaaaa1',
          nodeName: 'ip-10-0-1-1.eu-west-1.compute.internal',
          roleArn: SHARED_ROLE,
          nodegroup: 'ng-a',
        },
        {
          kind: 'managed',
          id: 'i-0aaaaaaaaaaaaaaa2',
          nodeName: 'ip-10-0-1-2.eu-west-1.compute.internal',
          roleArn: SHARED_ROLE,
          nodegroup: 'ng-b',
        },
        {
          kind: 'managed',
          id: 'i-0aaaaaaaaaaaaaaa3',
          nodeName: 'ip-10-0-1-3.eu-west-1.compute.internal',
          roleArn: SOLO_ROLE,
          nodegroup: 'ng-solo',
        },
        {
          kind: 'karpenter',
          id: 'i-0bbbbbbbbbbbbbbb1',
          nodeName: 'ip-10-0-2-1.eu-west-1.compute.internal',
          roleArn: SHARED_ROLE,
          nodePool: 'default',
          nodeClass: 'default',
        },
        {
          kind: 'self-managed',
          id: 'i-0ccccccccccccccc1',
          nodeName: 'ip-10-0-3-1.eu-west-1.compute.internal',
          roleArn: SOLO_ROLE,
        },
        {
          kind: 'fargate',
          id: 'fargate-ip-10-0-4-1.eu-west-1.compute.internal',
          nodeName: 'fargate-ip-10-0-4-1.eu-west-1.compute.internal',
          roleArn: FARGATE_ROLE,
          fargateProfile: 'fp-default',
        },
      ],
    },
    karpenterNodeClasses: {
      status: 'ok',
      data: [{ name: 'default', role: 'eks-shared-node-role', roleArn: SHARED_ROLE }],
    },
    iamRoles: {
      status: 'ok',
      data: [
        {
          arn: SHARED_ROLE,
          state: 'exists',
          roleId: 'AROASHAREDNODEROLE0001',
          createDate: '2025-01-01T00:00:00Z',
        },
        { arn: `arn:aws:iam::${ACCOUNT}:role/deleted-role`, state: 'missing' },
      ],
    },
  };
}

/** `s` with IAM roles at the paths their ARNs carry (CreateAccessEntry needs the role to exist). */
export function withIamRoles(s: ClusterSnapshot, ...arns: string[]): ClusterSnapshot {
  if (s.iamRoles.status !== 'ok') throw new Error('seed: iamRoles not ok');
  for (const arn of arns) {
    const resource = arn.slice(arn.indexOf(':role/') + ':role'.length);
    s.iamRoles.data.push({ arn, state: 'exists', path: resource.slice(0, resource.lastIndexOf('/') + 1) });
  }
  return s;
}
