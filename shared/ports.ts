/**
 * Ports: the small interfaces the use cases depend on. Adapters in `shared/adapters/` implement
 * them against AWS and Kubernetes; tests of use cases implement them in memory.
 *
 * Every read returns domain types (`shared/core/model.ts` or the few reader-level shapes below)
 * or throws a `CollectionError` (`shared/adapters/errors.ts`). A read never answers "empty" for
 * "could not look": absence that is real (a 404, a mode in which the store cannot exist) is a
 * `Lookup` with `found: false` and a reason.
 */
import type {
  AccessEntry,
  AuthenticationMode,
  AwsAuthConfigMap,
  FargateProfile,
  IamRole,
  KarpenterNodeClass,
  Nodegroup,
} from './core/model.ts';

/** A value that was looked for: found, or really absent (never "could not look"). */
export type Lookup<T> = { found: true; value: T } | { found: false; reason: string };

export interface Clock {
  now(): Date;
}

/** DescribeCluster, reduced to what the monitor uses. */
export interface ClusterDescription {
  name: string;
  arn: string;
  status: string;
  version?: string;
  platformVersion?: string;
  authenticationMode: AuthenticationMode;
  bootstrapClusterCreatorAdminPermissions?: boolean;
  endpointPublicAccess?: boolean;
  endpointPrivateAccess?: boolean;
  /** The Kubernetes API endpoint (https URL); missing while the cluster is being created. */
  endpoint?: string;
  /** Base64 of the cluster CA bundle (PEM), exactly as DescribeCluster returns it. */
  certificateAuthorityData?: string;
}

/** EKS API of one Region. */
export interface EksReader {
  readonly region: string;
  listClusters(): Promise<string[]>;
  /** Throws `CollectionError` with code `not-found` when the cluster does not exist. */
  describeCluster(clusterName: string): Promise<ClusterDescription>;
  /** ListNodegroups + DescribeNodegroup for each. */
  nodegroups(clusterName: string): Promise<Nodegroup[]>;
  /** ListFargateProfiles + DescribeFargateProfile for each. */
  fargateProfiles(clusterName: string): Promise<FargateProfile[]>;
  /**
   * ListAccessEntries + DescribeAccessEntry + ListAssociatedAccessPolicies for each.
   * `found: false` when the cluster's mode is `CONFIG_MAP` (access entries cannot exist).
   */
  accessEntries(clusterName: string): Promise<Lookup<AccessEntry[]>>;
}

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

/** EC2 API of one Region. */
export interface Ec2Reader {
  readonly region: string;
  /** Running/pending instances tagged `kubernetes.io/cluster/<name>`, `eks:cluster-name` or `eks:eks-cluster-name`. */
  instancesOfCluster(clusterName: string): Promise<Ec2Instance[]>;
}

/** IAM (global). */
export interface IamReader {
  /**
   * The role ARN of an instance profile (ARN or name), cached per profile.
   * `found: false` when the instance profile does not exist or has no role.
   */
  roleOfInstanceProfile(instanceProfile: string): Promise<Lookup<string>>;
  /** GetRole: `state: 'missing'` on NoSuchEntity; throws on anything else. */
  getRole(roleArn: string): Promise<IamRole>;
}

/** Where a cluster's Kubernetes API is and how to trust it (from DescribeCluster). */
export interface KubeClusterRef {
  clusterName: string;
  region: string;
  endpoint: string;
  /** Base64 of the PEM CA bundle; TLS is always verified against it. */
  certificateAuthorityData: string;
}

export interface KubeNode {
  name: string;
  providerId?: string;
  /** EC2 instance ID parsed from `aws:///<az>/<instance-id>`. */
  instanceId?: string;
  labels: Record<string, string>;
  ready?: 'True' | 'False' | 'Unknown';
}

/** A Karpenter EC2NodeClass as declared (role name or instance profile); the use case resolves the role ARN. */
export type Ec2NodeClassSpec = Omit<KarpenterNodeClass, 'roleArn'>;

export interface KubeReader {
  /** `kube-system/aws-auth`; `found: false` on 404. */
  awsAuth(cluster: KubeClusterRef): Promise<Lookup<AwsAuthConfigMap>>;
  nodes(cluster: KubeClusterRef): Promise<KubeNode[]>;
  /** `ec2nodeclasses.karpenter.k8s.aws/v1`; `found: false` when the CRD is not installed. */
  ec2NodeClasses(cluster: KubeClusterRef): Promise<Lookup<Ec2NodeClassSpec[]>>;
}

/** Everything `captureSnapshot` needs. Region-bound readers come from factories. */
export interface CaptureDeps {
  eks(region: string): EksReader;
  ec2(region: string): Ec2Reader;
  iam: IamReader;
  kube: KubeReader;
  clock: Clock;
}
