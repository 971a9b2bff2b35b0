/**
 * From the resource changes of a plan to the steps the simulation applies: the `Change` kinds of
 * change.ts where one exists (node groups, Fargate profiles, access entries, policy associations,
 * the authentication mode), an aws-auth write for the ConfigMap resources of the Kubernetes
 * provider, and an IAM role replacement. A replace (`["delete","create"]`, or `["create","delete"]`
 * with create_before_destroy) becomes its two halves, in that order, next to each other.
 *
 * Steps are sorted into the order EKS and Kubernetes apply them, whatever `resource_changes` order:
 *   0. the cluster's authentication mode (everything else depends on the cluster),
 *   1. IAM role replacements and deletions (node groups and entries depend on their roles),
 *   2. EKS creates and replaces (EKS adds its aws-auth entries and access entries here),
 *   3. the aws-auth ConfigMap (it overwrites what EKS added just before),
 *   4. policy association deletions (Terraform destroys a dependent first), 5. other EKS deletions;
 * within a phase by address. Values unknown at plan time are listed, never guessed. Workload
 * identity (Pod Identity, IRSA, node-role permissions): translate-workload-identity.ts.
 */

import { parseArn } from '../access/principal.ts';
import {
  ACCESS_ENTRY_TYPES,
  type AccessEntryType,
  AUTHENTICATION_MODES,
  type AuthenticationMode,
} from '../model.ts';
import type { Change } from '../predict/change.ts';
import type { Ctx, PlanStep, StepAction, StepCluster, TranslatedPlan } from './plan-steps.ts';
import type { ResourceChange } from './schema.ts';
import { workloadIdentityTranslators } from './translate-workload-identity.ts';
import { afterValue, beforeValue, knownString, stringOf, stringsOf } from './values.ts';

const PHASE = { mode: 0, role: 1, create: 2, awsAuth: 3, detach: 4, delete: 5 } as const;
const EKS_PHASES = { create: PHASE.create, delete: PHASE.delete };
const ASSOCIATION_PHASES = { create: PHASE.create, delete: PHASE.detach }; // destroyed before its entry

const CONFIG_MAP_DATA_TYPE = 'kubernetes_config_map_v1_data';

function isReplace(actions: readonly string[]): 'delete-first' | 'create-first' | undefined {
  if (actions.length !== 2) return undefined;
  if (actions[0] === 'delete' && actions[1] === 'create') return 'delete-first';
  if (actions[0] === 'create' && actions[1] === 'delete') return 'create-first';
  return undefined;
}

function after(rc: ResourceChange, ...path: (string | number)[]) {
  return afterValue(rc.after, rc.afterUnknown, path);
}

function before(rc: ResourceChange, ...path: (string | number)[]): string | undefined {
  return stringOf(beforeValue(rc.before, path));
}

function clusterOf(name: string | 'unknown' | undefined): StepCluster | undefined {
  return name === undefined || name === 'unknown' ? undefined : { kind: 'named', name };
}

function unknown(ctx: Ctx, cluster: StepCluster, what: string): void {
  ctx.out.unknowns.push({ ...ctx.base, cluster, what });
}

/** Adds the delete and/or create steps of one resource change, in the change's own order. */
function addHalves(
  ctx: Ctx,
  phases: { create: number; delete: number },
  del: (() => PlanStep | undefined) | undefined,
  create: (() => PlanStep | undefined) | undefined,
): void {
  const { actions } = ctx.rc;
  const replace = isReplace(actions);
  const halves: Array<['delete' | 'create', () => PlanStep | undefined]> = [];
  for (const a of actions) {
    if (a === 'delete' && del) halves.push(['delete', del]);
    if (a === 'create' && create) halves.push(['create', create]);
  }
  for (const [half, make] of halves) {
    const step = make();
    if (step === undefined) continue;
    ctx.out.steps.push(
      replace === undefined
        ? { ...step, phase: half === 'delete' ? phases.delete : phases.create }
        : { ...step, phase: phases.create, half, replaceOrder: replace },
    );
  }
}

function step(ctx: Ctx, cluster: StepCluster, action: StepAction): PlanStep {
  // Written out, not `{ ...ctx.base, … }`: the same fields in the same order, without the spread's
  // slow path (about a tenth of translating 2,000 access-entry changes).
  const { address, moduleAddress } = ctx.base;
  return moduleAddress === undefined
    ? { address, cluster, phase: 0, action }
    : { address, moduleAddress, cluster, phase: 0, action };
}

/** The cluster of an EKS sub-resource: from `before` for a delete, from `after` for a create. */
function eksCluster(ctx: Ctx, side: 'before' | 'after'): StepCluster | undefined {
  const name =
    side === 'before' ? before(ctx.rc, 'cluster_name') : knownString(after(ctx.rc, 'cluster_name'));
  return clusterOf(name);
}

/** `what` values of `after`, or the unknowns among them reported (then undefined). */
function knownAfter(
  ctx: Ctx,
  cluster: StepCluster,
  fields: Record<string, string>,
): Record<string, string | undefined> | undefined {
  const values: Record<string, string | undefined> = {};
  const missing: string[] = [];
  for (const [field, label] of Object.entries(fields)) {
    const v = knownString(after(ctx.rc, field));
    if (v === 'unknown') missing.push(`${field} (${label})`);
    else values[field] = v;
  }
  if (missing.length > 0) {
    unknown(ctx, cluster, `${missing.join(', ')} known only after apply: the create is not simulated`);
    return undefined;
  }
  return values;
}

function createCluster(ctx: Ctx): StepCluster | undefined {
  const cluster = eksCluster(ctx, 'after');
  if (cluster === undefined) {
    ctx.out.notes.push({
      address: ctx.rc.address,
      text: 'cluster_name known only after apply (a cluster this plan creates?): not checked',
    });
  }
  return cluster;
}

/** The delete half of an EKS sub-resource: its cluster, name and role, all from `before`. */
function deleteHalf(
  ctx: Ctx,
  nameField: string,
  roleField: string,
  change: (name: string, role: string | undefined) => Change,
): () => PlanStep | undefined {
  return () => {
    const cluster = eksCluster(ctx, 'before');
    const name = before(ctx.rc, nameField);
    if (cluster === undefined || name === undefined) return undefined;
    return step(ctx, cluster, { kind: 'change', change: change(name, before(ctx.rc, roleField)) });
  };
}

function nodeGroup(ctx: Ctx): void {
  addHalves(
    ctx,
    EKS_PHASES,
    deleteHalf(ctx, 'node_group_name', 'node_role_arn', (nodegroupName, nodeRole) => ({
      kind: 'delete-nodegroup',
      nodegroupName,
      ...(nodeRole ? { nodeRole } : {}),
    })),
    () => {
      const cluster = createCluster(ctx);
      if (cluster === undefined) return undefined;
      const v = knownAfter(ctx, cluster, { node_group_name: 'name', node_role_arn: 'node role' });
      if (!v?.node_group_name || !v.node_role_arn) return undefined;
      const ami = after(ctx.rc, 'ami_type');
      const amiType = ami.known ? stringOf(ami.value) : undefined;
      return step(ctx, cluster, {
        kind: 'change',
        change: {
          kind: 'create-nodegroup',
          nodegroupName: v.node_group_name,
          nodeRole: v.node_role_arn,
          ...(amiType ? { amiType } : {}),
        },
      });
    },
  );
}

function fargateProfile(ctx: Ctx): void {
  addHalves(
    ctx,
    EKS_PHASES,
    deleteHalf(ctx, 'fargate_profile_name', 'pod_execution_role_arn', (fargateProfileName, role) => ({
      kind: 'delete-fargate-profile',
      fargateProfileName,
      ...(role ? { podExecutionRoleArn: role } : {}),
    })),
    () => {
      const cluster = createCluster(ctx);
      if (cluster === undefined) return undefined;
      const v = knownAfter(ctx, cluster, {
        fargate_profile_name: 'name',
        pod_execution_role_arn: 'pod execution role',
      });
      if (!v?.fargate_profile_name || !v.pod_execution_role_arn) return undefined;
      return step(ctx, cluster, {
        kind: 'change',
        change: {
          kind: 'create-fargate-profile',
          fargateProfileName: v.fargate_profile_name,
          podExecutionRoleArn: v.pod_execution_role_arn,
        },
      });
    },
  );
}

function accessEntryType(value: string | undefined): AccessEntryType {
  const t = (value ?? 'STANDARD').toUpperCase();
  return (ACCESS_ENTRY_TYPES as readonly string[]).includes(t) ? (t as AccessEntryType) : 'STANDARD';
}

function accessEntry(ctx: Ctx): void {
  const { rc } = ctx;
  if (rc.actions.length === 1 && rc.actions[0] === 'update') {
    const cluster = eksCluster(ctx, 'before');
    const principalArn = before(rc, 'principal_arn');
    if (cluster === undefined || principalArn === undefined) return;
    const groups = after(rc, 'kubernetes_groups');
    const user = after(rc, 'user_name');
    if (!groups.known || !user.known) {
      unknown(
        ctx,
        cluster,
        'kubernetes_groups or user_name known only after apply: the update is not simulated',
      );
      return;
    }
    const username = stringOf(user.value);
    ctx.out.steps.push({
      ...step(ctx, cluster, {
        kind: 'change',
        change: {
          kind: 'update-access-entry',
          principalArn,
          kubernetesGroups: stringsOf(groups.value),
          ...(username ? { username } : {}),
        },
      }),
      phase: PHASE.create,
    });
    return;
  }
  addHalves(
    ctx,
    EKS_PHASES,
    () => {
      const cluster = eksCluster(ctx, 'before');
      const principalArn = before(rc, 'principal_arn');
      if (cluster === undefined || principalArn === undefined) return undefined;
      return step(ctx, cluster, { kind: 'change', change: { kind: 'delete-access-entry', principalArn } });
    },
    () => {
      const cluster = createCluster(ctx);
      if (cluster === undefined) return undefined;
      const v = knownAfter(ctx, cluster, { principal_arn: 'principal', type: 'entry type' });
      if (!v?.principal_arn) return undefined;
      const type = accessEntryType(v.type);
      const groups = after(rc, 'kubernetes_groups');
      const user = after(rc, 'user_name');
      // EKS sets both itself unless given; only a STANDARD entry's can be given at all.
      if (type === 'STANDARD' && (!groups.known || !user.known)) {
        unknown(
          ctx,
          cluster,
          "kubernetes_groups or user_name known only after apply: simulated with EKS's defaults for a STANDARD entry",
        );
      }
      const username = user.known ? stringOf(user.value) : undefined;
      return step(ctx, cluster, {
        kind: 'change',
        change: {
          kind: 'create-access-entry',
          entry: {
            principalArn: v.principal_arn,
            type,
            ...(username ? { username } : {}),
            kubernetesGroups: groups.known ? stringsOf(groups.value) : [],
            accessPolicies: [],
          },
        },
      });
    },
  );
}

function policyAssociation(ctx: Ctx): void {
  const { rc } = ctx;
  addHalves(
    ctx,
    ASSOCIATION_PHASES,
    () => {
      const cluster = eksCluster(ctx, 'before');
      const principalArn = before(rc, 'principal_arn');
      const policyArn = before(rc, 'policy_arn');
      if (cluster === undefined || principalArn === undefined || policyArn === undefined) return undefined;
      return step(ctx, cluster, {
        kind: 'change',
        change: { kind: 'disassociate-access-policy', principalArn, policyArn },
      });
    },
    () => {
      const cluster = createCluster(ctx);
      if (cluster === undefined) return undefined;
      const v = knownAfter(ctx, cluster, { principal_arn: 'principal', policy_arn: 'policy' });
      if (!v?.principal_arn || !v.policy_arn) return undefined;
      const scope = after(rc, 'access_scope', 0);
      if (!scope.known) {
        unknown(ctx, cluster, 'access_scope known only after apply: the association is not simulated');
        return undefined;
      }
      const scopeType = beforeValue(scope.value, ['type']) === 'namespace' ? 'namespace' : 'cluster';
      const namespaces = stringsOf(beforeValue(scope.value, ['namespaces']));
      return step(ctx, cluster, {
        kind: 'change',
        change: {
          kind: 'associate-access-policy',
          principalArn: v.principal_arn,
          policy: {
            policyArn: v.policy_arn,
            accessScope: {
              type: scopeType,
              ...(scopeType === 'namespace' && namespaces.length > 0 ? { namespaces } : {}),
            },
          },
        },
      });
    },
  );
}

function clusterResource(ctx: Ctx): void {
  const { rc } = ctx;
  const name = before(rc, 'name') ?? knownString(after(rc, 'name'));
  const cluster = clusterOf(name);
  if (rc.actions.includes('delete')) {
    ctx.out.notes.push({
      address: rc.address,
      text: `the cluster is ${rc.actions.includes('create') ? 'replaced' : 'deleted'}: every principal, node and Fargate pod loses it`,
      ...(cluster?.kind === 'named' ? { cluster: cluster.name } : {}),
    });
    return;
  }
  if (cluster === undefined || !(rc.actions.length === 1 && rc.actions[0] === 'update')) return;
  const from = beforeValue(rc.before, ['access_config', 0, 'authentication_mode']);
  const to = after(rc, 'access_config', 0, 'authentication_mode');
  if (!to.known) {
    unknown(
      ctx,
      cluster,
      'access_config.authentication_mode known only after apply: the mode change is not simulated',
    );
    return;
  }
  if (to.value === from || typeof to.value !== 'string') return;
  if (!(AUTHENTICATION_MODES as readonly string[]).includes(to.value)) return;
  ctx.out.steps.push({
    ...step(ctx, cluster, {
      kind: 'change',
      change: { kind: 'set-auth-mode', mode: to.value as AuthenticationMode },
    }),
    phase: PHASE.mode,
  });
}

/** The ARN of the role the create half makes: `after.arn`, else built from the same account, path and name. */
function newRoleArn(rc: ResourceChange, oldArn: string): string | undefined {
  const arn = knownString(after(rc, 'arn'));
  if (arn !== undefined && arn !== 'unknown') return arn;
  const name = knownString(after(rc, 'name'));
  const path = after(rc, 'path');
  const p = parseArn(oldArn);
  if (name === undefined || name === 'unknown' || !path.known || p === undefined) return undefined;
  const prefix = typeof path.value === 'string' && path.value.length > 0 ? path.value : '/';
  return `arn:${p.partition}:iam::${p.account}:role${prefix}${name}`;
}

function iamRole(ctx: Ctx): void {
  const { rc } = ctx;
  if (!rc.actions.includes('delete')) return;
  const oldArn = before(rc, 'arn');
  if (oldArn === undefined) return;
  const replaced = rc.actions.includes('create');
  const newArn = replaced ? newRoleArn(rc, oldArn) : undefined;
  if (replaced && newArn === undefined) {
    unknown(
      ctx,
      { kind: 'every' },
      'the new role name known only after apply: the old role is simulated as deleted',
    );
  }
  ctx.out.steps.push({
    ...step(ctx, { kind: 'every' }, { kind: 'role-replaced', oldArn, newArn, deleted: !replaced }),
    phase: PHASE.role,
  });
}

function metadataOf(
  rc: ResourceChange,
  side: 'before' | 'after',
): { name?: string; namespace?: string } | 'unknown' {
  if (side === 'before') {
    const name = before(rc, 'metadata', 0, 'name');
    return { ...(name ? { name } : {}), namespace: before(rc, 'metadata', 0, 'namespace') ?? 'default' };
  }
  const name = knownString(after(rc, 'metadata', 0, 'name'));
  const namespace = knownString(after(rc, 'metadata', 0, 'namespace'));
  if (name === 'unknown' || namespace === 'unknown') return 'unknown';
  return { ...(name ? { name } : {}), namespace: namespace ?? 'default' };
}

function isAwsAuth(m: { name?: string; namespace?: string } | 'unknown'): boolean {
  return m !== 'unknown' && m.name === 'aws-auth' && m.namespace === 'kube-system';
}

/** The known string values of `after.data`; keys whose value is unknown are listed apart. */
function afterData(rc: ResourceChange): { data: Record<string, string>; unknownKeys: string[] } | 'unknown' {
  const all = after(rc, 'data');
  if (!all.known) return 'unknown';
  const data: Record<string, string> = {};
  const unknownKeys: string[] = [];
  const raw = all.value;
  const keys = new Set<string>(
    typeof raw === 'object' && raw !== null ? Object.keys(raw as Record<string, unknown>) : [],
  );
  const marks = beforeValue(rc.afterUnknown, ['data']);
  if (typeof marks === 'object' && marks !== null) for (const k of Object.keys(marks)) keys.add(k);
  for (const key of [...keys].sort()) {
    const v = after(rc, 'data', key);
    if (!v.known) unknownKeys.push(key);
    else if (typeof v.value === 'string') data[key] = v.value;
  }
  return { data, unknownKeys };
}

function configMap(ctx: Ctx, scope: 'whole' | 'keys'): void {
  const { rc } = ctx;
  const was = isAwsAuth(metadataOf(rc, 'before'));
  const target = metadataOf(rc, 'after');
  const will = isAwsAuth(target);
  const cluster: StepCluster = { kind: 'unnamed' };
  if (!was && !will) {
    if (target === 'unknown' && rc.actions.includes('create')) {
      unknown(
        ctx,
        cluster,
        'the ConfigMap name or namespace known only after apply: cannot tell whether it is aws-auth',
      );
    }
    return;
  }
  const manager = stringOf(beforeValue(rc.after, ['field_manager'])) ?? 'Terraform';
  const force = beforeValue(rc.after, ['force']) === true;
  const oldData = beforeValue(rc.before, ['data']);
  const beforeKeys = typeof oldData === 'object' && oldData !== null ? Object.keys(oldData) : [];
  const awsAuth = (data: Record<string, string> | null, removedKeys: string[], keys: boolean): PlanStep =>
    step(ctx, cluster, {
      kind: 'aws-auth',
      scope: keys ? 'keys' : 'whole',
      data,
      removedKeys,
      manager,
      force,
    });
  /** The write of the new data; keys whose value is unknown stay as they are. */
  const write = (): PlanStep | undefined => {
    if (!will) return undefined;
    const read = afterData(rc);
    if (read === 'unknown') {
      unknown(ctx, cluster, 'data known only after apply: the new aws-auth is not simulated');
      return undefined;
    }
    if (read.unknownKeys.length > 0) {
      unknown(
        ctx,
        cluster,
        `data.${read.unknownKeys.join(', data.')} known only after apply: left as it is now in the simulation`,
      );
    }
    const partial = scope === 'keys' || read.unknownKeys.length > 0;
    const dropped = beforeKeys.filter((k) => !(k in read.data) && !read.unknownKeys.includes(k));
    return awsAuth(read.data, partial ? dropped : [], partial);
  };
  if (rc.actions.length === 1 && rc.actions[0] === 'update') {
    const s = write();
    if (s !== undefined) ctx.out.steps.push({ ...s, phase: PHASE.awsAuth });
    return;
  }
  addHalves(
    ctx,
    { create: PHASE.awsAuth, delete: PHASE.awsAuth },
    () => (was ? (scope === 'whole' ? awsAuth(null, [], false) : awsAuth({}, beforeKeys, true)) : undefined),
    write,
  );
}

const WI = workloadIdentityTranslators({ phase: PHASE, addHalves, step, eksCluster, createCluster, unknown });

const TRANSLATORS: Record<string, (ctx: Ctx) => void> = {
  ...WI.byType,
  aws_eks_node_group: nodeGroup,
  aws_eks_fargate_profile: fargateProfile,
  aws_eks_access_entry: accessEntry,
  aws_eks_access_policy_association: policyAssociation,
  aws_eks_cluster: clusterResource,
  aws_iam_role: (ctx) => {
    iamRole(ctx);
    WI.roleTrust(ctx);
  },
  kubernetes_config_map: (ctx) => configMap(ctx, 'whole'),
  kubernetes_config_map_v1: (ctx) => configMap(ctx, 'whole'),
  [CONFIG_MAP_DATA_TYPE]: (ctx) => configMap(ctx, 'keys'),
};

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The auth-relevant steps of a plan, sorted into apply order (see the header). The result does
 * not depend on the order of `resource_changes`.
 */
export function translatePlan(changes: readonly ResourceChange[]): TranslatedPlan {
  const out: TranslatedPlan = { steps: [], unknowns: [], notes: [] };
  const sorted = [...changes].sort(
    (a, b) => compareText(a.address, b.address) || compareText(a.deposed ?? '', b.deposed ?? ''),
  );
  for (const rc of sorted) {
    if (rc.mode !== 'managed') continue;
    const translate = Object.hasOwn(TRANSLATORS, rc.type) ? TRANSLATORS[rc.type] : undefined;
    if (translate === undefined) continue;
    if (rc.actions.every((a) => a === 'no-op' || a === 'read' || a === 'forget')) continue;
    const base = {
      address: rc.address,
      ...(rc.moduleAddress === undefined ? {} : { moduleAddress: rc.moduleAddress }),
    };
    translate({ rc, changes, out, base });
  }
  // Stable: steps of one phase keep the address order they were added in.
  out.steps = out.steps
    .map((s, i) => ({ s, i }))
    .sort((x, y) => x.s.phase - y.s.phase || x.i - y.i)
    .map(({ s }) => s);
  return out;
}
