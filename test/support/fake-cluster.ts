/**
 * In-memory readers of one cluster (EKS, EC2, IAM, Kubernetes) served from a ClusterSnapshot that
 * a test edits between runs, with a log of the calls made and failures to inject.
 */

import type { ClusterSnapshot, Source } from '../../shared/core/model.ts';
import { AwsApiError } from '../../shared/errors.ts';
import type { CaptureDeps, Ec2Instance, Lookup } from '../../shared/ports.ts';
import { createFakeClock, type FakeClock } from './monitor.ts';

export interface FakeCluster {
  /** The cluster's state as the readers report it; edit freely. */
  state: ClusterSnapshot;
  deps: CaptureDeps;
  clock: FakeClock;
  /** `service:Operation` of every call, in order. */
  calls: string[];
  /** Operations (`eks:DescribeCluster`, `kube:awsAuth` …) that fail until removed. */
  failing: Set<string>;
}

function dataOf<T>(source: Source<T> | undefined): T | undefined {
  return source?.status === 'ok' ? source.data : undefined;
}

/** An optional list source of the snapshot (absent from old snapshots): its data, or none. */
function optionalData<T>(source: Source<T[]> | undefined): T[] {
  return dataOf(source) ?? [];
}

function lookup<T>(source: Source<T>): Lookup<T> {
  return source.status === 'ok'
    ? { found: true, value: source.data }
    : { found: false, reason: source.status === 'absent' ? (source.reason ?? 'absent') : 'unreadable' };
}

export function createFakeCluster(initial: ClusterSnapshot): FakeCluster {
  const clock = createFakeClock();
  const calls: string[] = [];
  const failing = new Set<string>();
  const fake = { state: structuredClone(initial), clock, calls, failing } as FakeCluster;
  const s = () => fake.state;
  const call = async <T>(
    service: 'eks' | 'ec2' | 'iam' | 'kube',
    operation: string,
    fn: () => T,
  ): Promise<T> => {
    const name = `${service}:${operation}`;
    calls.push(name);
    if (failing.has(name)) {
      throw new AwsApiError(`${operation} for cluster ${s().clusterName} failed with AccessDeniedException`, {
        code: 'forbidden',
        service: service === 'kube' ? 'eks' : service,
        operation,
        iamAction: name,
      });
    }
    return structuredClone(fn());
  };
  fake.deps = {
    clock,
    eks: (region) => ({
      region,
      listClusters: () => call('eks', 'ListClusters', () => (region === s().region ? [s().clusterName] : [])),
      describeCluster: (name) =>
        call('eks', 'DescribeCluster', () => ({
          name,
          arn: s().clusterArn,
          status: s().cluster.status,
          authenticationMode: s().cluster.authenticationMode,
          endpoint: 'https://kube.example',
          certificateAuthorityData: 'Q0E=',
        })),
      nodegroups: () => call('eks', 'ListNodegroups', () => dataOf(s().nodegroups) ?? []),
      fargateProfiles: () => call('eks', 'ListFargateProfiles', () => dataOf(s().fargateProfiles) ?? []),
      accessEntries: () => call('eks', 'ListAccessEntries', () => lookup(s().accessEntries)),
      podIdentityAssociations: () =>
        call('eks', 'ListPodIdentityAssociations', () => optionalData(s().podIdentityAssociations)),
      addons: () => call('eks', 'ListAddons', () => optionalData(s().addons)),
    }),
    ec2: (region) => ({
      region,
      instancesOfCluster: () =>
        call('ec2', 'DescribeInstances', () =>
          (dataOf(s().compute) ?? [])
            .filter((c) => c.kind === 'managed' || c.kind === 'karpenter' || c.kind === 'self-managed')
            .map(
              (c): Ec2Instance => ({
                instanceId: c.id,
                state: 'running',
                kind: c.kind as Ec2Instance['kind'],
                ...(c.roleArn === undefined ? {} : { instanceProfileArn: `profile:${c.roleArn}` }),
                ...(c.nodegroup === undefined ? {} : { nodegroup: c.nodegroup }),
                ...(c.nodePool === undefined ? {} : { nodePool: c.nodePool }),
                ...(c.nodeClass === undefined ? {} : { nodeClass: c.nodeClass }),
                os: c.os ?? 'linux',
              }),
            ),
        ),
    }),
    iam: {
      roleOfInstanceProfile: (profile) =>
        call('iam', 'GetInstanceProfile', () => ({
          found: true as const,
          value: profile.replace(/^profile:/, ''),
        })),
      getRole: (arn) =>
        call('iam', 'GetRole', () => ({
          arn,
          state: 'exists' as const,
          roleId: 'AROA00000000000000000',
          createDate: '2024-01-01T00:00:00Z',
        })),
      oidcProviders: () => call('iam', 'ListOpenIDConnectProviders', () => optionalData(s().oidcProviders)),
      oidcProviderClientIds: (arn) =>
        call('iam', 'GetOpenIDConnectProvider', () => {
          const provider = optionalData(s().oidcProviders).find((p) => p.arn === arn);
          return provider === undefined
            ? { found: false as const, reason: `OIDC provider ${arn} does not exist` }
            : { found: true as const, value: provider.clientIds ?? ['sts.amazonaws.com'] };
        }),
      simulateRoleAction: (roleArn, action) =>
        call('iam', 'SimulatePrincipalPolicy', () => {
          const known = optionalData(s().nodeRolePermissions).find(
            (p) => p.roleArn === roleArn && p.action === action,
          );
          return known ?? { roleArn, action, decision: 'allowed' as const };
        }),
    },
    kube: {
      awsAuth: () => call('kube', 'awsAuth', () => lookup(s().awsAuth)),
      nodes: () => call('kube', 'nodes', () => []),
      serviceAccounts: () => call('kube', 'serviceAccounts', () => optionalData(s().serviceAccounts)),
      autoModeNodeClasses: () =>
        call('kube', 'autoModeNodeClasses', () => {
          const classes = dataOf(s().autoModeNodeClasses);
          return classes === undefined
            ? { found: false as const, reason: 'EKS Auto Mode is not enabled' }
            : {
                found: true as const,
                value: classes.map((c) => ({
                  name: c.name,
                  ...(c.role === undefined ? {} : { role: c.role }),
                })),
              };
        }),
      ec2NodeClasses: () =>
        call('kube', 'ec2NodeClasses', () => {
          const classes = dataOf(s().karpenterNodeClasses);
          return classes === undefined
            ? { found: false as const, reason: 'Karpenter is not installed' }
            : {
                found: true as const,
                value: classes.map((c) => ({
                  name: c.name,
                  ...(c.role === undefined ? {} : { role: c.role }),
                })),
              };
        }),
    },
  };
  return fake;
}
