/**
 * Public contract of the local sandbox account (`startSandbox`). Other engineers code against
 * these types: change them only additively.
 */
import type {
  AccessEntryType,
  AccessScope,
  Addon,
  AuthenticationMode,
  AutoModeNodeClass,
  ClusterCertificateAuthority,
  ClusterSnapshot,
  ComputeConfig,
  ComputeKind,
  FargateSelector,
  HealthIssue,
  KarpenterNodeClass,
  PodIdentityAssociation,
  ServiceAccount,
} from '../../shared/core/model.ts';

export interface SandboxOptions {
  /** Seed; `name` renames the cluster (several scenarios use the same name, e.g. 'prod'). */
  clusters: Array<{ snapshot: ClusterSnapshot; name?: string; logging?: SandboxLogType[] }>;
  /** Added to every AWS and Kubernetes call (default 0). */
  latencyMs?: number;
  /** Token bucket on EKS; beyond it → HTTP 429 ThrottlingException (default: unlimited). */
  eksCallsPerSecond?: number;
  /** Delay before EKS's own aws-auth / access-entry side effects of write calls (default 0). */
  sideEffectDelayMs?: number;
  /** Nodes whose role lost access turn Ready=Unknown after this (default 1000). */
  notReadyDelayMs?: number;
  /**
   * What `CONFIG_MAP → API_AND_CONFIG_MAP` does to existing node groups and Fargate profiles (the
   * sources disagree, docs/eks-auth-semantics.md#mode-switch-back-fill): `api-reference` (default)
   * creates no access entries; `pm-statement` creates their node-type entries, as an AWS PM wrote.
   */
  modeSwitchBackFill?: 'api-reference' | 'pm-statement';
  /**
   * Pods ask for fresh AWS credentials (Pod Identity, IRSA) this long after a change they depend
   * on, and a cluster's pods first ask this long after `addCluster` (default 1000). Failures and
   * recoveries go to the timeline (`<cluster>: pod identity <ns>/<sa>: credential refresh failed (…)`).
   */
  credentialRefreshDelayMs?: number;
  /**
   * `full`: each DescribeInstances item also carries what a real one does (network interface,
   * volumes, security groups, options, eight more tags; ≈ 5 KiB of XML). Default `lean`: the
   * fields the monitor reads.
   */
  ec2InstanceDetail?: 'lean' | 'full';
  /** Kubernetes watch behaviour (kube-watch.ts). */
  kubeWatch?: {
    /** BOOKMARK events on watches that allow them, every this many ms (default 60000, as the API server). */
    bookmarkIntervalMs?: number;
    /** A watch without `timeoutSeconds` (or with a larger one) is closed after this (default 1800). */
    maxTimeoutSeconds?: number;
    /** Change events kept per cluster; a watch from an older resourceVersion gets 410 Expired (default 100). */
    historyLimit?: number;
  };
}

export type SandboxService = 'eks' | 'ec2' | 'iam' | 'sts' | 'sns' | 'ssm' | 'logs' | 'kube' | 'slack';

/** A CloudWatch Logs subscription filter (DescribeSubscriptionFilters), of one log group. */
export interface SandboxSubscriptionFilter {
  filterName: string;
  filterPattern: string;
  destinationArn: string;
  distribution?: 'ByLogStream' | 'Random';
  creationTime?: number;
}

export interface SandboxCall {
  service: SandboxService;
  operation: string;
  cluster?: string;
  status: number;
  at: number;
}

export interface SandboxFault {
  /** 'eks' | 'ec2' | 'iam' | 'sts' | 'sns' | 'kube' | 'slack'. */
  service: string;
  /** Operation name as recorded in `calls` (e.g. 'DescribeCluster', 'ListNodes'); any when omitted. */
  operation?: string;
  cluster?: string;
  status: number;
  code?: string;
  message?: string;
  /** How many calls fail; unlimited (until `clear()`) when omitted. */
  times?: number;
  /** Slack, status 429: the `Retry-After` header, seconds (default 1). */
  retryAfterSeconds?: number;
  /**
   * No reply at all (`status` unused): the connection stays open until the client gives up or the
   * sandbox closes, as a call to an endpoint that stopped answering does. Recorded as status 0.
   */
  hang?: boolean;
}

/** One Slack Web API call as the sandbox answered it. */
export interface SlackApiCall {
  method: string;
  at: number;
  ok: boolean;
  error?: string;
  channel?: string;
  /** The message posted or edited. */
  ts?: string;
  threadTs?: string;
  body?: Record<string, unknown>;
}

/** A message in a sandbox Slack channel, as last posted or edited. */
export interface SlackChannelMessage {
  ts: string;
  /** Set on a reply: the thread's first message. */
  threadTs?: string;
  body: Record<string, unknown>;
  at: number;
  /** How many times `chat.update` edited it. */
  edits: number;
}

export interface SnsRecord {
  topicArn: string;
  subject?: string;
  message: string;
  messageAttributes: Record<string, { DataType: string; StringValue?: string }>;
  /** 'json' when the publisher sent per-protocol messages (Message is then a JSON object with `default`). */
  messageStructure?: string;
}

/** One entry of `metadata.managedFields`, in the Kubernetes wire form. */
export interface KubeManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: { 'f:data'?: Record<string, Record<string, never>> };
}

export interface SandboxAwsAuth {
  data: Record<string, string>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion: string;
  uid: string;
  creationTimestamp: string;
  managedFields: KubeManagedFieldsEntry[];
}

export interface SandboxAccessPolicy {
  policyArn: string;
  accessScope: AccessScope;
  associatedAt: string;
  modifiedAt: string;
}

export interface SandboxAccessEntry {
  principalArn: string;
  type: AccessEntryType;
  username: string;
  kubernetesGroups: string[];
  accessEntryArn: string;
  createdAt: string;
  modifiedAt: string;
  tags: Record<string, string>;
  accessPolicies: SandboxAccessPolicy[];
}

export interface SandboxNodegroup {
  name: string;
  arn: string;
  status: string;
  nodeRole: string;
  amiType: string;
  capacityType: string;
  instanceTypes: string[];
  desiredSize: number;
  minSize: number;
  maxSize: number;
  healthIssues: HealthIssue[];
  labels: Record<string, string>;
  createdAt: string;
  modifiedAt: string;
}

export interface SandboxFargateProfile {
  name: string;
  arn: string;
  status: string;
  podExecutionRoleArn: string;
  selectors: FargateSelector[];
  subnets: string[];
  createdAt: string;
}

export interface SandboxNode {
  kind: ComputeKind;
  /** EC2 instance ID; for Fargate/hybrid the node's own ID (no EC2 instance is served). */
  id: string;
  /** Kubernetes node name (= EC2 PrivateDnsName); undefined = the instance never registered. */
  nodeName?: string;
  roleArn?: string;
  nodegroup?: string;
  nodePool?: string;
  nodeClass?: string;
  fargateProfile?: string;
  os: 'linux' | 'windows';
  ready: 'True' | 'False' | 'Unknown';
  availabilityZone: string;
  privateIp: string;
  instanceType: string;
  instanceState: 'pending' | 'running' | 'shutting-down' | 'terminated';
  launchTime: string;
  /** When Ready last changed (served as the condition's lastTransitionTime); default launchTime. */
  readySince?: string;
}

/** EKS control-plane log types (DescribeCluster `logging.clusterLogging[].types`). */
export type SandboxLogType = 'api' | 'audit' | 'authenticator' | 'controllerManager' | 'scheduler';

/**
 * An RBAC grant as a Role/ClusterRole + binding would give it: `subjects` (Kubernetes group or user
 * names) may do `verbs` on `resources` (core group), limited to `resourceNames` when given, in
 * `namespace` (cluster-wide when omitted).
 */
export interface SandboxRbacGrant {
  subjects: Array<{ kind: 'Group' | 'User'; name: string }>;
  namespace?: string;
  verbs: string[];
  resources: string[];
  resourceNames?: string[];
  /** The binding's name, quoted in the audit log's authorization reason. */
  name?: string;
}

/**
 * The IAM principal a test-helper aws-auth write is audited as (`putAwsAuth({ by })`): the audit
 * event's `user` is built as EKS's authenticator builds it for that principal.
 */
export interface SandboxWriter {
  /** IAM role or user ARN. */
  arn: string;
  sessionName?: string;
  /** Kubernetes username (default: the STS ARN for a role, the IAM ARN for a user). */
  username?: string;
  groups?: string[];
  userAgent?: string;
  sourceIp?: string;
}

/** Live, editable state of one cluster. Call `changed()` after editing fields directly. */
export interface SandboxCluster {
  readonly name: string;
  readonly region: string;
  readonly accountId: string;
  readonly arn: string;
  /** The cluster's Kubernetes API URL (https://127.0.0.1:<port>). */
  readonly endpoint: string;
  status: string;
  version: string;
  platformVersion: string;
  oidcIssuer: string;
  /** The cluster IAM role DescribeCluster names (the seed's, else `eks-cluster-role`). */
  roleArn: string;
  /** Auto Mode as DescribeCluster `computeConfig` gives it; undefined = not enabled. */
  computeConfig: ComputeConfig | undefined;
  authenticationMode: AuthenticationMode;
  bootstrapClusterCreatorAdminPermissions: boolean;
  endpointPublicAccess: boolean;
  endpointPrivateAccess: boolean;
  /** undefined = the ConfigMap does not exist (Kubernetes 404). */
  awsAuth: SandboxAwsAuth | undefined;
  accessEntries: SandboxAccessEntry[];
  nodegroups: SandboxNodegroup[];
  fargateProfiles: SandboxFargateProfile[];
  nodes: SandboxNode[];
  /** undefined = Karpenter's CRD is not installed (Kubernetes 404 on the list). */
  nodeClasses: KarpenterNodeClass[] | undefined;
  /** EKS Auto Mode NodeClasses (`spec.role`); undefined = the CRD is absent (Auto Mode off). */
  autoModeNodeClasses: AutoModeNodeClass[] | undefined;
  /** EKS Pod Identity associations (ListPodIdentityAssociations / DescribePodIdentityAssociation). */
  podIdentityAssociations: PodIdentityAssociation[];
  /**
   * Each workload identity's last credential request (`pod identity ns/sa`, `IRSA ns/sa`):
   * undefined = credentials issued, else why not.
   */
  readonly credentialOutcomes: ReadonlyMap<string, string | undefined>;
  /** EKS add-ons (ListAddons / DescribeAddon). */
  addons: Addon[];
  /** Kubernetes service accounts (list serviceaccounts), with the IRSA annotation. */
  serviceAccounts: ServiceAccount[];
  /** CA rotation state (ListCertificateAuthorities); seeded from the snapshot. */
  certificateAuthorities: ClusterCertificateAuthority[];
  /** Enabled control-plane log types (DescribeCluster `logging`); `audit` makes aws-auth writes audited. */
  logging: SandboxLogType[];
  /** RBAC grants beyond the built-in ones (system:masters, access policies, the readers group). */
  rbac: SandboxRbacGrant[];
  /** Stage a node owner's work: these nodes (instance IDs) trust CA `caId` before its activation. */
  trustCertificateAuthority(caId: string, nodeIds: readonly string[]): void;
  /** Writes aws-auth `data` as a client would (default manager 'Terraform', operation 'Update'); creates it if absent. */
  putAwsAuth(
    data: Record<string, string>,
    options?: { manager?: string; operation?: 'Update' | 'Apply'; by?: SandboxWriter },
  ): void;
  /** Deletes the aws-auth ConfigMap. */
  deleteAwsAuth(options?: { by?: SandboxWriter }): void;
  /** Removes the cluster: EKS answers 404, its Kubernetes API refuses connections. */
  remove(): void;
  /** Re-evaluates node readiness after a direct edit of the fields above. */
  changed(): void;
}

export interface SandboxIamRole {
  arn: string;
  roleName: string;
  path: string;
  roleId: string;
  createDate: string;
  /** 'missing' → GetRole answers NoSuchEntity. */
  state: 'exists' | 'missing';
  /** Trust policy JSON (GetRole returns it URL-encoded); undefined → trusts ec2.amazonaws.com. */
  trustPolicy?: string;
  /** Managed policy ARNs attached (SimulatePrincipalPolicy evaluates them). */
  attachedPolicies?: string[];
  /** Inline policies by name → JSON document. */
  inlinePolicies?: Record<string, string>;
}

/** The environment a client needs; also indexable as Record<string, string>. */
export type SandboxEnv = Record<string, string> & {
  AWS_ENDPOINT_URL_EKS: string;
  AWS_ENDPOINT_URL_EC2: string;
  AWS_ENDPOINT_URL_IAM: string;
  AWS_ENDPOINT_URL_STS: string;
  AWS_ENDPOINT_URL_SNS: string;
  /** SSM GetParameter only; `/eks-auth-sentinel/slack-webhook` holds SLACK_WEBHOOK_URL. */
  AWS_ENDPOINT_URL_SSM: string;
  AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: string;
  AWS_ACCESS_KEY_ID: string;
  AWS_SECRET_ACCESS_KEY: string;
  AWS_REGION: string;
  SLACK_WEBHOOK_URL: string;
  /** The Web API base (`…/api`): chat.postMessage and chat.update. */
  SLACK_API_URL: string;
  /** The bot token the Web API accepts (also in SSM at `/eks-auth-sentinel/slack-bot-token`). */
  SLACK_BOT_TOKEN: string;
  /** The channel the bot is a member of. */
  SLACK_CHANNEL: string;
};

export interface Sandbox {
  env: SandboxEnv;
  /** The monitor: arn:aws:iam::<acct>:role/eks-auth-sentinel (the clusters' creator). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** A principal mapped nowhere (arn:aws:iam::<acct>:role/sandbox-outsider). */
  outsiderCredentials: { accessKeyId: string; secretAccessKey: string };
  /** The account ID of the sandbox (the first seed's). */
  accountId: string;
  /** IAM ARNs of the two principals above. */
  principals: { monitor: string; outsider: string };
  /** PEM of the CA that signed every Kubernetes API server certificate. */
  caPem: string;
  cluster(name: string, region?: string): SandboxCluster;
  /**
   * Creates a cluster while the sandbox runs (a blue/green move's green cluster), seeded like the
   * clusters of `startSandbox` (its IAM roles and OIDC providers join the account's); its pods
   * first ask for credentials `credentialRefreshDelayMs` later.
   */
  addCluster(seed: { snapshot: ClusterSnapshot; name?: string }): Promise<SandboxCluster>;
  /** IAM roles of the account, keyed by lower-cased role name. Editable. */
  iamRoles: Map<string, SandboxIamRole>;
  /** IAM OIDC provider ARNs of the account (ListOpenIDConnectProviders). Editable. */
  oidcProviders: string[];
  /**
   * GetOpenIDConnectProvider's ClientIDList by provider ARN (seeded from the snapshot's
   * `clientIds`); a listed provider missing here lists `sts.amazonaws.com`. Editable.
   */
  oidcProviderClientIds: Map<string, string[]>;
  /** SSM parameters by name (GetParameter); seeded with `/eks-auth-sentinel/slack-webhook` → the Slack sink. Editable. */
  ssmParameters: Map<string, string>;
  /**
   * CloudWatch Logs subscription filters by log group name (DescribeSubscriptionFilters); a
   * cluster's `/aws/eks/<cluster>/cluster` exists once it has any log type enabled. Editable.
   */
  logSubscriptions: Map<string, SandboxSubscriptionFilter[]>;
  cloudTrail: unknown[];
  sns: SnsRecord[];
  slack: Array<{ body: unknown; at: number }>;
  /** The Slack Web API: every call, and the channels' messages (`C0SANDBOX01` the bot is in, `C0OUTSIDE1` it is not). */
  slackApi: { calls: SlackApiCall[]; channels: Map<string, SlackChannelMessage[]> };
  calls: SandboxCall[];
  /** Most EKS requests in flight at once, by `eks:<operation>` (e.g. `eks:DescribeAccessEntry`). */
  peakInFlight: ReadonlyMap<string, number>;
  timeline: Array<{ at: number; what: string }>;
  faults: { inject(f: SandboxFault): void; clear(): void };
  /** The Kubernetes API server of a cluster: its watch history and open watches. */
  kube(cluster: string, region?: string): SandboxKube;
  /** The clusters' audit logs as CloudWatch Logs delivers them to a subscription (kube-audit.ts). */
  audit: SandboxAudit;
  close(): Promise<void>;
}

export interface SandboxKube {
  /** The latest resourceVersion of the cluster. */
  readonly resourceVersion: string;
  /** Watches now open. */
  readonly openWatches: number;
  /** Drops the change history: a watch from any earlier resourceVersion gets 410 Expired. */
  compact(): void;
  /** Ends every open watch from the server side (a clean end of the stream, as at a timeout). */
  closeWatches(): void;
}

/** An `audit.k8s.io/v1` Event (the fields the sandbox writes). */
export type SandboxAuditEvent = Record<string, unknown> & {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: 'Metadata' | 'Request' | 'RequestResponse';
  auditID: string;
  verb: string;
};

/** What Lambda receives from a CloudWatch Logs subscription: base64 of the gzipped DATA_MESSAGE. */
export interface CloudWatchLogsSubscriptionEvent {
  awslogs: { data: string };
}

export interface SandboxAudit {
  /** Subscription payloads not yet drained (one per cluster and log stream), oldest first; removes them. */
  drain(cluster?: string): CloudWatchLogsSubscriptionEvent[];
  /** Receives each payload as it is written (instead of `drain`); returns the unsubscribe function. */
  subscribe(deliver: (payload: CloudWatchLogsSubscriptionEvent, cluster: string) => void): () => void;
  /** Every audit event written so far (undelivered ones too), oldest first. */
  events(cluster?: string): SandboxAuditEvent[];
  /** The next `times` (default 1) events are truncated as the API server's truncating backend does. */
  truncateNext(options?: { cluster?: string; times?: number }): void;
  /**
   * CloudWatch Logs' event size limit (default 1 MiB) and what reaches the subscriber for a bigger
   * event — undocumented for EKS, so each reading can be staged: `deliver` (whole, over the limit),
   * `cut` (the first maxEventBytes bytes: not valid JSON), `truncate` (bodies dropped, annotated),
   * `drop` (nothing). Default `deliver`.
   */
  configure(options: {
    maxEventBytes?: number;
    oversize?: 'deliver' | 'cut' | 'truncate' | 'drop';
    /** The subscription filter's name in each payload (default `eks-auth-sentinel-aws-auth`). */
    filterName?: string;
  }): void;
}
