/**
 * Who authenticates as what: the authenticator's lookup over access entries and aws-auth, by
 * authentication mode (docs/eks-auth-semantics.md#what-each-mode-reads,
 * docs/eks-auth-semantics.md#precedence, docs/eks-auth-semantics.md#arn-handling):
 *   API                → access entries only
 *   API_AND_CONFIG_MAP → the access entry wins; else aws-auth
 *   CONFIG_MAP         → aws-auth only
 * and within aws-auth: roles (last duplicate wins; SSO matchers), then users, then mapAccounts
 * (username = the canonical ARN, no groups).
 *
 * A source that could not be read makes negative answers `unknown`, never `unmapped`.
 */
import type { AwsAuthKey, ParsedAwsAuth, RoleMapping, UserMapping } from '../aws-auth/index.ts';
import type {
  AccessEntry,
  AccessEntryType,
  AssociatedAccessPolicy,
  AuthenticationMode,
  SourceName,
} from '../model.ts';
import { accountOf, awsAuthArnKey, parseArn, principalKey, roleNameOf, ssoMatches } from './principal.ts';

export type IdentitySource = 'access-entry' | 'aws-auth-role' | 'aws-auth-user' | 'aws-auth-account';

export interface ResolvedIdentity {
  source: IdentitySource;
  username: string;
  groups: string[];
  accessEntryType?: AccessEntryType;
  accessPolicies: AssociatedAccessPolicy[];
  /** The ARN of the entry that matched, as written (or the account for mapAccounts). */
  matchedBy: string;
  /** Where the aws-auth entry stands, for aws-auth sources. */
  location?: { dataKey: AwsAuthKey; index: number; line?: number };
}

export type Resolution =
  | { state: 'resolved'; identity: ResolvedIdentity }
  | { state: 'unmapped' }
  | { state: 'unknown'; blind: SourceName[] };

export interface AccessIndexOptions {
  /** aws-auth could not be read (error, not absent). */
  awsAuthUnknown?: boolean;
  /** Access entries could not be read (error, not absent). */
  accessEntriesUnknown?: boolean;
  /** Keys (principalKey) of access entries bound to a role that was deleted or re-created: they match nothing. */
  deadEntryKeys?: ReadonlySet<string>;
}

export interface AccessIndex {
  mode: AuthenticationMode;
  entries: ReadonlyMap<string, AccessEntry>;
  entriesUnknown: boolean;
  deadEntryKeys: ReadonlySet<string>;
  /** Role mappings by authenticator key (lower-cased rolearn, path kept); last duplicate wins. */
  roles: ReadonlyMap<string, RoleMapping>;
  ssoRoles: readonly RoleMapping[];
  users: readonly UserMapping[];
  /** User mappings by lower-cased userarn; the last duplicate wins, as in the authenticator. */
  usersByKey: ReadonlyMap<string, UserMapping>;
  accounts: ReadonlySet<string>;
  awsAuthUnknown: boolean;
}

export function buildAccessIndex(
  mode: AuthenticationMode,
  awsAuth: ParsedAwsAuth | undefined,
  accessEntries: readonly AccessEntry[] | undefined,
  options: AccessIndexOptions = {},
): AccessIndex {
  return assembleAccessIndex(mode, indexAwsAuth(awsAuth), indexAccessEntries(accessEntries), options);
}

/** The aws-auth half of an AccessIndex: it depends on the parse alone. */
export type AwsAuthIndex = Pick<AccessIndex, 'roles' | 'ssoRoles' | 'users' | 'usersByKey' | 'accounts'>;

export function indexAwsAuth(awsAuth: ParsedAwsAuth | undefined): AwsAuthIndex {
  const roles = new Map<string, RoleMapping>();
  const ssoRoles: RoleMapping[] = [];
  for (const r of awsAuth?.roles ?? []) {
    if (r.rolearn !== undefined && r.rolearn !== '') roles.set(awsAuthArnKey(r.rolearn), r);
    else if (r.sso) ssoRoles.push(r);
  }
  const usersByKey = new Map<string, UserMapping>();
  for (const u of awsAuth?.users ?? []) usersByKey.set(u.userarn.toLowerCase(), u);
  return {
    roles,
    ssoRoles,
    users: awsAuth?.users ?? [],
    usersByKey,
    accounts: new Set(awsAuth?.accounts ?? []),
  };
}

/** Access entries by principalKey, the last one for a key winning. */
export function indexAccessEntries(
  accessEntries: readonly AccessEntry[] | undefined,
): Map<string, AccessEntry> {
  const entries = new Map<string, AccessEntry>();
  for (const e of accessEntries ?? []) entries.set(principalKey(e.principalArn), e);
  return entries;
}

/** An AccessIndex from its two halves (analysis.ts shares them between the states of a plan). */
export function assembleAccessIndex(
  mode: AuthenticationMode,
  awsAuth: AwsAuthIndex,
  entries: ReadonlyMap<string, AccessEntry>,
  options: AccessIndexOptions = {},
): AccessIndex {
  return {
    mode,
    entries,
    entriesUnknown: options.accessEntriesUnknown ?? false,
    deadEntryKeys: options.deadEntryKeys ?? new Set(),
    roles: awsAuth.roles,
    ssoRoles: awsAuth.ssoRoles,
    users: awsAuth.users,
    usersByKey: awsAuth.usersByKey,
    accounts: awsAuth.accounts,
    awsAuthUnknown: options.awsAuthUnknown ?? false,
  };
}

/** Default usernames of access entries (docs/eks-auth-semantics.md#access-entry-types). */
export function accessEntryUsername(entry: AccessEntry): string {
  if (entry.username) return entry.username;
  switch (entry.type) {
    case 'EC2_LINUX':
    case 'EC2_WINDOWS':
    case 'EC2':
      return 'system:node:{{EC2PrivateDNSName}}';
    case 'FARGATE_LINUX':
    case 'HYBRID_LINUX':
    case 'HYPERPOD_LINUX':
      return 'system:node:{{SessionName}}';
    default: {
      const p = parseArn(entry.principalArn);
      const role = roleNameOf(entry.principalArn);
      if (p && role !== undefined)
        return `arn:${p.partition}:sts::${p.account}:assumed-role/${role}/{{SessionName}}`;
      return entry.principalArn;
    }
  }
}

function fromAccessEntry(entry: AccessEntry): ResolvedIdentity {
  return {
    source: 'access-entry',
    username: accessEntryUsername(entry),
    groups: [...entry.kubernetesGroups],
    accessEntryType: entry.type,
    accessPolicies: entry.accessPolicies,
    matchedBy: entry.principalArn,
  };
}

function fromAwsAuth(
  source: IdentitySource,
  m: RoleMapping | UserMapping,
  matchedBy: string,
): ResolvedIdentity {
  return {
    source,
    username: m.username,
    groups: [...m.groups],
    accessPolicies: [],
    matchedBy,
    location: {
      dataKey: m.location.dataKey,
      index: m.location.index,
      ...(m.location.line !== undefined ? { line: m.location.line } : {}),
    },
  };
}

/** aws-auth alone (the configmap backend), for a canonical key. */
function resolveInAwsAuth(index: AccessIndex, key: string, arn: string): ResolvedIdentity | undefined {
  const role = index.roles.get(key);
  if (role) return fromAwsAuth('aws-auth-role', role, role.rolearn ?? key);
  for (const sso of index.ssoRoles) {
    if (sso.sso && ssoMatches(sso.sso, key)) return fromAwsAuth('aws-auth-role', sso, key);
  }
  const u = index.usersByKey.get(key);
  if (u) return fromAwsAuth('aws-auth-user', u, u.userarn);
  const account = accountOf(arn);
  if (account && index.accounts.has(account)) {
    return { source: 'aws-auth-account', username: key, groups: [], accessPolicies: [], matchedBy: account };
  }
  return undefined;
}

/**
 * Resolve a principal (IAM role/user ARN, with or without path, or an STS assumed-role ARN) the
 * way the cluster would when it authenticates.
 */
export function resolveAccess(index: AccessIndex, arn: string): Resolution {
  const key = principalKey(arn);
  const usesEntries = index.mode !== 'CONFIG_MAP';
  const usesConfigMap = index.mode !== 'API';
  if (usesEntries) {
    const entry = index.entries.get(key);
    if (entry && !index.deadEntryKeys.has(key))
      return { state: 'resolved', identity: fromAccessEntry(entry) };
  }
  if (usesConfigMap && !index.awsAuthUnknown) {
    const identity = resolveInAwsAuth(index, key, arn);
    // With access entries unreadable an entry could still override this mapping; a working
    // aws-auth mapping is the likely outcome, and "unknown" here would hide real findings.
    if (identity) return { state: 'resolved', identity };
  }
  const blind: SourceName[] = [];
  if (usesEntries && index.entriesUnknown) blind.push('accessEntries');
  if (usesConfigMap && index.awsAuthUnknown) blind.push('awsAuth');
  if (blind.length > 0) return { state: 'unknown', blind };
  return { state: 'unmapped' };
}

/** Convenience: the resolved identity, or undefined when unmapped or unknown. */
export function resolvePrincipal(index: AccessIndex, arn: string): ResolvedIdentity | undefined {
  const r = resolveAccess(index, arn);
  return r.state === 'resolved' ? r.identity : undefined;
}

// ---------------------------------------------------------------------------------------------
// What a working identity looks like for each kind of compute
// (docs/eks-auth-semantics.md#managed-node-groups-and-aws-auth,
// docs/eks-auth-semantics.md#fargate-profiles, docs/eks-auth-semantics.md#access-entry-types).

export type NodeRequirement = 'ec2-linux' | 'ec2-windows' | 'fargate' | 'auto' | 'hybrid';

export const NODE_USERNAME = 'system:node:{{EC2PrivateDNSName}}';
export const SESSION_NODE_USERNAME = 'system:node:{{SessionName}}';
export const NODE_GROUPS = ['system:bootstrappers', 'system:nodes'] as const;
export const WINDOWS_NODE_GROUPS = [
  'system:bootstrappers',
  'system:nodes',
  'eks:kube-proxy-windows',
] as const;
export const FARGATE_GROUPS = ['system:bootstrappers', 'system:nodes', 'system:node-proxier'] as const;

export interface IdentityCheck {
  /** The compute can authenticate and act as a node. */
  works: boolean;
  /** Why not, when it does not. */
  problems: string[];
  /** It works, but lacks something EKS sets up (e.g. `system:bootstrappers`). */
  degraded: string[];
}

const ENTRY_TYPE_FOR: Record<NodeRequirement, AccessEntryType> = {
  'ec2-linux': 'EC2_LINUX',
  'ec2-windows': 'EC2_WINDOWS',
  fargate: 'FARGATE_LINUX',
  auto: 'EC2',
  hybrid: 'HYBRID_LINUX',
};

/** The access policy an Auto Mode node role's `EC2` entry needs. */
export const AUTO_NODE_POLICY_ARN = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy';
export const AUTO_NODE_POLICY_MISSING =
  'the EC2 access entry has no AmazonEKSAutoNodePolicy association (EKS adds it only for the built-in node pools; a custom NodeClass role needs it added)';

function hasAutoNodePolicy(identity: ResolvedIdentity): boolean {
  return identity.accessPolicies.some((p) => p.policyArn.endsWith('/AmazonEKSAutoNodePolicy'));
}

export function requiredEntryType(req: NodeRequirement): AccessEntryType {
  return ENTRY_TYPE_FOR[req];
}

export function checkIdentity(identity: ResolvedIdentity | undefined, req: NodeRequirement): IdentityCheck {
  if (!identity) return { works: false, problems: ['no mapping at all'], degraded: [] };
  if (identity.source === 'access-entry') {
    const want = ENTRY_TYPE_FOR[req];
    // An Auto Mode node role needs AmazonEKSAutoNodePolicy on its EC2 entry; EKS associates it only
    // for the built-in node pools' role (docs/eks-auth-semantics.md#eks-owned-access-entries).
    if (identity.accessEntryType === want && req === 'auto' && !hasAutoNodePolicy(identity))
      return { works: false, problems: [AUTO_NODE_POLICY_MISSING], degraded: [] };
    if (identity.accessEntryType === want) return { works: true, problems: [], degraded: [] };
    return {
      works: false,
      problems: [
        `access entry of type ${identity.accessEntryType ?? 'STANDARD'}; this compute needs ${want}`,
      ],
      degraded: [],
    };
  }
  if (identity.source === 'aws-auth-account') {
    return {
      works: false,
      problems: ['only mapAccounts matches: username is the ARN and there are no groups'],
      degraded: [],
    };
  }
  if (req === 'auto') {
    return { works: false, problems: ['EKS Auto Mode nodes need an access entry of type EC2'], degraded: [] };
  }
  const problems: string[] = [];
  const degraded: string[] = [];
  const groups = new Set(identity.groups);
  const wantUser = req === 'ec2-linux' || req === 'ec2-windows' ? NODE_USERNAME : SESSION_NODE_USERNAME;
  if (identity.username !== wantUser) problems.push(`username is "${identity.username}", not "${wantUser}"`);
  if (!groups.has('system:nodes')) problems.push('group system:nodes is missing');
  if (req === 'fargate') {
    for (const g of ['system:bootstrappers', 'system:node-proxier']) {
      if (!groups.has(g)) problems.push(`group ${g} is missing (the Fargate scheduler requires it)`);
    }
  } else {
    if (!groups.has('system:bootstrappers')) degraded.push('group system:bootstrappers is missing');
    if (req === 'ec2-windows' && !groups.has('eks:kube-proxy-windows')) {
      degraded.push('group eks:kube-proxy-windows is missing (kube-proxy on Windows nodes fails)');
    }
  }
  return { works: problems.length === 0, problems, degraded };
}

/** For the sandbox and callers that only need a yes/no. */
export function isWorkingNodeIdentity(
  identity: ResolvedIdentity | undefined,
  os: 'linux' | 'windows',
): boolean {
  return checkIdentity(identity, os === 'windows' ? 'ec2-windows' : 'ec2-linux').works;
}

export function isWorkingFargateIdentity(identity: ResolvedIdentity | undefined): boolean {
  return checkIdentity(identity, 'fargate').works;
}

/** Groups granting everything: aws-auth `system:masters` or the cluster-admin access policy. */
export const CLUSTER_ADMIN_POLICY_ARN = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy';

export function isClusterAdmin(identity: ResolvedIdentity | undefined): boolean {
  if (!identity) return false;
  return (
    identity.groups.includes('system:masters') ||
    identity.accessPolicies.some((p) => p.policyArn.endsWith('/AmazonEKSClusterAdminPolicy'))
  );
}
