/**
 * The sandbox account's live state: clusters seeded from ClusterSnapshots, IAM roles, the
 * timeline, and EKS's own side effects on aws-auth
 * (docs/eks-auth-semantics.md#what-eks-writes-and-deletes) and on node readiness.
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type {
  AccessEntryType,
  Addon,
  AuthenticationMode,
  AutoModeNodeClass,
  ClusterCertificateAuthority,
  ClusterSnapshot,
  ComputeConfig,
  ComputeNode,
  KarpenterNodeClass,
  PodIdentityAssociation,
  ServiceAccount,
} from '../../shared/core/model.ts';
import { dataFields, nextConfigMapState } from './configmap-state.ts';
import {
  instanceProfileName,
  parseRoleArn,
  randomUpper,
  roleKey,
  stableHex,
  stableUpper,
  stripRolePath,
  uuid,
} from './ids.ts';
import type {
  SandboxAccessEntry,
  SandboxAwsAuth,
  SandboxCluster,
  SandboxFargateProfile,
  SandboxIamRole,
  SandboxLogType,
  SandboxNode,
  SandboxNodegroup,
  SandboxRbacGrant,
  SandboxWriter,
} from './types.ts';
import { workloadCredentials } from './workload-credentials.ts';

/**
 * Whether a node's role currently resolves to a working node identity; undefined = cannot tell.
 * Implementations may cache per `cluster.authStamp` (bumped by every `changed()`).
 */
export type AccessEvaluator = (cluster: ClusterState, node: SandboxNode) => boolean | undefined;

export const NODE_USERNAME = 'system:node:{{EC2PrivateDNSName}}';
export const FARGATE_USERNAME = 'system:node:{{SessionName}}';
export const NODE_GROUPS = ['system:bootstrappers', 'system:nodes'];
export const FARGATE_GROUPS = ['system:bootstrappers', 'system:nodes', 'system:node-proxier'];
/** The field manager recorded when EKS itself edits aws-auth (the real name is not public). */
export const EKS_FIELD_MANAGER = 'eks';

export function defaultUsername(type: AccessEntryType, principalArn: string): string {
  switch (type) {
    case 'EC2_LINUX':
    case 'EC2_WINDOWS':
    case 'EC2':
      return NODE_USERNAME;
    case 'FARGATE_LINUX':
    case 'HYBRID_LINUX':
    case 'HYPERPOD_LINUX':
      return FARGATE_USERNAME;
    default: {
      const role = parseRoleArn(principalArn);
      if (role)
        return `arn:${role.partition}:sts::${role.accountId}:assumed-role/${role.name}/{{SessionName}}`;
      return principalArn;
    }
  }
}

export function accessEntryArn(
  region: string,
  accountId: string,
  cluster: string,
  principalArn: string,
): string {
  const role = parseRoleArn(principalArn);
  const kind = role ? 'role' : 'user';
  const name = role ? role.name : (principalArn.split('/').pop() ?? 'principal');
  return `arn:aws:eks:${region}:${accountId}:access-entry/${cluster}/${kind}/${accountId}/${name}/${stableHex(
    `${cluster}|${principalArn}|${Date.now()}`,
    8,
  )}-${stableHex(principalArn, 4)}-${stableHex(cluster, 4)}-${stableHex(region, 4)}-${stableHex(name, 12)}`;
}

export class ClusterState implements SandboxCluster {
  readonly name: string;
  readonly region: string;
  readonly accountId: string;
  readonly arn: string;
  endpoint = '';
  status: string;
  version: string;
  platformVersion: string;
  /** The seed's OIDC issuer (DescribeCluster identity.oidc.issuer); else one derived from the name. */
  oidcIssuer: string;
  roleArn: string;
  computeConfig: ComputeConfig | undefined;
  authenticationMode: AuthenticationMode;
  bootstrapClusterCreatorAdminPermissions: boolean;
  endpointPublicAccess: boolean;
  endpointPrivateAccess: boolean;
  awsAuth: SandboxAwsAuth | undefined;
  accessEntries: SandboxAccessEntry[] = [];
  nodegroups: SandboxNodegroup[] = [];
  fargateProfiles: SandboxFargateProfile[] = [];
  nodes: SandboxNode[] = [];
  nodeClasses: KarpenterNodeClass[] | undefined;
  autoModeNodeClasses: AutoModeNodeClass[] | undefined;
  podIdentityAssociations: PodIdentityAssociation[] = [];
  addons: Addon[] = [];
  serviceAccounts: ServiceAccount[] = [];
  /** CA rotation (eks-certificate-authorities.ts); seeded from the snapshot's certificateAuthorities. */
  certificateAuthorities: ClusterCertificateAuthority[] = [];
  /** CA ID → IDs of nodes EKS does not manage that were made to trust it (`trustCertificateAuthority`). */
  readonly caTrust = new Map<string, Set<string>>();
  readonly createdAt: string;
  removed = false;
  /** DescribeCluster `logging.clusterLogging`: the enabled control-plane log types (none by default). */
  logging: SandboxLogType[] = [];
  /** Kubernetes RBAC grants beyond the built-in ones (see SandboxRbacGrant). */
  rbac: SandboxRbacGrant[] = [];
  /** Bumped on every `changed()`: lets evaluators cache the access index between changes. */
  authStamp = 0;
  /** Nodes the sandbox turned Unknown (so it may turn them back once access returns). */
  readonly unreadyByAuth = new Set<SandboxNode>();
  readonly pendingUnready = new Map<SandboxNode, NodeJS.Timeout>();
  /** The last credential outcome of each workload identity (`<kind> <ns>/<sa>` → failure or undefined). */
  readonly credentialOutcomes = new Map<string, string | undefined>();
  /** Kubernetes object UIDs and resourceVersions for nodes. */
  readonly nodeMeta = new WeakMap<SandboxNode, { uid: string; resourceVersion: string }>();

  constructor(
    private readonly world: World,
    init: {
      name: string;
      region: string;
      accountId: string;
      info: ClusterSnapshot['cluster'];
      createdAt: string;
    },
  ) {
    this.name = init.name;
    this.region = init.region;
    this.accountId = init.accountId;
    this.arn = `arn:aws:eks:${init.region}:${init.accountId}:cluster/${init.name}`;
    this.status = init.info.status;
    this.version = init.info.version ?? '1.31';
    this.platformVersion = init.info.platformVersion ?? 'eks.12';
    this.oidcIssuer =
      init.info.oidcIssuer ?? `https://oidc.eks.${init.region}.amazonaws.com/id/${init.name.toUpperCase()}`;
    this.roleArn = init.info.roleArn ?? `arn:aws:iam::${init.accountId}:role/eks-cluster-role`;
    this.computeConfig = init.info.computeConfig && {
      ...init.info.computeConfig,
      nodePools: [...init.info.computeConfig.nodePools],
    };
    this.authenticationMode = init.info.authenticationMode;
    this.bootstrapClusterCreatorAdminPermissions = init.info.bootstrapClusterCreatorAdminPermissions ?? true;
    this.endpointPublicAccess = init.info.endpointPublicAccess ?? true;
    this.endpointPrivateAccess = init.info.endpointPrivateAccess ?? false;
    this.createdAt = init.createdAt;
  }

  putAwsAuth(
    data: Record<string, string>,
    options?: { manager?: string; operation?: 'Update' | 'Apply'; by?: SandboxWriter },
  ): void {
    this.world.writeAwsAuth(
      this,
      { ...data },
      options?.manager ?? 'Terraform',
      options?.operation ?? 'Update',
      options?.by ? { actor: options.by } : {},
    );
  }

  deleteAwsAuth(options?: { by?: SandboxWriter }): void {
    this.world.deleteAwsAuth(this, { manager: 'Terraform', ...(options?.by ? { actor: options.by } : {}) });
  }

  remove(): void {
    this.world.removeCluster(this);
  }

  /** Stage a node owner's work: these nodes (instance IDs) trust the CA `caId` before it is activated. */
  trustCertificateAuthority(caId: string, nodeIds: readonly string[]): void {
    const set = this.caTrust.get(caId) ?? new Set<string>();
    for (const id of nodeIds) set.add(id);
    this.caTrust.set(caId, set);
  }

  changed(): void {
    this.world.reevaluateNodes(this);
  }

  nodeMetaOf(node: SandboxNode): { uid: string; resourceVersion: string } {
    let meta = this.nodeMeta.get(node);
    if (!meta) {
      meta = { uid: uuid(), resourceVersion: this.world.nextResourceVersion() };
      this.nodeMeta.set(node, meta);
    }
    return meta;
  }
}

/** Who made an aws-auth write and how, beyond the field manager (for the audit log). */
export interface AwsAuthWriteContext {
  /** Set by the Kubernetes API, which audits its own requests. */
  viaApi?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** The writer the audit log names; default: EKS for its own edits, else the sandbox operator. */
  actor?: SandboxWriter;
}

export interface AwsAuthChange {
  cluster: ClusterState;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object before the write; for DELETED, the deleted object at the deletion's resourceVersion. */
  before: SandboxAwsAuth | undefined;
  manager: string;
  write: AwsAuthWriteContext;
}

export interface WorldOptions {
  sideEffectDelayMs: number;
  notReadyDelayMs: number;
  /** Pods ask for fresh credentials this long after a workload-identity change (default 1000). */
  credentialRefreshDelayMs?: number;
  /** See SandboxOptions.modeSwitchBackFill (default `api-reference`). */
  modeSwitchBackFill?: 'api-reference' | 'pm-statement';
}

export class World {
  accountId = '111122223333';
  readonly clusters = new Map<string, ClusterState>();
  readonly iamRoles = new Map<string, SandboxIamRole>();
  /** IAM OIDC provider ARNs of the account. */
  readonly oidcProviders: string[] = [];
  /** GetOpenIDConnectProvider's ClientIDList by provider ARN; a provider not in it lists `sts.amazonaws.com`. */
  readonly oidcProviderClientIds = new Map<string, string[]>();
  /** Instance profiles by lower-cased name → role ARN: one default per role, plus seeded Karpenter ones. */
  readonly instanceProfiles = new Map<string, { name: string; roleArn: string }>();
  readonly timeline: Array<{ at: number; what: string }> = [];
  evaluator: AccessEvaluator | undefined;
  onRemove: ((cluster: ClusterState) => void) | undefined;
  /** Every aws-auth write (Kubernetes API, EKS, test helpers): feeds watches and the audit log. */
  onAwsAuthChange: ((change: AwsAuthChange) => void) | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private resourceVersion = 1000;
  private closed = false;

  constructor(readonly options: WorldOptions) {}

  log(what: string): void {
    this.timeline.push({ at: Date.now(), what });
  }

  nextResourceVersion(): string {
    this.resourceVersion += 1;
    return String(this.resourceVersion);
  }

  /** The latest resourceVersion handed out (what a list's `metadata.resourceVersion` says). */
  currentResourceVersion(): string {
    return String(this.resourceVersion);
  }

  /** Keeps later resourceVersions above a seeded one, so they stay monotonic. */
  observeResourceVersion(rv: string): void {
    const n = Number(rv);
    if (Number.isInteger(n) && n > this.resourceVersion) this.resourceVersion = n;
  }

  key(name: string, region: string): string {
    return `${region}/${name}`;
  }

  find(name: string, region: string): ClusterState | undefined {
    return this.clusters.get(this.key(name, region));
  }

  inRegion(region: string): ClusterState[] {
    return [...this.clusters.values()].filter((c) => c.region === region);
  }

  /** Runs `fn` after `ms` (synchronously when ms is 0), unless the sandbox closed meanwhile. */
  later(ms: number, fn: () => void): void {
    if (ms <= 0) {
      fn();
      return;
    }
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(t);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const c of this.clusters.values()) {
      for (const t of c.pendingUnready.values()) clearTimeout(t);
      c.pendingUnready.clear();
    }
  }

  removeCluster(cluster: ClusterState): void {
    if (cluster.removed) return;
    cluster.removed = true;
    this.clusters.delete(this.key(cluster.name, cluster.region));
    for (const t of cluster.pendingUnready.values()) clearTimeout(t);
    cluster.pendingUnready.clear();
    this.log(`${cluster.name}: cluster deleted`);
    this.onRemove?.(cluster);
  }

  // ---------------------------------------------------------------------------------------------
  // IAM

  /**
   * The role `arn` names, created at its path if IAM has no role of that name. A seed names roles
   * in several spellings: a path-less one (aws-auth's, a snapshot's `iamRoles` entry taken before
   * paths were recorded) never moves a role that another source gave a path.
   */
  ensureRole(
    arn: string,
    init?: { roleId?: string; createDate?: string; state?: 'exists' | 'missing' },
  ): void {
    const role = parseRoleArn(arn);
    if (!role) return;
    const key = role.name.toLowerCase();
    const existing = this.iamRoles.get(key);
    const keepPath = existing !== undefined && role.path === '/' && existing.path !== '/';
    const real = keepPath ? existing.arn : arn;
    const profile = instanceProfileName(arn);
    if (!this.instanceProfiles.has(profile.toLowerCase())) {
      this.instanceProfiles.set(profile.toLowerCase(), { name: profile, roleArn: real });
    }
    if (existing && !init) return;
    this.iamRoles.set(key, {
      arn: real,
      roleName: role.name,
      path: keepPath ? existing.path : role.path,
      roleId: init?.roleId ?? existing?.roleId ?? `AROA${stableUpper(arn, 17)}`,
      createDate: init?.createDate ?? existing?.createDate ?? '2024-01-15T10:00:00Z',
      state: init?.state ?? existing?.state ?? 'exists',
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Workload credentials

  /**
   * The pods' next credential request, `credentialRefreshDelayMs` after a change to what they
   * depend on (a trust policy, a role, a node role's policies, an OIDC provider, an association,
   * the agent add-on): every cluster, or one. Logs each identity whose outcome changed.
   */
  credentialsChanged(cluster?: ClusterState): void {
    this.later(this.options.credentialRefreshDelayMs ?? 1000, () => {
      for (const c of cluster === undefined ? this.clusters.values() : [cluster]) {
        if (!c.removed) this.refreshCredentials(c, false);
      }
    });
  }

  /** Evaluates every workload identity of `cluster`; logs changes unless `quiet` (the seed's state). */
  refreshCredentials(cluster: ClusterState, quiet: boolean): void {
    for (const w of workloadCredentials(this, cluster)) {
      const key = `${w.kind} ${w.serviceAccount}`;
      const known = cluster.credentialOutcomes.has(key);
      const before = cluster.credentialOutcomes.get(key);
      cluster.credentialOutcomes.set(key, w.failure);
      if (quiet || (known && before === w.failure)) continue;
      const what = w.kind === 'IRSA' ? 'AssumeRoleWithWebIdentity' : 'credential refresh';
      if (w.failure !== undefined) {
        this.log(`${cluster.name}: ${w.kind} ${w.serviceAccount}: ${what} failed (${w.failure})`);
      } else if (known) {
        this.log(`${cluster.name}: ${w.kind} ${w.serviceAccount}: ${what} works again`);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // aws-auth

  /**
   * Writes aws-auth `data` as field manager `manager`. Models Kubernetes' Update semantics: the keys
   * this write changes become owned by the writer and leave every other manager's field set.
   */
  writeAwsAuth(
    cluster: ClusterState,
    data: Record<string, string>,
    manager: string,
    operation: 'Update' | 'Apply',
    write: AwsAuthWriteContext = {},
  ): void {
    const before = cluster.awsAuth;
    const next = nextConfigMapState(before, data, manager, operation, write, () =>
      this.nextResourceVersion(),
    );
    if (!next) return;
    cluster.awsAuth = next.state;
    const touched = next.touched;
    this.log(
      `${cluster.name}: aws-auth ${before ? 'updated' : 'created'} by ${manager} (${touched.join(', ')})`,
    );
    this.onAwsAuthChange?.({ cluster, type: before ? 'MODIFIED' : 'ADDED', before, manager, write });
    cluster.changed();
  }

  /** Deletes aws-auth; the deletion has a resourceVersion of its own (what a DELETED watch event carries). */
  deleteAwsAuth(cluster: ClusterState, write: AwsAuthWriteContext & { manager: string }): boolean {
    const before = cluster.awsAuth;
    if (!before) return false;
    cluster.awsAuth = undefined;
    const deletedAt = this.nextResourceVersion();
    this.log(`${cluster.name}: aws-auth ConfigMap deleted`);
    this.onAwsAuthChange?.({
      cluster,
      type: 'DELETED',
      before: { ...before, resourceVersion: deletedAt },
      manager: write.manager,
      write,
    });
    cluster.changed();
    return true;
  }

  /**
   * EKS removes every mapRoles entry of `nodeRole` (path- and case-insensitive). Returns false when
   * mapRoles cannot be parsed (EKS then fails the operation with AccessDenied).
   */
  removeRoleFromAwsAuth(cluster: ClusterState, nodeRole: string): boolean {
    const auth = cluster.awsAuth;
    if (!auth || auth.data.mapRoles === undefined) return true;
    const list = parseRoleList(auth.data.mapRoles);
    if (!list) return false;
    const key = roleKey(nodeRole);
    const kept = list.filter((entry) => {
      const arn = fieldCaseInsensitive(entry, 'rolearn');
      return !(typeof arn === 'string' && roleKey(arn) === key);
    });
    if (kept.length === list.length) return true;
    this.writeAwsAuth(cluster, { ...auth.data, mapRoles: stringifyYaml(kept) }, EKS_FIELD_MANAGER, 'Update');
    this.log(`${cluster.name}: EKS removed ${list.length - kept.length} aws-auth entr(y/ies) of ${nodeRole}`);
    return true;
  }

  /** EKS adds a mapRoles entry for `roleArn` unless one exists; creates aws-auth if missing. */
  addRoleToAwsAuth(cluster: ClusterState, roleArn: string, username: string, groups: string[]): boolean {
    const data = { ...(cluster.awsAuth?.data ?? {}) };
    const list = data.mapRoles === undefined ? [] : parseRoleList(data.mapRoles);
    if (!list) return false;
    const key = roleKey(roleArn);
    const exists = list.some((entry) => {
      const arn = fieldCaseInsensitive(entry, 'rolearn');
      return typeof arn === 'string' && roleKey(arn) === key;
    });
    if (exists) return true;
    list.push({ rolearn: stripRolePath(roleArn), username, groups: [...groups] });
    data.mapRoles = stringifyYaml(list);
    this.writeAwsAuth(cluster, data, EKS_FIELD_MANAGER, 'Update');
    this.log(`${cluster.name}: EKS added aws-auth entry for ${roleArn} (${username})`);
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Node readiness

  reevaluateNodes(cluster: ClusterState): void {
    cluster.authStamp += 1;
    if (cluster.removed || this.closed) return;
    const evaluate = this.evaluator;
    if (!evaluate) return;
    for (const node of cluster.nodes) {
      if (!node.nodeName || !node.roleArn || node.instanceState !== 'running') continue;
      const working = evaluate(cluster, node);
      if (working === false && node.ready === 'True' && !cluster.pendingUnready.has(node)) {
        const t = setTimeout(() => {
          cluster.pendingUnready.delete(node);
          if (cluster.removed || this.closed || !cluster.nodes.includes(node)) return;
          // A node terminated meanwhile (its node group deleted) is gone, not NotReady.
          if (
            node.instanceState === 'running' &&
            evaluate(cluster, node) === false &&
            node.ready === 'True'
          ) {
            node.ready = 'Unknown';
            node.readySince = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
            cluster.unreadyByAuth.add(node);
            cluster.nodeMetaOf(node).resourceVersion = this.nextResourceVersion();
            this.log(
              `${cluster.name}: node ${node.nodeName} Ready=Unknown (role ${node.roleArn} lost access)`,
            );
          }
        }, this.options.notReadyDelayMs);
        cluster.pendingUnready.set(node, t);
      } else if (working === true) {
        const pending = cluster.pendingUnready.get(node);
        if (pending) {
          clearTimeout(pending);
          cluster.pendingUnready.delete(node);
        }
        if (node.ready === 'Unknown' && cluster.unreadyByAuth.has(node)) {
          node.ready = 'True';
          node.readySince = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
          cluster.unreadyByAuth.delete(node);
          cluster.nodeMetaOf(node).resourceVersion = this.nextResourceVersion();
          this.log(
            `${cluster.name}: node ${node.nodeName} Ready=True again (role ${node.roleArn} has access)`,
          );
        }
      }
    }
  }
}

function fieldCaseInsensitive(entry: unknown, field: string): unknown {
  if (typeof entry !== 'object' || entry === null) return undefined;
  for (const [k, v] of Object.entries(entry)) if (k.toLowerCase() === field) return v;
  return undefined;
}

function parseRoleList(value: string): unknown[] | undefined {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed === '""' || trimmed === "''" || trimmed === '``') return [];
  try {
    const parsed: unknown = parseYaml(value);
    if (parsed === null || parsed === undefined) return [];
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

// -----------------------------------------------------------------------------------------------
// Seeding

let ipCounter = 10;

export function privateIp(): string {
  ipCounter += 1;
  return `10.0.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
}

export function privateDnsName(ip: string, region: string): string {
  return `ip-${ip.replace(/\./g, '-')}.${region === 'us-east-1' ? 'ec2' : `${region}.compute`}.internal`;
}

export function newInstanceId(): string {
  return `i-0${stableHex(`${Math.random()}|${Date.now()}`, 16)}`;
}

const AZ_SUFFIXES = ['a', 'b', 'c'];

export function makeNode(
  region: string,
  init: Partial<SandboxNode> & Pick<SandboxNode, 'kind'>,
  index: number,
): SandboxNode {
  const ip = privateIp();
  const isEc2 = init.kind !== 'fargate' && init.kind !== 'hybrid';
  const name =
    init.nodeName ??
    (init.kind === 'fargate' ? `fargate-${privateDnsName(ip, region)}` : privateDnsName(ip, region));
  const node: SandboxNode = {
    kind: init.kind,
    id: init.id ?? (isEc2 ? newInstanceId() : name),
    nodeName: name,
    os: init.os ?? 'linux',
    ready: init.ready ?? 'True',
    availabilityZone: init.availabilityZone ?? `${region}${AZ_SUFFIXES[index % 3]}`,
    privateIp: ip,
    instanceType: init.instanceType ?? 'm5.large',
    instanceState: init.instanceState ?? 'running',
    launchTime: init.launchTime ?? '2026-01-10T08:00:00.000Z',
  };
  if (init.roleArn !== undefined) node.roleArn = init.roleArn;
  if (init.nodegroup !== undefined) node.nodegroup = init.nodegroup;
  if (init.nodePool !== undefined) node.nodePool = init.nodePool;
  if (init.nodeClass !== undefined) node.nodeClass = init.nodeClass;
  if (init.fargateProfile !== undefined) node.fargateProfile = init.fargateProfile;
  return node;
}

function fromCompute(region: string, c: ComputeNode, index: number): SandboxNode {
  const init: Partial<SandboxNode> & Pick<SandboxNode, 'kind'> = { kind: c.kind, id: c.id };
  if (c.nodeName !== undefined) init.nodeName = c.nodeName;
  if (c.roleArn !== undefined) init.roleArn = c.roleArn;
  if (c.nodegroup !== undefined) init.nodegroup = c.nodegroup;
  if (c.nodePool !== undefined) init.nodePool = c.nodePool;
  if (c.nodeClass !== undefined) init.nodeClass = c.nodeClass;
  if (c.fargateProfile !== undefined) init.fargateProfile = c.fargateProfile;
  if (c.os !== undefined) init.os = c.os;
  if (c.ready !== undefined) init.ready = c.ready;
  return makeNode(region, init, index);
}

export function seedCluster(world: World, snapshot: ClusterSnapshot, name: string): ClusterState {
  const createdAt = '2025-06-01T09:00:00.000Z';
  const cluster = new ClusterState(world, {
    name,
    region: snapshot.region,
    accountId: snapshot.accountId,
    info: snapshot.cluster,
    createdAt,
  });
  const at = snapshot.capturedAt;
  if (snapshot.awsAuth.status === 'ok') {
    const a = snapshot.awsAuth.data;
    if (a.resourceVersion !== undefined) world.observeResourceVersion(a.resourceVersion);
    cluster.awsAuth = {
      data: { ...a.data },
      resourceVersion: a.resourceVersion ?? world.nextResourceVersion(),
      uid: uuid(),
      creationTimestamp: createdAt,
      managedFields: a.managedFields.map((f) => ({
        manager: f.manager,
        operation: f.operation === 'Apply' ? 'Apply' : 'Update',
        apiVersion: 'v1',
        time: f.time ?? at,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': dataFields(f.dataKeys) },
      })),
    };
  }
  if (snapshot.accessEntries.status === 'ok') {
    for (const e of snapshot.accessEntries.data) {
      cluster.accessEntries.push({
        principalArn: e.principalArn,
        type: e.type,
        username: e.username ?? defaultUsername(e.type, e.principalArn),
        kubernetesGroups: [...e.kubernetesGroups],
        accessEntryArn: accessEntryArn(snapshot.region, snapshot.accountId, name, e.principalArn),
        createdAt: e.createdAt ?? createdAt,
        modifiedAt: e.modifiedAt ?? e.createdAt ?? createdAt,
        tags: {},
        accessPolicies: e.accessPolicies.map((p) => ({
          policyArn: p.policyArn,
          accessScope: { ...p.accessScope },
          associatedAt: p.associatedAt ?? e.createdAt ?? createdAt,
          modifiedAt: p.associatedAt ?? e.createdAt ?? createdAt,
        })),
      });
      world.ensureRole(e.principalArn);
    }
  }
  if (snapshot.nodegroups.status === 'ok') {
    for (const g of snapshot.nodegroups.data) {
      cluster.nodegroups.push({
        name: g.name,
        arn: `arn:aws:eks:${snapshot.region}:${snapshot.accountId}:nodegroup/${name}/${g.name}/${stableHex(g.name, 8)}-${stableHex(name, 4)}-${stableHex(g.nodeRole, 4)}-${stableHex(at, 4)}-${stableHex(`${name}/${g.name}`, 12)}`,
        status: g.status,
        nodeRole: g.nodeRole,
        amiType: g.amiType ?? 'AL2023_x86_64_STANDARD',
        capacityType: 'ON_DEMAND',
        instanceTypes: ['m5.large'],
        desiredSize: g.desiredSize ?? 2,
        minSize: g.minSize ?? 1,
        maxSize: g.maxSize ?? 3,
        healthIssues: g.healthIssues.map((i) => ({ ...i })),
        labels: {},
        createdAt,
        modifiedAt: createdAt,
      });
      world.ensureRole(g.nodeRole);
    }
  }
  if (snapshot.fargateProfiles.status === 'ok') {
    for (const p of snapshot.fargateProfiles.data) {
      cluster.fargateProfiles.push({
        name: p.name,
        arn: `arn:aws:eks:${snapshot.region}:${snapshot.accountId}:fargateprofile/${name}/${p.name}/${stableHex(`${name}/${p.name}`, 8)}-${stableHex(p.name, 4)}-${stableHex(name, 4)}-${stableHex(p.podExecutionRoleArn, 4)}-${stableHex(at, 12)}`,
        status: p.status,
        podExecutionRoleArn: p.podExecutionRoleArn,
        selectors: p.selectors.map((s) => ({ ...s })),
        subnets: ['subnet-0a1b2c3d4e5f60001', 'subnet-0a1b2c3d4e5f60002'],
        createdAt: p.createdAt ?? createdAt,
      });
      world.ensureRole(p.podExecutionRoleArn);
    }
  }
  if (snapshot.compute.status === 'ok') {
    snapshot.compute.data.forEach((c, i) => {
      cluster.nodes.push(fromCompute(snapshot.region, c, i));
      if (c.roleArn) world.ensureRole(c.roleArn);
    });
  }
  const autoClasses = snapshot.autoModeNodeClasses;
  if (autoClasses?.status === 'ok') {
    cluster.autoModeNodeClasses = autoClasses.data.map((n) => ({ ...n }));
    for (const n of autoClasses.data) if (n.roleArn) world.ensureRole(n.roleArn);
  }
  const seededClasses = snapshot.karpenterNodeClasses;
  if (seededClasses?.status === 'ok') {
    cluster.nodeClasses = seededClasses.data.map((n) => ({ ...n }));
  }
  // Karpenter nodes imply the CRD and their node class.
  for (const node of cluster.nodes) {
    if (node.kind !== 'karpenter' || !node.nodeClass) continue;
    cluster.nodeClasses ??= [];
    if (!cluster.nodeClasses.some((c) => c.name === node.nodeClass)) {
      const nc: KarpenterNodeClass = { name: node.nodeClass };
      if (node.roleArn) {
        nc.roleArn = node.roleArn;
        const rn = parseRoleArn(node.roleArn)?.name;
        if (rn) nc.role = rn;
      }
      cluster.nodeClasses.push(nc);
    }
  }
  for (const nc of cluster.nodeClasses ?? []) {
    if (!nc.roleArn) continue;
    world.ensureRole(nc.roleArn);
    if (nc.instanceProfile) {
      world.instanceProfiles.set(nc.instanceProfile.toLowerCase(), {
        name: nc.instanceProfile,
        roleArn: nc.roleArn,
      });
    }
  }
  if (snapshot.iamRoles.status === 'ok') {
    for (const r of snapshot.iamRoles.data) {
      const init: { roleId?: string; createDate?: string; state: 'exists' | 'missing' } = { state: r.state };
      if (r.roleId !== undefined) init.roleId = r.roleId;
      if (r.createDate !== undefined) init.createDate = r.createDate;
      world.ensureRole(r.arn, init);
      const role = world.iamRoles.get((parseRoleArn(r.arn)?.name ?? '').toLowerCase());
      if (role !== undefined && r.trustPolicy !== undefined) role.trustPolicy = r.trustPolicy;
    }
  }
  seedWorkloadIdentity(world, cluster, snapshot);
  return cluster;
}

/** The instance profile of a node's instance: its Karpenter node class's profile, else the role's default one. */
export function instanceProfileOfNode(
  world: World,
  cluster: ClusterState,
  node: SandboxNode,
): { name: string; arn: string; id: string } | undefined {
  if (!node.roleArn) return undefined;
  const nodeClass =
    node.kind === 'karpenter' ? cluster.nodeClasses?.find((c) => c.name === node.nodeClass) : undefined;
  const name = nodeClass?.instanceProfile ?? instanceProfileName(node.roleArn);
  return {
    name,
    arn: `arn:aws:iam::${parseRoleArn(node.roleArn)?.accountId ?? world.accountId}:instance-profile/${name}`,
    id: `AIPA${stableUpper(name, 17)}`,
  };
}

export function newAccessKeyId(): string {
  return `AKIA${randomUpper(16)}`;
}

export const WORKER_NODE_POLICY_ARN = 'arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy';

/**
 * Pod Identity and IRSA of a seed: associations, add-ons, service accounts, the account's OIDC
 * providers; node roles get AmazonEKSWorkerNodePolicy (as EKS's guides attach it) unless the seed's
 * `nodeRolePermissions` says IAM denies them `eks-auth:AssumeRoleForPodIdentity`.
 */
function seedWorkloadIdentity(world: World, cluster: ClusterState, snapshot: ClusterSnapshot): void {
  if (snapshot.podIdentityAssociations?.status === 'ok')
    cluster.podIdentityAssociations = snapshot.podIdentityAssociations.data.map((a) => ({ ...a }));
  if (snapshot.addons?.status === 'ok') cluster.addons = structuredClone(snapshot.addons.data);
  if (snapshot.certificateAuthorities?.status === 'ok')
    cluster.certificateAuthorities = structuredClone(snapshot.certificateAuthorities.data);
  if (snapshot.serviceAccounts?.status === 'ok')
    cluster.serviceAccounts = snapshot.serviceAccounts.data.map((a) => ({ ...a }));
  if (snapshot.oidcProviders?.status === 'ok') {
    for (const p of snapshot.oidcProviders.data) {
      if (!world.oidcProviders.includes(p.arn)) world.oidcProviders.push(p.arn);
      if (p.clientIds !== undefined) world.oidcProviderClientIds.set(p.arn, [...p.clientIds]);
    }
  }
  const roleOf = (arn: string) => world.iamRoles.get((parseRoleArn(arn)?.name ?? '').toLowerCase());
  const nodeRoles = [
    ...cluster.nodegroups.map((g) => g.nodeRole),
    ...cluster.nodes.filter((n) => n.kind !== 'fargate').map((n) => n.roleArn),
  ];
  for (const arn of nodeRoles) {
    if (!arn) continue;
    world.ensureRole(arn);
    const role = roleOf(arn);
    if (role !== undefined && role.attachedPolicies === undefined)
      role.attachedPolicies = [WORKER_NODE_POLICY_ARN];
  }
  if (snapshot.nodeRolePermissions?.status === 'ok') {
    for (const p of snapshot.nodeRolePermissions.data) {
      world.ensureRole(p.roleArn);
      const role = roleOf(p.roleArn);
      if (role === undefined) continue;
      if (p.decision === 'allowed') {
        role.attachedPolicies = [...new Set([...(role.attachedPolicies ?? []), WORKER_NODE_POLICY_ARN])];
      } else {
        role.attachedPolicies = (role.attachedPolicies ?? []).filter((a) => a !== WORKER_NODE_POLICY_ARN);
        if (p.decision === 'explicitDeny') {
          role.inlinePolicies = {
            ...role.inlinePolicies,
            'deny-pod-identity': JSON.stringify({
              Version: '2012-10-17',
              Statement: [{ Effect: 'Deny', Action: p.action, Resource: '*' }],
            }),
          };
        }
      }
    }
  }
}
