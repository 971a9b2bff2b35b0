/**
 * Ports: the small interfaces the use cases depend on. Adapters in `shared/adapters/` implement
 * them against AWS and Kubernetes; tests of use cases implement them in memory.
 *
 * Every read returns domain types (`shared/core/model.ts` or the few reader-level shapes below)
 * or throws a `CollectionError` (`shared/errors.ts`). A read never answers "empty" for
 * "could not look": absence that is real (a 404, a mode in which the store cannot exist) is a
 * `Lookup` with `found: false` and a reason.
 */

import type { Ec2Instance, KubeNode } from './core/access/index.ts';
import type {
  AlertRecord,
  Channel,
  EvaluationScope,
  PendingNotice,
  SlackThreadPlan,
  SlackThreadRef,
} from './core/alerts/index.ts';
import type {
  AccessEntry,
  Addon,
  AutoModeNodeClass,
  AwsAuthConfigMap,
  ClusterCertificateAuthority,
  ClusterId,
  ClusterInfo,
  ClusterSnapshot,
  FargateProfile,
  Finding,
  IamRole,
  KarpenterNodeClass,
  Nodegroup,
  OidcProvider,
  PodIdentityAssociation,
  RoleActionPermission,
  ServiceAccount,
} from './core/model.ts';
import type { Change } from './core/predict/index.ts';

/** The reader-level shapes the pure compute merge consumes (defined with it in the core). */
export type { Ec2Instance, Ec2InstanceKind, KubeNode } from './core/access/index.ts';

/** A value that was looked for: found, or really absent (never "could not look"). */
export type Lookup<T> = { found: true; value: T } | { found: false; reason: string };

export interface Clock {
  now(): Date;
}

/**
 * DescribeCluster, reduced to what the monitor uses: the snapshot's cluster fields (core's
 * `ClusterInfo`, the one DescribeCluster shape) plus its identity and where its API is, which
 * the snapshot does not store.
 */
export interface ClusterDescription extends ClusterInfo {
  name: string;
  arn: string;
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
  /** ListPodIdentityAssociations + DescribePodIdentityAssociation for each. */
  podIdentityAssociations(clusterName: string): Promise<PodIdentityAssociation[]>;
  /** ListAddons; DescribeAddon only for the add-ons the rules need (`eks-pod-identity-agent`). */
  addons(clusterName: string): Promise<Addon[]>;
  /**
   * ListCertificateAuthorities + DescribeCertificateAuthority for each (CA rotation). Optional: a
   * reader without it leaves `certificateAuthorities` out of the snapshot (not captured).
   */
  certificateAuthorities?(clusterName: string): Promise<ClusterCertificateAuthority[]>;
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
  /**
   * GetRole: `state: 'missing'` on NoSuchEntity; throws on anything else. The trust policy
   * (`AssumeRolePolicyDocument`, URL-decoded) comes with it; the capture keeps it only for roles
   * of workload identity.
   */
  getRole(roleArn: string): Promise<IamRole>;
  /** ListOpenIDConnectProviders of the account (the URL from each ARN). */
  oidcProviders(): Promise<OidcProvider[]>;
  /**
   * GetOpenIDConnectProvider's `ClientIDList` (the audiences STS accepts from that issuer);
   * `found: false` on NoSuchEntity (deleted since the list).
   */
  oidcProviderClientIds(providerArn: string): Promise<Lookup<string[]>>;
  /** SimulatePrincipalPolicy of one role for one action: IAM's own decision over its policies. */
  simulateRoleAction(roleArn: string, action: string): Promise<RoleActionPermission>;
}

/** Where a cluster's Kubernetes API is and how to trust it (from DescribeCluster). */
export interface KubeClusterRef extends ClusterId {
  endpoint: string;
  /** Base64 of the PEM CA bundle; TLS is always verified against it. */
  certificateAuthorityData: string;
}

/** A Karpenter EC2NodeClass as declared (role name or instance profile); the use case resolves the role ARN. */
export type Ec2NodeClassSpec = Omit<KarpenterNodeClass, 'roleArn'>;

/** An EKS Auto Mode NodeClass as declared (`spec.role`, a role name); the use case makes the ARN. */
export type AutoModeNodeClassSpec = Omit<AutoModeNodeClass, 'roleArn'>;

/** What the event path reads from Kubernetes: aws-auth only. */
export interface AwsAuthReader {
  /** `kube-system/aws-auth`; `found: false` on 404. */
  awsAuth(cluster: KubeClusterRef): Promise<Lookup<AwsAuthConfigMap>>;
}

/** One change of `kube-system/aws-auth` a watch saw (or, after `410 Gone`, a re-list found). */
export interface AwsAuthWatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object's resourceVersion (a deletion's own); for a deletion a re-list found, the list's. */
  resourceVersion: string;
  /** The object as read (`found: false` for a deletion), or why it could not be taken as aws-auth. */
  awsAuth: { ok: true; value: Lookup<AwsAuthConfigMap> } | { ok: false; error: unknown };
  via: 'watch' | 'relist';
}

/** Why a watch was opened again: the server ended it, the token was due, `410 Gone`, an error. */
export type AwsAuthWatchRestart = 'closed' | 'token-refresh' | 'gone' | 'error';

export interface AwsAuthWatchOptions {
  signal: AbortSignal;
  /** Watch from here (aws-auth's resourceVersion as last read); without, from a fresh list. */
  from?: string;
  /** aws-auth existed at `from` (default true): a re-list that finds none reports a deletion. */
  present?: boolean;
  /** Each time the watch is opened again, with where it resumes from. */
  onRestart?(restart: {
    reason: AwsAuthWatchRestart;
    resourceVersion: string | undefined;
    error?: string;
  }): void;
}

/**
 * Follows `kube-system/aws-auth` until `signal` aborts: every write, in order, across server
 * closes, token refreshes and `410 Gone` (re-list). Throws a `KubernetesApiError` when it cannot
 * go on (401/403, or failures past its retries).
 */
export interface AwsAuthWatcher {
  watch(cluster: KubeClusterRef, options: AwsAuthWatchOptions): AsyncIterable<AwsAuthWatchEvent>;
}

export interface KubeReader extends AwsAuthReader {
  nodes(cluster: KubeClusterRef): Promise<KubeNode[]>;
  /** `ec2nodeclasses.karpenter.k8s.aws/v1`; `found: false` when the CRD is not installed. */
  ec2NodeClasses(cluster: KubeClusterRef): Promise<Lookup<Ec2NodeClassSpec[]>>;
  /** `nodeclasses.eks.amazonaws.com/v1` (EKS Auto Mode); `found: false` when Auto Mode is off (404). */
  autoModeNodeClasses(cluster: KubeClusterRef): Promise<Lookup<AutoModeNodeClassSpec[]>>;
  /** Service accounts of every namespace (list, metadata only: the IRSA role-arn annotation). */
  serviceAccounts(cluster: KubeClusterRef): Promise<ServiceAccount[]>;
}

/** A cluster to capture or report on: its identity, the account optional (it defaults to the cluster ARN's). */
export type CaptureTarget = Omit<ClusterId, 'accountId'> & Partial<Pick<ClusterId, 'accountId'>>;

/** CloudWatch Logs of one Region, read-only. */
export interface LogsReader {
  /** The subscription filters of a log group by name; `found: false` when the group does not exist. */
  subscriptionFilterNames(logGroupName: string, cluster?: string): Promise<Lookup<string[]>>;
}

/** Everything `captureSnapshot` needs. Region-bound readers come from factories. */
export interface CaptureDeps {
  eks(region: string): EksReader;
  ec2(region: string): Ec2Reader;
  iam: IamReader;
  kube: KubeReader;
  clock: Clock;
  /** Optional: without it the snapshot does not say whether the audit log is subscribed. */
  logs?(region: string): LogsReader;
}

// ---------------------------------------------------------------------------------------------
// The serverless monitor: state, delivery and queues. Adapters: S3/DynamoDB/SNS/Slack/SQS for
// Lambda, a local directory for the CLI, in-memory fakes for use-case tests.

/** Snapshot documents: the last one per cluster. */
export interface SnapshotStore {
  /**
   * The last stored snapshot; undefined when none was ever stored. Throws when it cannot read,
   * or when `options.signal` aborts first (the request is cut, not left running).
   */
  latest(key: ClusterId, options?: { signal?: AbortSignal }): Promise<ClusterSnapshot | undefined>;
  put(snapshot: ClusterSnapshot): Promise<void>;
}

/** Alert records per cluster (shared/core/alerts/lifecycle.ts), with optimistic concurrency. */
export interface AlertStore {
  /** The cluster's records and an opaque version for `save`. */
  load(key: ClusterId): Promise<{ records: AlertRecord[]; version?: string }>;
  /**
   * Store the cluster's records (spent ones are dropped by the caller). Throws
   * `ConcurrentUpdateError` when another writer saved since `version`; the caller re-plans.
   * Resolves to the new version (for the next `save` of the same run).
   */
  save(key: ClusterId, records: readonly AlertRecord[], version?: string): Promise<string>;
}

/** What a claim found: the event is now ours, another invocation holds it, or it was done. */
export type ClaimOutcome = 'claimed' | 'in-progress' | 'completed';

/**
 * Exactly-once gate for at-least-once deliveries (CloudTrail eventID), in two states:
 * `IN_PROGRESS` until `inProgressUntil` (just past the invocation's own timeout, so a claim left
 * by a timeout, an out-of-memory or a crash can be taken again by the retry), then `COMPLETED`
 * for `ttlSeconds`.
 */
export interface IdempotencyStore {
  /**
   * Claim `key` as in progress until `inProgressUntil` (epoch ms). `in-progress` when another
   * claim is held and not yet expired; `completed` when the work was done.
   */
  claim(key: string, options: { inProgressUntil: number; ttlSeconds: number }): Promise<ClaimOutcome>;
  /** The work is done: the key answers `completed` for `ttlSeconds`. */
  complete(key: string, ttlSeconds: number): Promise<void>;
  /** Give an in-progress claim back after a failure, so a redelivery is processed at once. */
  release(key: string): Promise<void>;
}

export interface DeliveryResult {
  /** The notices the channel accepted (identity within the array passed to `send`). */
  delivered: Set<PendingNotice>;
  /** A safe message when some were not delivered (never a webhook URL or token). */
  error?: string;
  /** Slack bot-token mode: the thread each delivered notice now belongs to (stored on its record). */
  threads?: Map<PendingNotice, SlackThreadRef>;
}

/** What a sender may need besides the notices (Slack threads in bot-token mode). */
export interface SendContext {
  /**
   * Where each of `notices` goes in `channel` (core's `planSlackThreads`): new incidents, replies
   * per thread, which replies are broadcast, what each thread's first message shows. Without it
   * every notice starts a new incident.
   */
  slackThreads?(notices: readonly PendingNotice[], channel: string): SlackThreadPlan;
}

/** One channel (SNS topic, Slack webhook or bot). Never throws for delivery failures: it reports them. */
export interface NoticeSender {
  readonly channel: Channel;
  send(notices: readonly PendingNotice[], context?: SendContext): Promise<DeliveryResult>;
}

/** A request to capture and evaluate one cluster (scheduler → worker, and follow-ups). */
export interface ClusterWorkItem extends ClusterId {
  reason: 'schedule' | 'follow-up';
  /** For follow-ups: the event being confirmed. */
  followUp?: {
    eventId: string;
    eventName: string;
    change: Change;
    /** Fingerprints of the findings the event raised (resolved once the change has settled). */
    fingerprints: string[];
    attempt: number;
  };
}

export interface WorkQueue {
  enqueue(items: readonly ClusterWorkItem[], delaySeconds?: number): Promise<void>;
}

/** What a delivery did (counts of notices). */
export interface DeliverySummary {
  /** Notices a channel accepted in this run. */
  sent: number;
  /** Notices a channel was given and did not accept in this run (they stay pending). */
  failed: number;
  /** Notices left pending after this run, all channels. */
  pending: number;
  /** The last error per channel that failed in this run (safe: no webhook URL); none when nothing was sent. */
  errors?: Partial<Record<Channel, string>>;
}

/**
 * Hands findings to the alert lifecycle of one cluster and sends what it plans (wired to
 * `deliverAlerts` with the configured channels). Throws after saving when a notice keeps failing.
 */
export type Deliver = (
  cluster: ClusterId,
  findings: readonly Finding[],
  scope: EvaluationScope,
) => Promise<DeliverySummary>;

// ---------------------------------------------------------------------------------------------
// Opt-in prevention (shared/app/remediate.ts): the only writes the monitor ever makes to a cluster.

/** What a write did. `forbidden` names the missing IAM permission or RBAC grant. */
export type WriteOutcome =
  | { status: 'done' }
  | { status: 'already-present'; detail: string }
  | { status: 'conflict'; detail: string }
  | { status: 'forbidden'; detail: string };

/** EKS CreateAccessEntry (and AssociateAccessPolicy for an Auto Mode node role's entry). */
export interface AccessEntryWriter {
  createAccessEntry(
    cluster: ClusterId,
    entry: { principalArn: string; type: string; accessPolicies: readonly string[] },
  ): Promise<WriteOutcome>;
}

/**
 * `kube-system/aws-auth`'s mapRoles replaced by a merge patch carrying `resourceVersion` as its
 * precondition: a newer edit makes it a `conflict` (409), never an overwrite.
 */
export interface AwsAuthWriter {
  patchMapRoles(
    cluster: KubeClusterRef,
    change: { resourceVersion: string; mapRoles: string },
  ): Promise<WriteOutcome>;
}

/** A remediation action's record in the state table. */
export interface LedgerEntry {
  action: string;
  principalArn: string;
  result: string;
  detail: string;
  dryRun: boolean;
  at: string;
  trigger: string;
}

/** Idempotency of actions on their triggering event, the hourly cap per cluster, and the record of each. */
export interface RemediationLedger {
  /** Claims the action `key` (trigger + action + role) once: false when a run already took it. */
  claim(key: string): Promise<boolean>;
  /** One of `limit` action slots of the cluster for the hour starting at `hour` (ISO): false when spent. */
  takeSlot(cluster: ClusterId, hour: string, limit: number): Promise<boolean>;
  record(key: string, entry: LedgerEntry): Promise<void>;
}
