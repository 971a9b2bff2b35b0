/**
 * The plan from aws-auth to access entries (`eks-auth-sentinel migrate`), built from the
 * *effective* mappings — what the authenticator keeps (`parseAwsAuth`: invalid entries dropped,
 * a key that fails to parse keeps nothing) and matches (`buildAccessIndex`: the last duplicate
 * wins) — plus every role that compute depends on (`buildConsumers`), mapped or not:
 *
 * - node roles → `EC2_LINUX`, or `EC2_WINDOWS` for Windows compute (node group AMI type, node OS,
 *   or an aws-auth entry with `eks:kube-proxy-windows`); Fargate pod execution roles →
 *   `FARGATE_LINUX`; hybrid node roles → `HYBRID_LINUX`; Auto Mode node roles → `EC2`;
 * - `system:masters` → `STANDARD` + `AmazonEKSClusterAdminPolicy` (cluster scope);
 * - other groups → `STANDARD` with `kubernetesGroups`, the aws-auth username kept;
 * - the principal ARN is the role's real ARN, IAM path included (`role-arn.ts`: IAM, instance
 *   profiles, node groups, Fargate profiles, node classes, existing entries): aws-auth must name
 *   roles without their path, and EKS refuses an entry for the path-less ARN of a role that has
 *   one. A role whose path the snapshot cannot tell is a blocker with the `aws iam get-role` that
 *   tells it, never the path-less guess.
 *
 * What cannot move is a blocker for `API`, with why and what to do. A principal with a blocker
 * gets no entry: in `API_AND_CONFIG_MAP` an access entry wins over aws-auth at once, so a partial
 * entry (a refused group left out) would take access away before the switch.
 *
 * Pure: no clock (`migrate-apply.ts`, which applies a plan, stamps entries with the snapshot's
 * `capturedAt`).
 */

import { buildConsumers, type RoleConsumer } from '../access/consumers.ts';
import { accountOf, parseArn, principalKey, ssoMatches } from '../access/principal.ts';
import {
  accessEntryUsername,
  buildAccessIndex,
  CLUSTER_ADMIN_POLICY_ARN,
  NODE_USERNAME,
  type NodeRequirement,
  requiredEntryType,
  SESSION_NODE_USERNAME,
} from '../access/resolve.ts';
import { type RoleArnIndex, roleArnIndex, unknownPathText } from '../access/role-arn.ts';
import {
  type ParsedAwsAuth,
  parseAwsAuth,
  type RoleMapping,
  repeatsText,
  type UserMapping,
} from '../aws-auth/index.ts';
import type {
  AccessEntry,
  AccessEntryType,
  AccessScope,
  AuthenticationMode,
  ClusterRef,
  ClusterSnapshot,
  IamRole,
} from '../model.ts';
import { clusterRefOf } from '../model.ts';

export interface PlannedAccessPolicy {
  policyArn: string;
  accessScope: AccessScope;
}

/** One access entry to create: the JSON plan's `accessEntries[]` item, exactly. */
export interface PlannedAccessEntry {
  principalArn: string;
  type: AccessEntryType;
  username?: string;
  kubernetesGroups?: string[];
  accessPolicies?: PlannedAccessPolicy[];
}

export interface MigrationBlocker {
  /** The principal ARN (as aws-auth or the entry writes it), the account, or the data key. */
  subject: string;
  /** Why it blocks `API`, and what to do. */
  reason: string;
}

export type MigrationStepAction =
  | 'set-authentication-mode'
  | 'replace-stale-access-entries'
  | 'create-access-entries'
  | 'verify'
  | 'resolve-blockers';

export interface MigrationStep {
  action: MigrationStepAction;
  summary: string;
  /** For `set-authentication-mode`: the target. */
  mode?: AuthenticationMode;
  /** For `replace-stale-access-entries`: the entries to delete first (then created again). */
  principalArns?: string[];
}

export interface MigrationPlan {
  cluster: ClusterRef;
  steps: MigrationStep[];
  accessEntries: PlannedAccessEntry[];
  blockers: MigrationBlocker[];
}

/** Prefixes EKS refuses at the start of a custom username (EKS user guide, creating access entries). */
export const RESERVED_USERNAME_PREFIXES = ['system:', 'eks:', 'aws:', 'amazon:', 'iam:'] as const;

/**
 * Templates an access-entry username may carry: `{{SessionName}}` and `{{SessionNameRaw}}`, after
 * a `:` (EKS user guide, creating access entries). The others the authenticator renders in aws-auth
 * (`{{AccountID}}`, `{{AccessKeyID}}`, `{{EC2PrivateDNSName}}` outside node entries) are not
 * documented for access entries, so the plan does not promise them [inferred].
 */
const ENTRY_USERNAME_TEMPLATES = new Set(['SessionName', 'SessionNameRaw']);
const TEMPLATE = /\{\{([^{}]*)\}\}/g;

const NODE_TYPES: ReadonlySet<AccessEntryType> = new Set([
  'EC2_LINUX',
  'EC2_WINDOWS',
  'FARGATE_LINUX',
  'HYBRID_LINUX',
  'EC2',
]);

const REQUIREMENT_NOUN: Record<NodeRequirement, string> = {
  'ec2-linux': 'Linux EC2 nodes',
  'ec2-windows': 'Windows EC2 nodes',
  fargate: 'Fargate',
  auto: 'EKS Auto Mode nodes',
  hybrid: 'hybrid nodes',
};

/** What an aws-auth mapping says on its own (no compute known): a node entry's type, if it is one. */
function nodeTypeOfMapping(m: { username: string; groups: readonly string[] }): AccessEntryType | undefined {
  const groups = new Set(m.groups);
  if (!groups.has('system:nodes')) return undefined;
  if (m.username === NODE_USERNAME) return groups.has('eks:kube-proxy-windows') ? 'EC2_WINDOWS' : 'EC2_LINUX';
  if (m.username === SESSION_NODE_USERNAME)
    return groups.has('system:node-proxier') ? 'FARGATE_LINUX' : 'HYBRID_LINUX';
  return undefined;
}

/** Why a username cannot go into a `STANDARD` access entry as it is, or undefined. */
export function usernameProblem(username: string): string | undefined {
  const prefix = RESERVED_USERNAME_PREFIXES.find((p) => username.startsWith(p));
  if (prefix !== undefined)
    return `its username ${JSON.stringify(username)} starts with ${prefix}, which EKS refuses in an access entry`;
  for (const m of username.matchAll(TEMPLATE)) {
    const name = m[1] ?? '';
    if (!ENTRY_USERNAME_TEMPLATES.has(name))
      return `its username ${JSON.stringify(username)} uses the template {{${name}}}, which access entries do not support (only {{SessionName}} and {{SessionNameRaw}})`;
    if (!username.slice(0, m.index).includes(':'))
      return `its username ${JSON.stringify(username)} uses {{${name}}} without a ":" before it, which EKS refuses in an access entry`;
  }
  return undefined;
}

interface Candidate {
  key: string;
  /** The ARN as aws-auth (or the compute) names it: the blocker's subject. */
  subject: string;
  kind: 'role' | 'user';
  mapping?: { username: string; groups: string[]; line?: number };
  consumer?: RoleConsumer;
}

interface Ctx {
  snapshot: ClusterSnapshot;
  roles: Map<string, IamRole>;
  /** The real ARN (IAM path included) of each role, as the snapshot knows it. */
  arns: RoleArnIndex;
  entries: Map<string, AccessEntry>;
  blockers: MigrationBlocker[];
  planned: PlannedAccessEntry[];
  stale: AccessEntry[];
  /** Stale entries whose principal aws-auth maps: re-created from the mapping (what works today). */
  staleFromMapping: Set<AccessEntry>;
}

function block(ctx: Ctx, subject: string, reason: string): void {
  ctx.blockers.push({ subject, reason });
}

function where(c: Candidate): string {
  return c.mapping === undefined
    ? 'used by compute but not mapped in aws-auth'
    : `aws-auth${c.mapping.line === undefined ? '' : ` line ${c.mapping.line}`}`;
}

/** The entry a candidate needs, for the role's real ARN; or a blocker (returns undefined). */
function entryFor(ctx: Ctx, c: Candidate): PlannedAccessEntry | undefined {
  const entry = entryShapeFor(ctx, c);
  if (entry === undefined) return undefined;
  const arn = ctx.arns.entryArn(entry.principalArn);
  if (!arn.known) {
    block(
      ctx,
      c.subject,
      `${where(c)}: ${unknownPathText(arn)}. Capture the cluster again (a capture records each role's path) and plan again, or create the entry for that ARN yourself.`,
    );
    return undefined;
  }
  return { ...entry, principalArn: arn.arn };
}

/** The entry a candidate needs, named as the sources name it; or a blocker (returns undefined). */
function entryShapeFor(ctx: Ctx, c: Candidate): PlannedAccessEntry | undefined {
  const role = ctx.roles.get(c.key);
  if (role?.state === 'missing') {
    block(
      ctx,
      c.subject,
      `the IAM role no longer exists (${where(c)}): an access entry cannot be created for it. Remove the mapping, or re-create the role and plan again.`,
    );
    return undefined;
  }
  const principalArn = role?.arn ?? c.consumer?.roleArn ?? c.subject;
  const requirements = [...(c.consumer?.requirements ?? [])];
  const types = [...new Set(requirements.map(requiredEntryType))];
  const mappingType = c.mapping && nodeTypeOfMapping(c.mapping);
  if (types.length > 1) {
    block(
      ctx,
      c.subject,
      `one role serves ${requirements.map((r) => REQUIREMENT_NOUN[r]).join(' and ')}, which need access entries of types ${types.join(' and ')}; an entry has one type that cannot change. Give each kind of compute its own role.`,
    );
    return undefined;
  }
  const type = types[0] ?? mappingType;
  if (type !== undefined && NODE_TYPES.has(type)) {
    const account = accountOf(principalArn);
    if (c.kind !== 'role' || account !== ctx.snapshot.accountId) {
      block(
        ctx,
        c.subject,
        `a ${type} access entry needs an IAM role of the cluster's account ${ctx.snapshot.accountId}; this principal is not one. Use a role of the cluster's account for the nodes.`,
      );
      return undefined;
    }
    return { principalArn, type };
  }
  if (!c.mapping) return undefined;
  if (!isEntryPrincipal(principalArn)) {
    block(
      ctx,
      c.subject,
      `${JSON.stringify(principalArn)} is not an IAM role or user ARN, which an access entry needs. Correct the ARN in aws-auth and plan again.`,
    );
    return undefined;
  }
  const { username, groups } = c.mapping;
  const refused = groups.filter((g) => g.startsWith('system:') && g !== 'system:masters');
  if (refused.length > 0) {
    block(
      ctx,
      c.subject,
      `it is mapped to ${refused.join(', ')}: EKS refuses kubernetesGroups that start with system: ("it cannot start with system:"). Bind what those groups grant to a group without the prefix (or associate an access policy), map that group in aws-auth, and plan again.`,
    );
    return undefined;
  }
  const templated = groups.filter((g) => g.includes('{{'));
  if (templated.length > 0) {
    block(
      ctx,
      c.subject,
      `its groups ${templated.join(', ')} carry a template, which access entries do not render. Use fixed group names and plan again.`,
    );
    return undefined;
  }
  const problem = username === '' ? undefined : usernameProblem(username);
  if (problem !== undefined) {
    block(
      ctx,
      c.subject,
      `${problem}. Change the username in aws-auth (and the RBAC bindings that name it), then plan again.`,
    );
    return undefined;
  }
  const kubernetesGroups = groups.filter((g) => g !== 'system:masters');
  return {
    principalArn,
    type: 'STANDARD',
    ...(username === '' ? {} : { username }),
    ...(kubernetesGroups.length > 0 ? { kubernetesGroups } : {}),
    ...(groups.includes('system:masters')
      ? { accessPolicies: [{ policyArn: CLUSTER_ADMIN_POLICY_ARN, accessScope: { type: 'cluster' } }] }
      : {}),
  };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

/** What the existing entry grants that the planned one would not, or the other way round. */
function meaningDiffers(existing: AccessEntry, planned: PlannedAccessEntry): string | undefined {
  if (existing.type !== planned.type)
    return `an access entry of type ${existing.type} exists, aws-auth makes it ${planned.type}`;
  if (planned.type !== 'STANDARD') return undefined;
  // EKS lists `system:nodes` on node entries; for STANDARD entries groups are what the caller set.
  if (!sameSet(existing.kubernetesGroups, planned.kubernetesGroups ?? []))
    return `its access entry has groups [${existing.kubernetesGroups.join(', ')}], aws-auth maps [${(planned.kubernetesGroups ?? []).join(', ')}]`;
  const admin = (ps: readonly { policyArn: string }[] | undefined) =>
    (ps ?? []).some((p) => p.policyArn === CLUSTER_ADMIN_POLICY_ARN);
  if (admin(existing.accessPolicies) !== admin(planned.accessPolicies))
    return admin(planned.accessPolicies)
      ? 'aws-auth maps it to system:masters, its access entry has no AmazonEKSClusterAdminPolicy'
      : 'its access entry has AmazonEKSClusterAdminPolicy, aws-auth does not map it to system:masters';
  return undefined;
}

function consider(ctx: Ctx, c: Candidate): void {
  const existing = ctx.entries.get(c.key);
  const isStale = existing !== undefined && ctx.stale.includes(existing);
  if (existing && !isStale) {
    // The entry already wins over aws-auth (API_AND_CONFIG_MAP): nothing to create. A usernames-only
    // difference is not a blocker: the switch to API changes nothing for this principal.
    const wanted = entryFor({ ...ctx, blockers: [] }, c);
    const differs = wanted === undefined ? undefined : meaningDiffers(existing, wanted);
    if (differs !== undefined && c.mapping !== undefined) {
      block(
        ctx,
        c.subject,
        `${differs}. The entry already overrides the aws-auth line, so aws-auth's meaning is lost today. Decide which is meant: update the entry (aws eks update-access-entry / associate-access-policy) or delete the aws-auth line.`,
      );
    }
    return;
  }
  // A stale entry matches nothing, so aws-auth is what works today: re-create the entry from it;
  // without a mapping the stale entry is re-created as it was (replaceStale).
  if (isStale && c.mapping === undefined) return;
  const entry = entryFor(ctx, c);
  if (existing && isStale) ctx.staleFromMapping.add(existing);
  if (entry) ctx.planned.push(entry);
}

/** Stale entries (their role was re-created after them) are deleted and created again as they were. */
function replaceStale(ctx: Ctx): void {
  for (const e of ctx.stale) {
    if (ctx.staleFromMapping.has(e)) continue;
    // The entry's own ARN was accepted by EKS; IAM's answer wins if the role came back elsewhere.
    const arn = ctx.arns.entryArn(e.principalArn);
    ctx.planned.push({
      principalArn: arn.known ? arn.arn : e.principalArn,
      type: e.type,
      ...(e.username !== undefined &&
      e.type === 'STANDARD' &&
      e.username !== accessEntryUsername({ ...e, username: '' })
        ? { username: e.username }
        : {}),
      ...(e.type === 'STANDARD' && e.kubernetesGroups.length > 0
        ? { kubernetesGroups: [...e.kubernetesGroups] }
        : {}),
      ...(e.accessPolicies.length > 0
        ? {
            accessPolicies: e.accessPolicies.map((p) => ({
              policyArn: p.policyArn,
              accessScope: structuredClone(p.accessScope),
            })),
          }
        : {}),
    });
  }
}

function staleEntries(entries: Map<string, AccessEntry>, roles: Map<string, IamRole>): AccessEntry[] {
  const out: AccessEntry[] = [];
  for (const [key, entry] of entries) {
    const role = roles.get(key);
    if (role?.state !== 'exists') continue;
    const created = entry.createdAt ? Date.parse(entry.createdAt) : Number.NaN;
    const roleCreated = role.createDate ? Date.parse(role.createDate) : Number.NaN;
    if (Number.isFinite(created) && Number.isFinite(roleCreated) && roleCreated > created) out.push(entry);
  }
  return out;
}

function parseBlockers(ctx: Ctx, parsed: ParsedAwsAuth | undefined): void {
  const s = ctx.snapshot;
  if (s.awsAuth.status === 'error') {
    block(
      ctx,
      'aws-auth',
      `aws-auth could not be read (${s.awsAuth.error}): the plan cannot see its mappings. Restore read access and plan again.`,
    );
  }
  if (!parsed) return;
  for (const key of ['mapRoles', 'mapUsers', 'mapAccounts'] as const) {
    if (parsed.keyStatus[key] !== 'failed') continue;
    const issue = parsed.issues.find((i) => i.dataKey === key && i.kind === 'key-parse-failure');
    block(
      ctx,
      key,
      `${key} does not parse${issue?.line === undefined ? '' : ` (line ${issue.line})`}: the authenticator keeps none of its mappings, so neither does this plan${issue ? ` (${issue.lost})` : ''}. Fix the YAML and plan again before switching to API.`,
    );
  }
  for (const issue of parsed.issues) {
    if (issue.kind !== 'invalid-entry') continue;
    block(
      ctx,
      `${issue.dataKey}[${issue.entryIndex ?? '?'}]`,
      `${issue.message}: the authenticator drops this entry${repeatsText(issue, ' (and ')}, so the plan has nothing to migrate for it. If it was meant to grant access, fix it and plan again.`,
    );
  }
  for (const account of parsed.accounts) {
    block(
      ctx,
      account,
      `mapAccounts lets every principal of account ${account} authenticate (username = its ARN, no groups); access entries have no equivalent. Create an access entry for each principal of that account that needs the cluster, then remove the account from mapAccounts.`,
    );
  }
}

function candidatesOf(ctx: Ctx, parsed: ParsedAwsAuth | undefined): Candidate[] {
  const s = ctx.snapshot;
  const index = buildAccessIndex(s.cluster.authenticationMode, parsed, undefined);
  const consumers = buildConsumers(s).byRole;
  const byKey = new Map<string, Candidate>();
  const add = (c: Candidate) => {
    if (!byKey.has(c.key)) byKey.set(c.key, c);
  };
  const mappingOf = (m: RoleMapping | UserMapping) => ({
    username: m.username,
    groups: [...m.groups],
    ...(m.location.line === undefined ? {} : { line: m.location.line }),
  });
  for (const m of index.roles.values()) {
    const rolearn = m.rolearn ?? '';
    // A rolearn with a path never matches today (the authenticator compares path-less ARNs); the
    // entry for the role itself makes the mapping work as it was meant.
    const key = principalKey(rolearn);
    const consumer = consumers.get(key);
    add({
      key,
      subject: rolearn,
      kind: 'role',
      mapping: mappingOf(m),
      ...(consumer ? { consumer } : {}),
    });
  }
  for (const m of index.ssoRoles) {
    const sso = m.sso;
    if (!sso) continue;
    const label = `sso:${sso.accountID}/${sso.permissionSetName}`;
    const matches = [...ctx.roles.values()].filter((r) => ssoMatches(sso, principalKey(r.arn)));
    if (matches.length === 0) {
      block(
        ctx,
        label,
        `an SSO permission-set mapping matches roles by name, access entries need the role's ARN, and no role of the snapshot matches it. Create the entry for the permission set's role (arn:…:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_${sso.permissionSetName}_…) and plan again.`,
      );
      continue;
    }
    for (const r of matches)
      add({ key: principalKey(r.arn), subject: r.arn, kind: 'role', mapping: mappingOf(m) });
  }
  for (const m of index.usersByKey.values()) {
    add({ key: principalKey(m.userarn), subject: m.userarn, kind: 'user', mapping: mappingOf(m) });
  }
  for (const consumer of consumers.values()) {
    add({ key: consumer.key, subject: consumer.roleArn, kind: 'role', consumer });
  }
  return [...byKey.values()];
}

/** The migration plan of one snapshot. */
export function planMigration(snapshot: ClusterSnapshot): MigrationPlan {
  const mode = snapshot.cluster.authenticationMode;
  const cluster = clusterRefOf(snapshot);
  const parsed = snapshot.awsAuth.status === 'ok' ? parseAwsAuth(snapshot.awsAuth.data.data) : undefined;
  const roles =
    snapshot.iamRoles.status === 'ok'
      ? new Map(snapshot.iamRoles.data.map((r) => [principalKey(r.arn), r] as const))
      : new Map<string, IamRole>();
  const entries = new Map<string, AccessEntry>(
    snapshot.accessEntries.status === 'ok'
      ? snapshot.accessEntries.data.map((e) => [principalKey(e.principalArn), e] as const)
      : [],
  );
  const ctx: Ctx = {
    snapshot,
    roles,
    arns: roleArnIndex(snapshot),
    entries,
    blockers: [],
    planned: [],
    stale: mode === 'CONFIG_MAP' ? [] : staleEntries(entries, roles),
    staleFromMapping: new Set(),
  };
  if (mode === 'API') {
    return {
      cluster,
      steps: [
        {
          action: 'verify',
          summary: 'The cluster already runs in API mode: aws-auth is ignored, nothing to migrate.',
        },
      ],
      accessEntries: [],
      blockers: [],
    };
  }
  parseBlockers(ctx, parsed);
  if (snapshot.accessEntries.status === 'error') {
    block(
      ctx,
      'access entries',
      `access entries could not be read (${snapshot.accessEntries.error}): the plan cannot tell which exist. Restore read access and plan again.`,
    );
  }
  for (const c of candidatesOf(ctx, parsed)) consider(ctx, c);
  replaceStale(ctx);
  ctx.planned.sort((a, b) => compare(a.principalArn, b.principalArn));
  ctx.blockers.sort((a, b) => compare(a.subject, b.subject) || compare(a.reason, b.reason));
  return { cluster, steps: stepsOf(mode, ctx), accessEntries: ctx.planned, blockers: ctx.blockers };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function stepsOf(mode: AuthenticationMode, ctx: Ctx): MigrationStep[] {
  const steps: MigrationStep[] = [];
  if (mode === 'CONFIG_MAP') {
    steps.push({
      action: 'set-authentication-mode',
      mode: 'API_AND_CONFIG_MAP',
      summary:
        'Switch the authentication mode to API_AND_CONFIG_MAP (one-way; aws-auth keeps working) and wait until the cluster is ACTIVE again.',
    });
  }
  if (ctx.stale.length > 0) {
    steps.push({
      action: 'replace-stale-access-entries',
      principalArns: ctx.stale.map((e) => e.principalArn).sort(compare),
      summary: `Delete the ${ctx.stale.length} access entr${ctx.stale.length === 1 ? 'y' : 'ies'} bound to a role that was re-created after them (they match nothing), then create them again below.`,
    });
  }
  const policies = ctx.planned.reduce((n, e) => n + (e.accessPolicies?.length ?? 0), 0);
  steps.push({
    action: 'create-access-entries',
    summary:
      ctx.planned.length === 0
        ? 'No access entry to create.'
        : `Create ${ctx.planned.length} access entr${ctx.planned.length === 1 ? 'y' : 'ies'} and associate ${policies} access polic${policies === 1 ? 'y' : 'ies'}; each takes effect within seconds and wins over aws-auth for its principal.`,
  });
  steps.push({
    action: 'verify',
    summary: `Verify before the one-way switch: eks-auth-sentinel whatif --cluster ${ctx.snapshot.clusterName} --region ${ctx.snapshot.region} --auth-mode API must report nothing critical or high beyond the blockers.`,
  });
  if (ctx.blockers.length > 0) {
    steps.push({
      action: 'resolve-blockers',
      summary: `Resolve the ${ctx.blockers.length} blocker(s) below and plan again: switching to API now would take access from them.`,
    });
  }
  steps.push({
    action: 'set-authentication-mode',
    mode: 'API',
    summary:
      ctx.blockers.length > 0
        ? 'Only once no blocker is left: switch the authentication mode to API (one-way: aws-auth is ignored from then on).'
        : 'Only then switch the authentication mode to API (one-way: aws-auth is ignored from then on).',
  });
  return steps;
}

/** Whether an ARN is an IAM role or user ARN (what CreateAccessEntry takes). */
export function isEntryPrincipal(arn: string): boolean {
  const p = parseArn(arn);
  return !!p && p.service === 'iam' && /^(role|user)\//.test(p.resource);
}
