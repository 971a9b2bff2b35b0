/**
 * Domain model of eks-auth-sentinel: the ClusterSnapshot contract (schemaVersion 1) and the
 * Finding contract. Plain data only; no SDK or Kubernetes shapes cross into the core.
 * The zod schema in `snapshot-schema.ts` mirrors these types and is what validates input.
 */

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const AUTHENTICATION_MODES = ['CONFIG_MAP', 'API_AND_CONFIG_MAP', 'API'] as const;
export type AuthenticationMode = (typeof AUTHENTICATION_MODES)[number];

/**
 * Every source of a snapshot carries a status. `absent` is a real 404 (e.g. no aws-auth in an
 * `API` cluster, access entries in a `CONFIG_MAP` cluster); `error` is "could not look" and must
 * never be read as empty.
 */
export type Source<T> =
  | { status: 'ok'; data: T }
  | { status: 'absent'; reason?: string }
  | { status: 'error'; error: string };

export interface ClusterInfo {
  status: string;
  version?: string;
  platformVersion?: string;
  authenticationMode: AuthenticationMode;
  bootstrapClusterCreatorAdminPermissions?: boolean;
  endpointPublicAccess?: boolean;
  endpointPrivateAccess?: boolean;
  /** CIDRs allowed to reach the public endpoint (DescribeCluster `resourcesVpcConfig.publicAccessCidrs`). */
  publicAccessCidrs?: string[];
  /** The cluster's OIDC issuer URL (DescribeCluster `identity.oidc.issuer`), for IRSA. */
  oidcIssuer?: string;
  /** The cluster IAM role (DescribeCluster `roleArn`): Auto Mode gives it an access entry EKS owns. */
  roleArn?: string;
  /** EKS Auto Mode (DescribeCluster `computeConfig`); absent when not read or not enabled. */
  computeConfig?: ComputeConfig;
  /**
   * Whether the control plane ships its Kubernetes audit log to CloudWatch Logs (DescribeCluster
   * `logging.clusterLogging`, type `audit` enabled); absent from snapshots taken before it was read.
   */
  auditLogging?: boolean;
}

/** DescribeCluster `computeConfig`: Auto Mode, its built-in node pools and their node role. */
export interface ComputeConfig {
  enabled: boolean;
  /** The built-in node pools in use (`general-purpose`, `system`); empty when only custom ones are. */
  nodePools: string[];
  /** The node role of the built-in node pools. */
  nodeRoleArn?: string;
}

/** One entry of the ConfigMap's metadata.managedFields, reduced to what the rules need. */
export interface ManagedField {
  manager: string;
  operation: string;
  time?: string;
  /** The `data` keys this manager owns (from fieldsV1 `f:data` → `f:mapRoles` …). */
  dataKeys: string[];
}

export interface AwsAuthConfigMap {
  /** The ConfigMap's `data`, raw strings exactly as stored. */
  data: Record<string, string>;
  resourceVersion?: string;
  managedFields: ManagedField[];
}

export const ACCESS_ENTRY_TYPES = [
  'STANDARD',
  'EC2_LINUX',
  'EC2_WINDOWS',
  'FARGATE_LINUX',
  'HYBRID_LINUX',
  'EC2',
  'HYPERPOD_LINUX',
] as const;
export type AccessEntryType = (typeof ACCESS_ENTRY_TYPES)[number];

export interface AccessScope {
  type: 'cluster' | 'namespace';
  namespaces?: string[];
}

export interface AssociatedAccessPolicy {
  policyArn: string;
  accessScope: AccessScope;
  associatedAt?: string;
}

export interface AccessEntry {
  principalArn: string;
  type: AccessEntryType;
  username?: string;
  kubernetesGroups: string[];
  createdAt?: string;
  modifiedAt?: string;
  accessPolicies: AssociatedAccessPolicy[];
}

export const CA_SIGNING_STATUSES = ['IN_USE', 'ACTIVATING', 'NOT_USED'] as const;
export type CaSigningStatus = (typeof CA_SIGNING_STATUSES)[number];

/**
 * One certificate authority of the cluster (ListCertificateAuthorities + DescribeCertificateAuthority):
 * the one signing (`IN_USE`), a successor being rolled out (`NOT_USED` then `ACTIVATING`), or the
 * predecessor kept for rollback. The PEM data is not kept.
 */
export interface ClusterCertificateAuthority {
  id: string;
  signingStatus: CaSigningStatus;
  /** `IN_PROGRESS`, `COMPLETE`, `FAILED`, `DELETING`: the successor's distribution to EKS-managed compute. */
  distributionStatus?: string;
  /** `CUSTOMER` or `EKS`. */
  createdBy?: string;
  createdAt?: string;
  activatedBy?: string;
  activatedAt?: string;
  /** The earliest time EKS may activate it by itself (scheduledEvents.firstAutoActivation). */
  firstAutoActivation?: string;
  /** The time by which EKS activates it if no one has (scheduledEvents.finalAutoActivation). */
  finalAutoActivation?: string;
  notAfter?: string;
  rollbackAvailable?: boolean;
}

export interface HealthIssue {
  code: string;
  message?: string;
}

export interface Nodegroup {
  name: string;
  status: string;
  nodeRole: string;
  amiType?: string;
  desiredSize?: number;
  minSize?: number;
  maxSize?: number;
  healthIssues: HealthIssue[];
}

export interface FargateSelector {
  namespace: string;
  labels?: Record<string, string>;
}

export interface FargateProfile {
  name: string;
  status: string;
  podExecutionRoleArn: string;
  selectors: FargateSelector[];
  createdAt?: string;
}

export const COMPUTE_KINDS = ['managed', 'karpenter', 'self-managed', 'fargate', 'auto', 'hybrid'] as const;
export type ComputeKind = (typeof COMPUTE_KINDS)[number];

/** A node or instance that authenticates to the cluster with an IAM role. */
export interface ComputeNode {
  kind: ComputeKind;
  /** EC2 instance ID, or the node name where there is no instance (Fargate, hybrid). */
  id: string;
  /** Kubernetes node name, when the node has registered. */
  nodeName?: string;
  /** The IAM role the node authenticates with (role ARN, not instance-profile ARN). */
  roleArn?: string;
  nodegroup?: string;
  nodePool?: string;
  nodeClass?: string;
  fargateProfile?: string;
  os?: 'linux' | 'windows';
  /** The node's Ready condition when known. */
  ready?: 'True' | 'False' | 'Unknown';
  /** For a node that is not Ready: since when (the condition's `lastTransitionTime`), when known. */
  readySince?: string;
}

export interface KarpenterNodeClass {
  name: string;
  /** Role ARN resolved from `spec.role` (a role name) or from `spec.instanceProfile`. */
  roleArn?: string;
  role?: string;
  instanceProfile?: string;
}

/**
 * An EKS Auto Mode NodeClass (`nodeclasses.eks.amazonaws.com/v1`). Its `spec.role` names the node
 * role; a class other than the built-in `default` needs an `EC2` access entry with
 * `AmazonEKSAutoNodePolicy` that EKS does not create (docs/eks-auth-semantics.md#eks-owned-access-entries).
 */
export interface AutoModeNodeClass {
  name: string;
  /** `spec.role`: an IAM role name. */
  role?: string;
  /** That role's ARN (GetRole's, path included, when the capture could read it). */
  roleArn?: string;
}

export interface IamRole {
  /** The role's ARN: GetRole's `Role.Arn` (path included) when it exists and `path` is recorded. */
  arn: string;
  /** `exists` when GetRole answered; `missing` on NoSuchEntity (role deleted). */
  state: 'exists' | 'missing';
  /**
   * GetRole's `Role.Path` (`/`, or `/eks/` for `role/eks/name`): the path an access entry's ARN
   * needs. Absent for a missing role and in snapshots taken before it was recorded.
   */
  path?: string;
  roleId?: string;
  createDate?: string;
  /**
   * The role's trust policy as JSON text (GetRole `AssumeRolePolicyDocument`, URL-decoded), for
   * roles used by Pod Identity or IRSA. Attacker-written: parse it, never evaluate it as code.
   */
  trustPolicy?: string;
}

// ---------------------------------------------------------------------------------------------
// Workload identity (Pod Identity, IRSA)

/** One EKS Pod Identity association (ListPodIdentityAssociations + DescribePodIdentityAssociation). */
export interface PodIdentityAssociation {
  associationId: string;
  associationArn?: string;
  namespace: string;
  serviceAccount: string;
  /** The role the agent assumes for the pod. */
  roleArn: string;
  /** Cross-account role chained from `roleArn`, when set. */
  targetRoleArn?: string;
  /** EKS's `sts:ExternalId` for the target hop (set with `targetRoleArn`); the target's trust should require it. */
  externalId?: string;
  /** `true`: the agent does not tag the session, so the trust needs no `sts:TagSession`. */
  disableSessionTags?: boolean;
  createdAt?: string;
  modifiedAt?: string;
}

/** An EKS add-on (ListAddons; DescribeAddon for the ones the rules need, e.g. `eks-pod-identity-agent`). */
export interface Addon {
  name: string;
  /** DescribeAddon `status` (`ACTIVE`, `DEGRADED`, `CREATE_FAILED`, …); absent when not described. */
  status?: string;
  version?: string;
  healthIssues: HealthIssue[];
}

/** An IAM OIDC identity provider of the account (ListOpenIDConnectProviders). */
export interface OidcProvider {
  arn: string;
  /** The issuer host and path without scheme, as IAM names it (`oidc.eks.<region>.amazonaws.com/id/<ID>`). */
  url: string;
  clientIds?: string[];
}

/** A Kubernetes service account (metadata only) and the IRSA role it names, if any. */
export interface ServiceAccount {
  namespace: string;
  name: string;
  /** The `eks.amazonaws.com/role-arn` annotation, verbatim (attacker-written). */
  roleArnAnnotation?: string;
}

/** Whether IAM lets a node role call an action (iam:SimulatePrincipalPolicy's decision). */
export interface RoleActionPermission {
  roleArn: string;
  action: string;
  decision: 'allowed' | 'implicitDeny' | 'explicitDeny';
}

// ---------------------------------------------------------------------------------------------
// Identity

/**
 * A cluster's identity, the same from capture to alert: the snapshot, the stores' keys, the work
 * queue's items, the delivery and the Kubernetes reference all carry (or extend) this.
 */
export interface ClusterId {
  accountId: string;
  region: string;
  clusterName: string;
}

/** `<account>/<region>/<cluster name>`: a ClusterId as one string (a map key, never parsed back). */
export function clusterIdKey(id: ClusterId): string {
  return `${id.accountId}/${id.region}/${id.clusterName}`;
}

/**
 * An AWS Region code: a geography (two letters, `eusc` for the European Sovereign Cloud), one or
 * more words, and a number of one or more digits — `eu-west-1`, `us-gov-west-1`, `cn-north-1`,
 * `us-isob-east-1`, `eusc-de-east-1`, and `ap-southeast-10` once Regions count that far (the
 * SDK's partition table ends every Region pattern in `-\d+`).
 */
export const REGION_CODE = /^[a-z]{2,4}(?:-[a-z]+)+-\d+$/;

export function isRegionCode(value: string): boolean {
  return REGION_CODE.test(value);
}

export interface ClusterSnapshot extends ClusterId {
  schemaVersion: 1;
  capturedAt: string;
  clusterArn: string;
  cluster: ClusterInfo;
  awsAuth: Source<AwsAuthConfigMap>;
  accessEntries: Source<AccessEntry[]>;
  nodegroups: Source<Nodegroup[]>;
  fargateProfiles: Source<FargateProfile[]>;
  compute: Source<ComputeNode[]>;
  karpenterNodeClasses?: Source<KarpenterNodeClass[]>;
  /** EKS Auto Mode NodeClasses; absent from snapshots taken before they were read. */
  autoModeNodeClasses?: Source<AutoModeNodeClass[]>;
  iamRoles: Source<IamRole[]>;
  /** Workload identity sources; absent from snapshots taken before they existed. */
  podIdentityAssociations?: Source<PodIdentityAssociation[]>;
  addons?: Source<Addon[]>;
  oidcProviders?: Source<OidcProvider[]>;
  serviceAccounts?: Source<ServiceAccount[]>;
  /** `eks-auth:AssumeRoleForPodIdentity` for each node role used by running nodes. */
  nodeRolePermissions?: Source<RoleActionPermission[]>;
  /** The cluster's certificate authorities (CA rotation); absent when not captured. */
  certificateAuthorities?: Source<ClusterCertificateAuthority[]>;
  /**
   * The subscription filters of the audit log group `/aws/eks/<cluster>/cluster`
   * (DescribeSubscriptionFilters); read only when `cluster.auditLogging` is on, absent otherwise.
   */
  auditSubscription?: Source<{ filterNames: string[] }>;
}

export type SourceName =
  | 'awsAuth'
  | 'accessEntries'
  | 'nodegroups'
  | 'fargateProfiles'
  | 'compute'
  | 'karpenterNodeClasses'
  | 'autoModeNodeClasses'
  | 'iamRoles'
  | 'podIdentityAssociations'
  | 'addons'
  | 'oidcProviders'
  | 'serviceAccounts'
  | 'nodeRolePermissions'
  | 'certificateAuthorities';

export const SOURCE_NAMES: readonly SourceName[] = [
  'awsAuth',
  'accessEntries',
  'nodegroups',
  'fargateProfiles',
  'compute',
  'karpenterNodeClasses',
  'autoModeNodeClasses',
  'iamRoles',
  'podIdentityAssociations',
  'addons',
  'oidcProviders',
  'serviceAccounts',
  'nodeRolePermissions',
  'certificateAuthorities',
];

// ---------------------------------------------------------------------------------------------
// Findings

/**
 * The cluster as a finding names it. The same identity as `ClusterId`, spelled `name` because
 * findings are a published contract in that spelling: the JSON output, the report's response and
 * the alert records stored in DynamoDB. Build it with `clusterRefOf`, never field by field.
 */
export interface ClusterRef extends Omit<ClusterId, 'clusterName'> {
  name: ClusterId['clusterName'];
}

export function clusterRefOf(id: ClusterId): ClusterRef {
  return { accountId: id.accountId, region: id.region, name: id.clusterName };
}

export interface BlastRadius {
  nodegroups: string[];
  fargateProfiles: string[];
  nodeClasses: string[];
  /** Nodes that lose (or have lost) access. */
  nodeCount: number;
  /** The first few node names or instance IDs, for the message. */
  firstNodes: string[];
  /** Plain-language time to impact, e.g. "new nodes at once; running nodes NotReady within minutes". */
  timeToImpact: string;
  /** Workload identity: the service accounts (`namespace/name`) whose pods lose their AWS credentials. */
  serviceAccounts?: string[];
  /** The namespaces of those service accounts. */
  namespaces?: string[];
}

export interface Remediation {
  /** What to do, one or two sentences. */
  summary: string;
  /** AWS CLI commands only, one script run top to bottom. */
  awsCli?: string;
  /** Other tools' ways to the same fix (eksctl, kubectl …): separate labelled shell scripts. */
  alternatives?: Array<{ label: string; shell: string }>;
  /** A whole file `terraform validate` accepts alone, unless `terraformFragmentOf` is set. */
  terraform?: string;
  /** `terraform` is a fragment: what it is added to (`the aws_eks_cluster resource of cluster "prod"`). */
  terraformFragmentOf?: string;
  awsAuthYaml?: string;
  /** The IAM trust-policy statements to add, as a JSON policy document. */
  trustPolicyJson?: string;
  /** The statements replace the ones the notes name (a condition never met) instead of adding to the trust. */
  trustPolicyReplaces?: boolean;
  notes?: string[];
}

/**
 * Who made the change a finding is about, as the source names them: a CloudTrail record's
 * `userIdentity`, `sourceIPAddress` and `userAgent`, or the ConfigMap's last `managedFields`
 * writer. Every field is attacker-written; renderers sanitise it (`actorLine`).
 */
export interface Actor {
  /** `audit`: a Kubernetes audit event of the write (`user`, `userAgent`, `sourceIPs`). */
  source: 'cloudtrail' | 'managedFields' | 'audit';
  /** `userIdentity.type`: `AssumedRole`, `IAMUser`, `Root`, … */
  type?: string;
  /** audit: `user.extra.arn` (the STS session ARN), else `canonicalArn`. */
  arn?: string;
  /** audit: `user.extra.canonicalArn` (the IAM role) when it differs from `arn`. */
  canonicalArn?: string;
  /** audit: the Kubernetes user name the authenticator mapped the principal to. */
  username?: string;
  principalId?: string;
  /** The session name of an assumed role (`jane.doe`). */
  sessionName?: string;
  /** The role an assumed-role session belongs to (`sessionIssuer.userName`). */
  roleName?: string;
  sourceIp?: string;
  userAgent?: string;
  /** managedFields: the field manager, its operation and time. */
  manager?: string;
  operation?: string;
  time?: string;
  /** cloudtrail: the record's `eventID` (for the CloudTrail event-history link); audit: `auditID`. */
  eventId?: string;
}

export type Trigger = 'schedule' | 'manual' | 'whatif' | `event:${string}`;

export interface Finding {
  ruleId: string;
  severity: Severity;
  cluster: ClusterRef;
  /** The principal (role/user ARN) or resource (node group, Fargate profile, data key) concerned. */
  subject: string;
  title: string;
  detail: string;
  evidence: Record<string, unknown>;
  blastRadius?: BlastRadius;
  remediation?: Remediation;
  trigger: Trigger;
  /** Who made the change (optional; never part of the fingerprint). */
  actor?: Actor;
  /** Stable across runs and triggers: rule, cluster, subject and the identifying evidence. */
  fingerprint: string;
}

export function severityRank(s: Severity): number {
  return SEVERITIES.length - SEVERITIES.indexOf(s);
}

export function atLeast(s: Severity, threshold: Severity): boolean {
  return severityRank(s) >= severityRank(threshold);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Most severe first, then by rule ID, subject, cluster and fingerprint (locale-independent, total). */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    severityRank(b.severity) - severityRank(a.severity) ||
    compareText(a.ruleId, b.ruleId) ||
    compareText(a.subject, b.subject) ||
    compareText(a.cluster.accountId, b.cluster.accountId) ||
    compareText(a.cluster.region, b.cluster.region) ||
    compareText(a.cluster.name, b.cluster.name) ||
    compareText(a.fingerprint, b.fingerprint)
  );
}

/** The findings of a change, each naming who made it (unchanged when no one is known). */
export function withActor(findings: readonly Finding[], actor: Actor | undefined): Finding[] {
  if (actor === undefined) return [...findings];
  return findings.map((f) => ({ ...f, actor: merged(f.actor, actor) }));
}

/**
 * The audit log names the IAM principal behind the field manager a rule found in managedFields:
 * both are kept (the audit's fields win). Any other actor a rule named stays as it is.
 */
function merged(own: Actor | undefined, given: Actor): Actor {
  if (own === undefined) return given;
  if (given.source === 'audit' && own.source === 'managedFields') return { ...own, ...given };
  return own;
}
