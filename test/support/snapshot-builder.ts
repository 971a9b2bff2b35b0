/**
 * Small builders for ClusterSnapshots in tests, plus the scenario loader. Every builder returns a
 * fresh object: tests may mutate what they get.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rolePrincipals } from '../../shared/core/access/compute.ts';
import { parseArn } from '../../shared/core/access/principal.ts';
import type {
  AccessEntry,
  AuthenticationMode,
  ClusterSnapshot,
  ComputeNode,
  FargateProfile,
  IamRole,
  ManagedField,
  Nodegroup,
} from '../../shared/core/model.ts';

export const ACCOUNT = '111122223333';
export const NODE_ROLE = `arn:aws:iam::${ACCOUNT}:role/prod-node-role`;
export const FARGATE_ROLE = `arn:aws:iam::${ACCOUNT}:role/prod-fargate-pod-execution`;
export const ADMIN_ROLE = `arn:aws:iam::${ACCOUNT}:role/platform-admin`;

export const ROOT = join(import.meta.dirname, '..', '..');

export function loadScenario(name: string): ClusterSnapshot {
  return JSON.parse(readFileSync(join(ROOT, 'scenarios', `${name}.json`), 'utf8')) as ClusterSnapshot;
}

export const nodeMapping = (arn = NODE_ROLE) =>
  `- rolearn: ${arn}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes\n`;

export const fargateMapping = (arn = FARGATE_ROLE) =>
  `- rolearn: ${arn}\n  username: system:node:{{SessionName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes\n    - system:node-proxier\n`;

export const adminMapping = (arn = ADMIN_ROLE) =>
  `- rolearn: ${arn}\n  username: admin\n  groups:\n    - system:masters\n`;

export function ec2Entry(arn = NODE_ROLE, over: Partial<AccessEntry> = {}): AccessEntry {
  return {
    principalArn: arn,
    type: 'EC2_LINUX',
    kubernetesGroups: [],
    accessPolicies: [],
    createdAt: '2025-02-01T00:00:00Z',
    ...over,
  };
}

export function managedNodes(n: number, nodegroup = 'general', roleArn = NODE_ROLE): ComputeNode[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'managed' as const,
    id: `i-0${String(i).padStart(16, 'a')}`,
    nodeName: `ip-10-0-1-${i}.eu-west-1.compute.internal`,
    roleArn,
    nodegroup,
    os: 'linux' as const,
    ready: 'True' as const,
  }));
}

export function karpenterNodes(n: number, roleArn = NODE_ROLE): ComputeNode[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'karpenter' as const,
    id: `i-0${String(i).padStart(16, 'b')}`,
    nodeName: `ip-10-0-2-${i}.eu-west-1.compute.internal`,
    roleArn,
    nodePool: 'default',
    nodeClass: 'default',
    os: 'linux' as const,
    ready: 'True' as const,
  }));
}

export function nodegroup(name = 'general', roleArn = NODE_ROLE, over: Partial<Nodegroup> = {}): Nodegroup {
  return { name, status: 'ACTIVE', nodeRole: roleArn, desiredSize: 2, healthIssues: [], ...over };
}

export function fargateProfile(
  name = 'fp-default',
  roleArn = FARGATE_ROLE,
  over: Partial<FargateProfile> = {},
): FargateProfile {
  return {
    name,
    status: 'ACTIVE',
    podExecutionRoleArn: roleArn,
    selectors: [{ namespace: 'default' }],
    ...over,
  };
}

export interface BuildOptions {
  mode?: AuthenticationMode;
  mapRoles?: string;
  mapUsers?: string;
  data?: Record<string, string>;
  managedFields?: ManagedField[];
  entries?: AccessEntry[];
  nodegroups?: Nodegroup[];
  fargateProfiles?: FargateProfile[];
  compute?: ComputeNode[];
  /** Default: every role of the account the sources name, with its path, as a capture records it. */
  iamRoles?: IamRole[];
}

/** What GetRole tells of each role the snapshot names (state `exists`, the path its ARN carries). */
export function capturedRoles(s: ClusterSnapshot): IamRole[] {
  const ok = <T>(src: { status: string; data?: T } | undefined) =>
    src?.status === 'ok' ? src.data : undefined;
  return rolePrincipals(s.accountId, {
    awsAuth: ok(s.awsAuth),
    accessEntries: ok(s.accessEntries),
    nodegroups: ok(s.nodegroups),
    fargateProfiles: ok(s.fargateProfiles),
    compute: ok(s.compute),
    nodeClasses: ok(s.karpenterNodeClasses),
  }).map((arn) => {
    const resource = parseArn(arn)?.resource ?? 'role/';
    const path = resource.slice('role'.length, resource.lastIndexOf('/') + 1);
    // IAM paths are printable ASCII: a hostile ARN gets no path, as GetRole would not answer it
    return /^(?:\/|\/[\x21-\x7E]+\/)$/.test(path) ? { arn, state: 'exists', path } : { arn, state: 'exists' };
  });
}

/** A healthy CONFIG_MAP cluster with one managed node group of 2 nodes, unless told otherwise. */
export function buildSnapshot(o: BuildOptions = {}): ClusterSnapshot {
  const mode = o.mode ?? 'CONFIG_MAP';
  const data = o.data ?? {
    ...(o.mapRoles !== undefined ? { mapRoles: o.mapRoles } : { mapRoles: nodeMapping() }),
    ...(o.mapUsers !== undefined ? { mapUsers: o.mapUsers } : {}),
  };
  const s: ClusterSnapshot = {
    schemaVersion: 1,
    capturedAt: '2026-11-20T10:00:00Z',
    accountId: ACCOUNT,
    region: 'eu-west-1',
    clusterName: 'prod',
    clusterArn: `arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/prod`,
    cluster: { status: 'ACTIVE', version: '1.31', authenticationMode: mode },
    awsAuth: { status: 'ok', data: { data, resourceVersion: '1', managedFields: o.managedFields ?? [] } },
    accessEntries:
      mode === 'CONFIG_MAP'
        ? { status: 'absent', reason: 'CONFIG_MAP mode' }
        : { status: 'ok', data: o.entries ?? [] },
    nodegroups: { status: 'ok', data: o.nodegroups ?? [nodegroup()] },
    fargateProfiles: { status: 'ok', data: o.fargateProfiles ?? [] },
    compute: { status: 'ok', data: o.compute ?? managedNodes(2) },
    karpenterNodeClasses: { status: 'ok', data: [] },
    iamRoles: { status: 'ok', data: [] },
  };
  s.iamRoles = { status: 'ok', data: o.iamRoles ?? capturedRoles(s) };
  return s;
}
