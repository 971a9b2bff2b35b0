/**
 * Use case: capture one cluster into a ClusterSnapshot (DESIGN §2, §4).
 *
 * DescribeCluster comes first; without it there is no snapshot (its typed error is rethrown). A
 * cluster deleted while it is read gets no snapshot either: when an EKS source fails with
 * not-found, DescribeCluster is asked again and its not-found error is thrown.
 * Every other source is read independently and ends `ok`, `absent` (a real 404 or a mode in which
 * the store cannot exist) or `error` (a safe message) — never empty on error (DESIGN §3).
 *
 * Compute merges EC2 instances and Kubernetes nodes (providerID ↔ instance ID):
 *   - both readable: every instance and every node, Ready from the node;
 *   - Kubernetes unreadable, EC2 readable: `ok` with the EC2 instances, Ready unknown (omitted);
 *     Fargate and hybrid nodes (which exist only in Kubernetes) are then missing — their
 *     dependencies stay visible through `fargateProfiles`/`accessEntries`, and the failed
 *     Kubernetes read shows up as `awsAuth: error` / `karpenterNodeClasses: error`;
 *   - EC2 unreadable: `error` — without instances the roles of self-managed and Karpenter nodes
 *     are unknown, and a list without them would read as "nobody uses this role";
 *   - an instance profile whose GetInstanceProfile fails (other than NoSuchEntity): `error`, same reason.
 * `iamRoles` covers the role principals of the sources that could be read (aws-auth `mapRoles`,
 * access entries, node group roles, Fargate pod execution roles, compute roles, node-class roles) in the cluster's
 * account; roles of other accounts are not looked up (GetRole would read the wrong account).
 */

import { mapLimit } from '../core/concurrency.ts';
import type {
  AccessEntry,
  AwsAuthConfigMap,
  ClusterSnapshot,
  ComputeKind,
  ComputeNode,
  FargateProfile,
  IamRole,
  KarpenterNodeClass,
  Nodegroup,
  Source,
} from '../core/model.ts';
import { CollectionError, safeErrorMessage } from '../errors.ts';
import type {
  CaptureDeps,
  ClusterDescription,
  Ec2Instance,
  Ec2NodeClassSpec,
  IamReader,
  KubeClusterRef,
  KubeNode,
  Lookup,
} from '../ports.ts';

export interface CaptureTarget {
  region: string;
  clusterName: string;
  /** Defaults to the account of the cluster ARN. */
  accountId?: string;
}

export const LABEL_COMPUTE_TYPE = 'eks.amazonaws.com/compute-type';
export const LABEL_NODEGROUP = 'eks.amazonaws.com/nodegroup';
export const LABEL_FARGATE_PROFILE = 'eks.amazonaws.com/fargate-profile';
export const LABEL_KARPENTER_NODEPOOL = 'karpenter.sh/nodepool';
export const LABEL_KARPENTER_NODECLASS = 'karpenter.k8s.aws/ec2nodeclass';
export const LABEL_OS = 'kubernetes.io/os';

const IAM_CONCURRENCY = 5;

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

function fromLookup<T>(settled: Settled<Lookup<T>>): Source<T> {
  if (!settled.ok) return { status: 'error', error: safeErrorMessage(settled.error) };
  return settled.value.found
    ? { status: 'ok', data: settled.value.value }
    : { status: 'absent', reason: settled.value.reason };
}

function fromValue<T>(settled: Settled<T>): Source<T> {
  return settled.ok
    ? { status: 'ok', data: settled.value }
    : { status: 'error', error: safeErrorMessage(settled.error) };
}

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
// Compute merge (pure)

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

async function resolveProfiles(iam: IamReader, instances: Ec2Instance[]): Promise<Map<string, string>> {
  const profiles = [
    ...new Set(instances.map((i) => i.instanceProfileArn).filter((p): p is string => p !== undefined)),
  ];
  const roles = new Map<string, string>();
  await mapLimit(profiles, IAM_CONCURRENCY, async (profile) => {
    const role = await iam.roleOfInstanceProfile(profile);
    if (role.found) roles.set(profile, role.value);
  });
  return roles;
}

async function resolveNodeClasses(
  iam: IamReader,
  specs: Ec2NodeClassSpec[],
  partition: string,
  accountId: string,
): Promise<KarpenterNodeClass[]> {
  return mapLimit(specs, IAM_CONCURRENCY, async (spec) => {
    const nodeClass: KarpenterNodeClass = { ...spec };
    if (spec.role !== undefined) nodeClass.roleArn = roleArnFromName(spec.role, partition, accountId);
    else if (spec.instanceProfile !== undefined) {
      const role = await iam.roleOfInstanceProfile(spec.instanceProfile);
      if (role.found) nodeClass.roleArn = role.value;
    }
    return nodeClass;
  });
}

/**
 * Role ARNs written in aws-auth `mapRoles` (any case of `rolearn`), read leniently so that a key
 * that fails to parse still names its roles. Only to know which roles to look up in IAM; the
 * semantics of aws-auth are the core parser's.
 */
export function awsAuthRoleArns(awsAuth: AwsAuthConfigMap | undefined): string[] {
  const text = awsAuth?.data.mapRoles ?? '';
  return [...text.matchAll(/rolearn["']?\s*:\s*["']?(arn:[^\s"'#,}\]]+)/gi)].map((m) => m[1] ?? '');
}

function rolePrincipals(
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
    const key = arn.toLowerCase();
    if (!byKey.has(key)) byKey.set(key, arn);
  }
  return [...byKey.values()].sort();
}

export async function captureSnapshot(deps: CaptureDeps, target: CaptureTarget): Promise<ClusterSnapshot> {
  const eks = deps.eks(target.region);
  const ec2 = deps.ec2(target.region);
  const cluster: ClusterDescription = await eks.describeCluster(target.clusterName);
  const capturedAt = deps.clock.now().toISOString();
  const parsedArn = parseClusterArn(cluster.arn);
  const accountId = target.accountId ?? parsedArn?.accountId ?? '';
  const partition = parsedArn?.partition ?? 'aws';

  const kubeRef: KubeClusterRef = {
    clusterName: cluster.name,
    region: target.region,
    endpoint: cluster.endpoint ?? '',
    certificateAuthorityData: cluster.certificateAuthorityData ?? '',
  };

  const accessEntriesRead: Promise<Lookup<AccessEntry[]>> =
    cluster.authenticationMode === 'CONFIG_MAP'
      ? Promise.resolve({
          found: false,
          reason: 'authentication mode is CONFIG_MAP: access entries cannot exist',
        })
      : eks.accessEntries(cluster.name);

  const [awsAuth, accessEntries, nodegroups, fargateProfiles, instances, nodes, nodeClassSpecs] =
    await Promise.all([
      settle(deps.kube.awsAuth(kubeRef)),
      settle(accessEntriesRead),
      settle(eks.nodegroups(cluster.name)),
      settle(eks.fargateProfiles(cluster.name)),
      settle(ec2.instancesOfCluster(cluster.name)),
      settle(deps.kube.nodes(kubeRef)),
      settle(deps.kube.ec2NodeClasses(kubeRef)),
    ]);

  // The cluster may have been deleted while we read it: its sources then fail with not-found.
  // Confirm with DescribeCluster; a vanished cluster gets no snapshot (its not-found error is thrown).
  const eksReads: Settled<unknown>[] = [accessEntries, nodegroups, fargateProfiles];
  if (eksReads.some((r) => !r.ok && r.error instanceof CollectionError && r.error.code === 'not-found')) {
    await eks.describeCluster(target.clusterName);
  }

  // Second wave: IAM lookups that depend on the first.
  const [profileRoles, nodeClasses] = await Promise.all([
    instances.ok ? settle(resolveProfiles(deps.iam, instances.value)) : Promise.resolve(undefined),
    nodeClassSpecs.ok
      ? settle(
          nodeClassSpecs.value.found
            ? resolveNodeClasses(deps.iam, nodeClassSpecs.value.value, partition, accountId).then(
                (value): Lookup<KarpenterNodeClass[]> => ({ found: true, value }),
              )
            : Promise.resolve<Lookup<KarpenterNodeClass[]>>(nodeClassSpecs.value),
        )
      : Promise.resolve<Settled<Lookup<KarpenterNodeClass[]>>>(nodeClassSpecs),
  ]);

  const okValue = <T>(s: Settled<T>): T | undefined => (s.ok ? s.value : undefined);
  const okLookup = <T>(s: Settled<Lookup<T>>): T | undefined =>
    s.ok && s.value.found ? s.value.value : undefined;

  let compute: Source<ComputeNode[]>;
  if (!instances.ok) {
    compute = { status: 'error', error: `EC2 instances unreadable: ${safeErrorMessage(instances.error)}` };
  } else if (profileRoles !== undefined && !profileRoles.ok) {
    compute = {
      status: 'error',
      error: `instance roles unreadable: ${safeErrorMessage(profileRoles.error)}`,
    };
  } else {
    compute = {
      status: 'ok',
      data: mergeCompute({
        instances: instances.value,
        nodes: okValue(nodes),
        profileRoles: profileRoles?.ok ? profileRoles.value : new Map(),
        nodegroups: okValue(nodegroups),
        fargateProfiles: okValue(fargateProfiles),
        nodeClasses: okLookup(nodeClasses),
      }),
    };
  }

  const principals = rolePrincipals(accountId, {
    awsAuth: okLookup(awsAuth),
    accessEntries: okLookup(accessEntries),
    nodegroups: okValue(nodegroups),
    fargateProfiles: okValue(fargateProfiles),
    compute: compute.status === 'ok' ? compute.data : undefined,
    nodeClasses: okLookup(nodeClasses),
  });
  const iamRoles: Source<IamRole[]> = fromValue(
    await settle(mapLimit(principals, IAM_CONCURRENCY, (arn) => deps.iam.getRole(arn))),
  );

  const snapshot: ClusterSnapshot = {
    schemaVersion: 1,
    capturedAt,
    accountId,
    region: target.region,
    clusterName: cluster.name,
    clusterArn: cluster.arn,
    cluster: clusterInfo(cluster),
    awsAuth: fromLookup(awsAuth),
    accessEntries: fromLookup(accessEntries),
    nodegroups: fromValue(nodegroups),
    fargateProfiles: fromValue(fargateProfiles),
    compute,
    karpenterNodeClasses: fromLookup(nodeClasses),
    iamRoles,
  };
  return snapshot;
}

function clusterInfo(cluster: ClusterDescription): ClusterSnapshot['cluster'] {
  const info: ClusterSnapshot['cluster'] = {
    status: cluster.status,
    authenticationMode: cluster.authenticationMode,
  };
  if (cluster.version !== undefined) info.version = cluster.version;
  if (cluster.platformVersion !== undefined) info.platformVersion = cluster.platformVersion;
  if (cluster.bootstrapClusterCreatorAdminPermissions !== undefined) {
    info.bootstrapClusterCreatorAdminPermissions = cluster.bootstrapClusterCreatorAdminPermissions;
  }
  if (cluster.endpointPublicAccess !== undefined) info.endpointPublicAccess = cluster.endpointPublicAccess;
  if (cluster.endpointPrivateAccess !== undefined) info.endpointPrivateAccess = cluster.endpointPrivateAccess;
  return info;
}

// ---------------------------------------------------------------------------------------------

export interface ClusterListing {
  clusters: CaptureTarget[];
  /** Regions whose ListClusters failed: the monitor is blind there. */
  errors: Array<{ region: string; error: string }>;
}

/** ListClusters in every Region; one Region failing does not hide the others. */
export async function listClusters(
  deps: Pick<CaptureDeps, 'eks'>,
  regions: readonly string[],
): Promise<ClusterListing> {
  const results = await Promise.all(regions.map((region) => settle(deps.eks(region).listClusters())));
  const listing: ClusterListing = { clusters: [], errors: [] };
  results.forEach((result, i) => {
    const region = regions[i] as string;
    if (result.ok) for (const clusterName of result.value) listing.clusters.push({ region, clusterName });
    else listing.errors.push({ region, error: safeErrorMessage(result.error) });
  });
  return listing;
}

export type CaptureOutcome =
  | { target: CaptureTarget; ok: true; snapshot: ClusterSnapshot }
  | { target: CaptureTarget; ok: false; error: unknown };

/**
 * Captures several clusters, `concurrency` at a time; one failing never stops the others.
 * `onOutcome` hears of each cluster as it completes (progress lines), in completion order.
 */
export async function captureSnapshots(
  deps: CaptureDeps,
  targets: readonly CaptureTarget[],
  concurrency = 3,
  onOutcome?: (outcome: CaptureOutcome, index: number) => void,
): Promise<CaptureOutcome[]> {
  return mapLimit(targets, concurrency, async (target, index): Promise<CaptureOutcome> => {
    const result = await settle(captureSnapshot(deps, target));
    const outcome: CaptureOutcome = result.ok
      ? { target, ok: true, snapshot: result.value }
      : { target, ok: false, error: result.error };
    onOutcome?.(outcome, index);
    return outcome;
  });
}
