/**
 * Compute, pure: which nodes a cluster runs and which IAM role each authenticates with, merged from
 * the EC2 instances tagged for the cluster and the Kubernetes nodes (providerID ↔ instance ID),
 * plus the ARN helpers and the role principals a capture looks up in IAM. The use case
 * (`shared/app/capture-snapshot.ts`) reads the sources and decides what an unreadable one means;
 * this module only combines what was read.
 */
import type {
  AccessEntry,
  AwsAuthConfigMap,
  ComputeKind,
  ComputeNode,
  FargateProfile,
  KarpenterNodeClass,
  Nodegroup,
} from '../model.ts';
import { principalKey, roleArnHasPath } from './principal.ts';

// ---------------------------------------------------------------------------------------------
// What the readers return (EC2 instances and Kubernetes nodes, reduced to what the merge uses)

export type Ec2InstanceKind = 'managed' | 'karpenter' | 'self-managed';

/** A running or pending EC2 instance tagged for a cluster. */
export interface Ec2Instance {
  instanceId: string;
  state: string;
  /** Attribution from the instance's tags (eks:nodegroup-name → managed, karpenter.sh/nodepool → karpenter). */
  kind: Ec2InstanceKind;
  instanceProfileArn?: string;
  privateDnsName?: string;
  nodegroup?: string;
  nodePool?: string;
  nodeClass?: string;
  os: 'linux' | 'windows';
}

export interface KubeNode {
  name: string;
  providerId?: string;
  /** EC2 instance ID parsed from `aws:///<az>/<instance-id>`. */
  instanceId?: string;
  labels: Record<string, string>;
  ready?: 'True' | 'False' | 'Unknown';
  /** The Ready condition's `lastTransitionTime`. */
  readySince?: string;
}

export const LABEL_COMPUTE_TYPE = 'eks.amazonaws.com/compute-type';
export const LABEL_NODEGROUP = 'eks.amazonaws.com/nodegroup';
export const LABEL_FARGATE_PROFILE = 'eks.amazonaws.com/fargate-profile';
export const LABEL_KARPENTER_NODEPOOL = 'karpenter.sh/nodepool';
export const LABEL_KARPENTER_NODECLASS = 'karpenter.k8s.aws/ec2nodeclass';
export const LABEL_OS = 'kubernetes.io/os';

/** `arn:<partition>:eks:<region>:<account>:cluster/<name>` → partition and account. */
export function parseClusterArn(arn: string): { partition: string; accountId: string } | undefined {
  const match = /^arn:([^:]+):eks:[^:]*:(\d{12}):cluster\/.+$/.exec(arn);
  return match === null ? undefined : { partition: match[1] ?? 'aws', accountId: match[2] ?? '' };
}

/** `arn:<partition>:iam::<account>:role/<path/>name` → account, or undefined when not an IAM role ARN. */
export function roleAccount(arn: string): string | undefined {
  return /^arn:[^:]+:iam::(\d{12}):role\/.+$/.exec(arn)?.[1];
}

/** Role ARN of a Karpenter `spec.role` (a role name, or already an ARN). */
export function roleArnFromName(role: string, partition: string, accountId: string): string {
  return role.startsWith('arn:') ? role : `arn:${partition}:iam::${accountId}:role/${role}`;
}

// ---------------------------------------------------------------------------------------------
// Compute merge

export interface ComputeInputs {
  instances: Ec2Instance[] | undefined;
  nodes: KubeNode[] | undefined;
  /** Role ARN per instance profile ARN (resolved through IAM). */
  profileRoles: ReadonlyMap<string, string>;
  nodegroups: Nodegroup[] | undefined;
  fargateProfiles: FargateProfile[] | undefined;
  nodeClasses: KarpenterNodeClass[] | undefined;
}

function kindFromLabels(labels: Record<string, string>): ComputeKind | undefined {
  const computeType = labels[LABEL_COMPUTE_TYPE];
  if (computeType === 'fargate' || computeType === 'auto' || computeType === 'hybrid') return computeType;
  if (labels[LABEL_NODEGROUP] !== undefined) return 'managed';
  if (labels[LABEL_KARPENTER_NODEPOOL] !== undefined) return 'karpenter';
  return undefined;
}

/** Kind: compute-type label first (fargate/auto/hybrid), then EC2 tags, then node labels, else self-managed. */
export function attributeKind(instance: Ec2Instance | undefined, node: KubeNode | undefined): ComputeKind {
  const fromLabels = node === undefined ? undefined : kindFromLabels(node.labels);
  if (fromLabels === 'fargate' || fromLabels === 'auto' || fromLabels === 'hybrid') return fromLabels;
  if (instance !== undefined && instance.kind !== 'self-managed') return instance.kind;
  return fromLabels ?? 'self-managed';
}

export function mergeCompute(inputs: ComputeInputs): ComputeNode[] {
  const nodesByInstance = new Map<string, KubeNode>();
  for (const node of inputs.nodes ?? [])
    if (node.instanceId !== undefined) nodesByInstance.set(node.instanceId, node);
  const nodegroupRoles = new Map((inputs.nodegroups ?? []).map((n) => [n.name, n.nodeRole]));
  const fargateRoles = new Map((inputs.fargateProfiles ?? []).map((p) => [p.name, p.podExecutionRoleArn]));
  const nodeClassRoles = new Map((inputs.nodeClasses ?? []).map((c) => [c.name, c.roleArn]));

  const build = (instance: Ec2Instance | undefined, node: KubeNode | undefined): ComputeNode => {
    const labels = node?.labels ?? {};
    const kind = attributeKind(instance, node);
    const nodegroup = instance?.nodegroup ?? labels[LABEL_NODEGROUP];
    const nodePool = instance?.nodePool ?? labels[LABEL_KARPENTER_NODEPOOL];
    const nodeClass = instance?.nodeClass ?? labels[LABEL_KARPENTER_NODECLASS];
    const fargateProfile = kind === 'fargate' ? labels[LABEL_FARGATE_PROFILE] : undefined;
    const profileArn = instance?.instanceProfileArn;
    // The role an instance really authenticates with is its instance profile's; the declared
    // roles (node group, node class, Fargate profile) only fill in where there is no instance.
    let roleArn = profileArn === undefined ? undefined : inputs.profileRoles.get(profileArn);
    if (roleArn === undefined && instance === undefined) {
      if (kind === 'fargate' && fargateProfile !== undefined) roleArn = fargateRoles.get(fargateProfile);
      else if (kind === 'managed' && nodegroup !== undefined) roleArn = nodegroupRoles.get(nodegroup);
      else if (kind === 'karpenter' && nodeClass !== undefined) roleArn = nodeClassRoles.get(nodeClass);
    }
    const osLabel = labels[LABEL_OS];
    const os = instance?.os ?? (osLabel === 'windows' || osLabel === 'linux' ? osLabel : undefined);
    const computeNode: ComputeNode = {
      kind,
      id: instance?.instanceId ?? node?.instanceId ?? node?.name ?? '',
    };
    if (node !== undefined) computeNode.nodeName = node.name;
    if (roleArn !== undefined && roleArn !== '') computeNode.roleArn = roleArn;
    if (kind === 'managed' && nodegroup !== undefined) computeNode.nodegroup = nodegroup;
    if (kind === 'karpenter' && nodePool !== undefined) computeNode.nodePool = nodePool;
    if (kind === 'karpenter' && nodeClass !== undefined) computeNode.nodeClass = nodeClass;
    if (fargateProfile !== undefined) computeNode.fargateProfile = fargateProfile;
    if (os !== undefined) computeNode.os = os;
    if (node?.ready !== undefined) computeNode.ready = node.ready;
    // Kept for nodes that are not Ready only: "NotReady since …" is what an alert needs.
    if (node?.readySince !== undefined && node.ready !== 'True') computeNode.readySince = node.readySince;
    return computeNode;
  };

  const out: ComputeNode[] = [];
  const matched = new Set<string>();
  for (const instance of inputs.instances ?? []) {
    const node = nodesByInstance.get(instance.instanceId);
    if (node !== undefined) matched.add(node.name);
    out.push(build(instance, node));
  }
  for (const node of inputs.nodes ?? []) {
    if (matched.has(node.name)) continue;
    out.push(build(undefined, node));
  }
  return out.sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
}

// ---------------------------------------------------------------------------------------------
// Role principals

/**
 * Role ARNs written in aws-auth `mapRoles` (any case of `rolearn`), read leniently so that a key
 * that fails to parse still names its roles. Only to know which roles to look up in IAM; the
 * semantics of aws-auth are the core parser's.
 */
export function awsAuthRoleArns(awsAuth: AwsAuthConfigMap | undefined): string[] {
  const text = awsAuth?.data.mapRoles ?? '';
  return [...text.matchAll(/rolearn["']?\s*:\s*["']?(arn:[^\s"'#,}\]]+)/gi)].map((m) => m[1] ?? '');
}

/**
 * The role ARNs of the account named by the sources that could be read, once per role (one GetRole
 * each: IAM looks roles up by name), sorted. Of a role's spellings the one with an IAM path is kept:
 * aws-auth must name the role without it, the instance profile or node group names it whole.
 */
export function rolePrincipals(
  accountId: string,
  parts: {
    awsAuth: AwsAuthConfigMap | undefined;
    accessEntries: AccessEntry[] | undefined;
    nodegroups: Nodegroup[] | undefined;
    fargateProfiles: FargateProfile[] | undefined;
    compute: ComputeNode[] | undefined;
    nodeClasses: KarpenterNodeClass[] | undefined;
  },
): string[] {
  const arns = [
    ...awsAuthRoleArns(parts.awsAuth),
    ...(parts.accessEntries ?? []).map((e) => e.principalArn),
    ...(parts.nodegroups ?? []).map((n) => n.nodeRole),
    ...(parts.fargateProfiles ?? []).map((p) => p.podExecutionRoleArn),
    ...(parts.compute ?? []).map((c) => c.roleArn),
    ...(parts.nodeClasses ?? []).map((c) => c.roleArn),
  ];
  const byKey = new Map<string, string>();
  for (const arn of arns) {
    if (arn === undefined || roleAccount(arn) !== accountId) continue;
    const key = principalKey(arn);
    const known = byKey.get(key);
    if (known === undefined || (!roleArnHasPath(known) && roleArnHasPath(arn))) byKey.set(key, arn);
  }
  return [...byKey.values()].sort();
}
