/**
 * What opt-in prevention may do, decided from data alone: given the state before a change, the
 * change (a predicted DeleteNodegroup, or an observed aws-auth edit) and who depends on which role
 * (core/access consumers), the few writes that keep running compute authenticated.
 *
 * Only two kinds of action exist, and each only ever gives back what was there:
 *   - `create-access-entry`: a DeleteNodegroup in `API_AND_CONFIG_MAP` or `API` will take a node
 *     role out of aws-auth while other compute still uses it and no working access entry holds it:
 *     the node-type entry for that compute (`EC2_LINUX`, `EC2_WINDOWS`, `HYBRID_LINUX`, `EC2` with
 *     AmazonEKSAutoNodePolicy for Auto Mode node classes), created before EKS's edit;
 *   - `restore-aws-auth-entries`: a role's mapRoles entries disappeared (EKS's own edit after a
 *     DeleteNodegroup in `CONFIG_MAP`, or anyone's edit) while compute still depends on the role
 *     and nothing else authorizes it: exactly those entries, as they were, appended.
 * Never: a mode change, a deletion, an entry not seen removed, a role nothing depends on (that is
 * only alerted, as `skipped` with its reason), a role that another entry still maps (an edit of a
 * mapping is someone's newer decision, not a removal).
 */
import { type ConsumerInventory, nodeLabel, type RoleConsumer } from '../access/consumers.ts';
import { awsAuthArnKey, principalKey } from '../access/principal.ts';
import {
  AUTO_NODE_POLICY_ARN,
  checkIdentity,
  type NodeRequirement,
  requiredEntryType,
  resolvePrincipal,
} from '../access/resolve.ts';
import { type ParsedAwsAuth, parseAwsAuth, type RoleMapping } from '../aws-auth/index.ts';
import type { AccessEntryType, AwsAuthConfigMap, ClusterSnapshot, ManagedField } from '../model.ts';
import { analyzeSnapshot, analyzeWithAwsAuth } from '../predict/analysis.ts';
import { isEksManager } from '../rules/fargate-entry-not-in-iac.ts';

export const REMEDIATION_MODES = ['off', 'dry-run', 'on'] as const;
export type RemediationMode = (typeof REMEDIATION_MODES)[number];

/** A mapRoles entry exactly as parsed (without where it stood). */
export type MapRolesEntry = Omit<RoleMapping, 'location'>;

/** Who depends on a role, as the plan saw it (the alert names them). */
export interface Dependants {
  nodegroups: string[];
  nodeClasses: string[];
  fargateProfiles: string[];
  /** Running compute with the role (known nodes). */
  nodes: number;
  /** The first few node names. */
  nodeNames: string[];
}

export type RemediationAction =
  | {
      kind: 'create-access-entry';
      principalArn: string;
      type: AccessEntryType;
      /** Access policies to associate with the new entry (Auto Mode: AmazonEKSAutoNodePolicy). */
      accessPolicies: string[];
      dependants: Dependants;
      why: string;
    }
  | {
      kind: 'restore-aws-auth-entries';
      principalArn: string;
      /** The removed entries of the role, in their order before the removal. */
      entries: MapRolesEntry[];
      dependants: Dependants;
      /** The infrastructure-as-code tool that owned mapRoles before the removal, when one did. */
      iacOwner?: ManagedField;
      why: string;
    };

export type ActionKind = RemediationAction['kind'];

/** A role the plan looked at and left alone (alerted only), with why. */
export interface SkippedRole {
  principalArn: string;
  reason: string;
}

/** After a DeleteNodegroup in `CONFIG_MAP`: roles whose removal by EKS is to be undone once seen. */
export interface AwsAuthGuard {
  principalArn: string;
  /** The node group being deleted: its own nodes are not dependants. */
  excludingNodegroup: string;
}

export interface RemediationPlan {
  actions: RemediationAction[];
  skipped: SkippedRole[];
  guards: AwsAuthGuard[];
}

const EMPTY: RemediationPlan = { actions: [], skipped: [], guards: [] };

/** Node requirements an access entry can serve (a Fargate role is never a node group's). */
const ENTRY_REQUIREMENTS: readonly NodeRequirement[] = ['ec2-linux', 'ec2-windows', 'hybrid', 'auto'];

/** The consumers of `key` that stay when `excludingNodegroup` and its nodes are gone. */
function dependantsOf(
  s: ClusterSnapshot,
  consumers: ConsumerInventory,
  key: string,
  excludingNodegroup?: string,
): { dependants: Dependants; requirements: Set<NodeRequirement> } | undefined {
  const c: RoleConsumer | undefined = consumers.byRole.get(key);
  if (c === undefined) return undefined;
  // A node group being deleted, and its nodes, depend on nothing any more: EKS removes its role.
  const going = new Set(
    s.nodegroups.status === 'ok'
      ? s.nodegroups.data.filter((n) => n.status === 'DELETING').map((n) => n.name)
      : [],
  );
  if (excludingNodegroup !== undefined) going.add(excludingNodegroup);
  const nodes = c.nodes.filter((n) => n.nodegroup === undefined || !going.has(n.nodegroup));
  const nodegroups = c.nodegroups.filter((n) => !going.has(n));
  const dependants: Dependants = {
    nodegroups,
    nodeClasses: [...c.nodeClasses],
    fargateProfiles: [...c.fargateProfiles],
    nodes: nodes.length,
    nodeNames: nodes.slice(0, 5).map(nodeLabel),
  };
  if (nodes.length + nodegroups.length + c.nodeClasses.length + c.fargateProfiles.length === 0)
    return undefined;
  const requirements = new Set<NodeRequirement>();
  for (const n of nodes) requirements.add(requirementOf(n.kind, n.os));
  if (c.fargateProfiles.length > 0) requirements.add('fargate');
  const ngs = s.nodegroups.status === 'ok' ? s.nodegroups.data : [];
  for (const ng of ngs) {
    if (!nodegroups.includes(ng.name) || principalKey(ng.nodeRole) !== key) continue;
    requirements.add(ng.amiType?.toUpperCase().includes('WINDOWS') ? 'ec2-windows' : 'ec2-linux');
  }
  const karpenter = s.karpenterNodeClasses?.status === 'ok' ? s.karpenterNodeClasses.data : [];
  if (karpenter.some((nc) => nc.roleArn !== undefined && principalKey(nc.roleArn) === key))
    requirements.add('ec2-linux');
  const auto = s.autoModeNodeClasses?.status === 'ok' ? s.autoModeNodeClasses.data : [];
  if (auto.some((nc) => nc.roleArn !== undefined && principalKey(nc.roleArn) === key))
    requirements.add('auto');
  return { dependants, requirements };
}

function requirementOf(kind: string, os: string | undefined): NodeRequirement {
  if (kind === 'fargate') return 'fargate';
  if (kind === 'auto') return 'auto';
  if (kind === 'hybrid') return 'hybrid';
  return os === 'windows' ? 'ec2-windows' : 'ec2-linux';
}

function describeDependants(d: Dependants): string {
  const parts: string[] = [];
  if (d.nodes > 0) parts.push(`${d.nodes} running node${d.nodes === 1 ? '' : 's'}`);
  if (d.nodegroups.length > 0)
    parts.push(`node group${d.nodegroups.length === 1 ? '' : 's'} ${d.nodegroups.join(', ')}`);
  if (d.nodeClasses.length > 0)
    parts.push(`node class${d.nodeClasses.length === 1 ? '' : 'es'} ${d.nodeClasses.join(', ')}`);
  if (d.fargateProfiles.length > 0)
    parts.push(`Fargate profile${d.fargateProfiles.length === 1 ? '' : 's'} ${d.fargateProfiles.join(', ')}`);
  return parts.join(', ');
}

/**
 * A DeleteNodegroup seen in CloudTrail, before EKS's aws-auth edit: in the API modes, the access
 * entry that keeps the role's other compute in; in `CONFIG_MAP`, a guard (the re-add must follow
 * EKS's edit, or EKS removes it with the rest).
 */
export function planNodegroupDeletion(
  before: ClusterSnapshot,
  change: { nodegroupName: string; nodeRole?: string },
): RemediationPlan {
  const a = analyzeSnapshot(before);
  const nodegroups = before.nodegroups.status === 'ok' ? before.nodegroups.data : [];
  const roleArn = change.nodeRole ?? nodegroups.find((n) => n.name === change.nodegroupName)?.nodeRole;
  if (roleArn === undefined || roleArn === '')
    return {
      ...EMPTY,
      skipped: [
        {
          principalArn: change.nodegroupName,
          reason: `the node role of node group ${change.nodegroupName} is not known (not in the record nor in the stored node groups)`,
        },
      ],
    };
  const key = principalKey(roleArn);
  const skip = (reason: string): RemediationPlan => ({
    ...EMPTY,
    skipped: [{ principalArn: roleArn, reason }],
  });
  // EKS keeps the role while another managed node group that is not itself being deleted uses it.
  const keeper = nodegroups.find(
    (n) => n.name !== change.nodegroupName && n.status !== 'DELETING' && principalKey(n.nodeRole) === key,
  );
  if (keeper !== undefined)
    return skip(`node group ${keeper.name} still uses the role: EKS keeps it in aws-auth`);
  const found = dependantsOf(before, a.consumers, key, change.nodegroupName);
  if (found === undefined) return skip('nothing else runs with the role: its removal is only alerted');
  const { dependants, requirements } = found;

  if (a.mode === 'CONFIG_MAP') {
    if (before.awsAuth.status !== 'ok') return skip('aws-auth could not be read before the deletion');
    const mapped = a.awsAuth?.roles.some((m) => m.rolearn !== undefined && principalKey(m.rolearn) === key);
    if (!mapped) return skip('aws-auth has no entry for the role: there is nothing EKS could remove');
    return { ...EMPTY, guards: [{ principalArn: roleArn, excludingNodegroup: change.nodegroupName }] };
  }

  const needs = [...requirements].filter((r) => ENTRY_REQUIREMENTS.includes(r));
  const types = [...new Set(needs.map(requiredEntryType))];
  if (types.length !== 1)
    return skip(
      types.length === 0
        ? 'the compute left with the role needs no node access entry'
        : `the compute left with the role needs entries of different types (${types.join(', ')}); one entry cannot serve them`,
    );
  const type = types[0] as AccessEntryType;
  if (before.accessEntries.status !== 'ok') return skip('access entries could not be read');
  const entry = a.index.entries.get(key);
  if (entry !== undefined) {
    if (a.deadEntries.has(key))
      return skip(
        'the access entry is bound to a deleted or re-created role: it must be re-created by a human',
      );
    const check = checkIdentity(resolvePrincipal(a.index, roleArn), needs[0] as NodeRequirement);
    return skip(
      check.works
        ? `an access entry of type ${entry.type} already authorizes the role`
        : `an access entry of type ${entry.type} exists and its type cannot change: ${check.problems.join('; ')}`,
    );
  }
  return {
    ...EMPTY,
    actions: [
      {
        kind: 'create-access-entry',
        principalArn: entryArn(before, roleArn),
        type,
        accessPolicies: type === 'EC2' ? [AUTO_NODE_POLICY_ARN] : [],
        dependants,
        why: `Deleting node group ${change.nodegroupName} makes EKS remove ${roleArn} from aws-auth; ${describeDependants(dependants)} still use it`,
      },
    ],
  };
}

/** The role ARN an access entry must name: the one IAM knows (path included) when the snapshot has it. */
function entryArn(s: ClusterSnapshot, roleArn: string): string {
  if (s.iamRoles.status !== 'ok') return roleArn;
  const key = principalKey(roleArn);
  return s.iamRoles.data.find((r) => principalKey(r.arn) === key && r.state === 'exists')?.arn ?? roleArn;
}

/**
 * Managers whose writes are one-off edits, not a configuration applied again: EKS, an imperative
 * kubectl (`edit`, `patch`, `replace`, `set`, `create`), and this monitor's own restores.
 */
const ONE_OFF_MANAGER = /^(kubectl(-(edit|patch|replace|set|create))?|eks-auth-sentinel)$/i;

/** The declarative tool (Terraform, Helm, Argo CD, Pulumi, kubectl apply…) that last wrote mapRoles, if any. */
function iacOwnerOf(awsAuth: AwsAuthConfigMap): ManagedField | undefined {
  return awsAuth.managedFields
    .filter(
      (f) => f.dataKeys.includes('mapRoles') && !isEksManager(f.manager) && !ONE_OFF_MANAGER.test(f.manager),
    )
    .sort((x, y) => (y.time ?? '').localeCompare(x.time ?? ''))[0];
}

export interface RemovalOptions {
  /** A node group being deleted: its own nodes do not count as dependants. */
  excludingNodegroup?: string;
  /** Only these roles (a guard's): others are left to the scheduled path. */
  onlyRoles?: readonly string[];
}

/**
 * An aws-auth edit observed (`after`, as read now) against the state before it: the roles whose
 * every mapRoles entry is gone while compute depends on them and nothing else authorizes them get
 * their entries back, exactly as they were.
 */
export function planAwsAuthRemoval(
  before: ClusterSnapshot,
  after: AwsAuthConfigMap | undefined,
  options: RemovalOptions = {},
): RemediationPlan {
  if (before.awsAuth.status !== 'ok') return EMPTY;
  if (before.cluster.authenticationMode === 'API') return EMPTY;
  const a = analyzeSnapshot(before);
  const beforeRoles = (a.awsAuth?.roles ?? []).filter((m) => m.rolearn !== undefined && m.rolearn !== '');
  const only = options.onlyRoles?.map(principalKey);
  const removedKeys: string[] = [];
  const parsedAfter: ParsedAwsAuth | undefined = after === undefined ? undefined : parseAwsAuth(after.data);
  const afterKeys = new Set(
    (parsedAfter?.roles ?? []).flatMap((m) => (m.rolearn ? [awsAuthArnKey(m.rolearn)] : [])),
  );
  for (const m of beforeRoles) {
    const k = awsAuthArnKey(m.rolearn as string);
    if (afterKeys.has(k) || removedKeys.includes(k)) continue;
    if (only !== undefined && !only.includes(principalKey(m.rolearn as string))) continue;
    removedKeys.push(k);
  }
  if (removedKeys.length === 0) return EMPTY;

  const plan: RemediationPlan = { actions: [], skipped: [], guards: [] };
  const afterAnalysis =
    parsedAfter === undefined || after === undefined
      ? undefined
      : analyzeWithAwsAuth({ ...before, awsAuth: { status: 'ok', data: after } }, parsedAfter);
  const owner = iacOwnerOf(before.awsAuth.data);
  for (const k of removedKeys) {
    const entries = beforeRoles.filter((m) => awsAuthArnKey(m.rolearn as string) === k);
    const roleArn = entries[0]?.rolearn as string;
    if (after === undefined) {
      plan.skipped.push({
        principalArn: roleArn,
        reason: 'aws-auth itself is gone: re-creating it is left to a human',
      });
      continue;
    }
    const found = dependantsOf(before, a.consumers, principalKey(roleArn), options.excludingNodegroup);
    if (found === undefined) {
      plan.skipped.push({
        principalArn: roleArn,
        reason: 'nothing running depends on the role: its removal is only alerted',
      });
      continue;
    }
    const still =
      afterAnalysis !== undefined &&
      [...found.requirements].every(
        (r) => checkIdentity(resolvePrincipal(afterAnalysis.index, roleArn), r).works,
      );
    if (still) {
      plan.skipped.push({
        principalArn: roleArn,
        reason: 'the role is still authorized without these entries (an access entry)',
      });
      continue;
    }
    plan.actions.push({
      kind: 'restore-aws-auth-entries',
      principalArn: roleArn,
      entries: entries.map(({ location: _location, ...rest }) => rest),
      dependants: found.dependants,
      ...(owner === undefined ? {} : { iacOwner: owner }),
      why: `${roleArn} was removed from aws-auth; ${describeDependants(found.dependants)} depend on it`,
    });
  }
  return plan;
}

/**
 * The state before a DeleteNodegroup as far as aws-auth goes: the fresh read, unless EKS's own
 * edit came before it (the record was late) — then the fresh aws-auth no longer maps the node
 * role while the stored one did, and the stored aws-auth is what the removal is measured against.
 * Only that role's entries are ever restored from it (`planAwsAuthRemoval` with `onlyRoles`).
 */
export function beforeNodegroupDeletion(
  fresh: ClusterSnapshot,
  stored: ClusterSnapshot | undefined,
  change: { nodegroupName: string; nodeRole?: string },
): ClusterSnapshot {
  if (stored === undefined || stored.awsAuth.status !== 'ok') return fresh;
  const nodegroups = stored.nodegroups.status === 'ok' ? stored.nodegroups.data : [];
  const roleArn = change.nodeRole ?? nodegroups.find((n) => n.name === change.nodegroupName)?.nodeRole;
  if (roleArn === undefined || roleArn === '') return fresh;
  const key = principalKey(roleArn);
  const maps = (s: ClusterSnapshot) =>
    s.awsAuth.status === 'ok' &&
    parseAwsAuth(s.awsAuth.data.data).roles.some(
      (m) => m.rolearn !== undefined && principalKey(m.rolearn) === key,
    );
  if (fresh.awsAuth.status === 'error' || maps(fresh) || !maps(stored)) return fresh;
  return { ...fresh, awsAuth: stored.awsAuth };
}
