/**
 * The workload-identity resources of a plan (Pod Identity and IRSA) as steps: the `Change` kinds
 * of change.ts that CloudTrail records of the same API calls become (simulate-workload-identity.ts
 * applies them), plus the creations those kinds do not cover (the Pod Identity agent add-on, an
 * IAM OIDC provider) so that a replace is whole again after its create.
 *
 * - `aws_eks_pod_identity_association`: create, update in place (`role_arn`, `target_role_arn`,
 *   `disable_session_tags`), delete, replace (`cluster_name`, `namespace`, `service_account` force
 *   a new one; deleting first leaves the service account without an association in between);
 * - `aws_iam_role`: `assume_role_policy` updated in place or given to the re-created role, and a
 *   delete (every path that uses the role); the replace itself stays with translate.ts;
 * - `aws_iam_role_policy_attachment` / `aws_iam_role_policy` delete of what grants node roles
 *   `eks-auth:AssumeRoleForPodIdentity`;
 * - `aws_iam_openid_connect_provider` delete or replace;
 * - `aws_eks_addon` delete, update or replace of `eks-pod-identity-agent`.
 *
 * IAM resources name no cluster: they go to every cluster of the plan. A policy attachment names
 * its role by name only; the role's account is the cluster's (node roles live in the cluster's
 * account) and is bound per cluster by `bindClusterAccount`. The snapshot holds IAM's decision for
 * a node role, not which policy made it: a finding that rests on "the detached policy was the one
 * that allowed it" says it cannot tell (`qualifyPlanFindings`). Pure; values unknown at plan time
 * are reported as unknown, never guessed.
 */

import type { ClusterSnapshot, Finding, PodIdentityAssociation } from '../model.ts';
import type { Change, RoleRef } from '../predict/change.ts';
import { POD_IDENTITY_AGENT_ADDON, roleRefOfArn } from '../predict/change.ts';
import type { SimulationEffect } from '../predict/simulate.ts';
import { globMatch } from '../workload-identity/iam-policy/glob.ts';
import { MAX_POLICY_CHARS, parsePolicy } from '../workload-identity/iam-policy/policy.ts';
import { ASSUME_ROLE_FOR_POD_IDENTITY } from '../workload-identity/simulate-workload-identity.ts';
import type { CreatedAction, Ctx, PlanStep, StepAction, StepCluster } from './plan-steps.ts';
import { afterValue, beforeValue, knownString, stringOf, type Value } from './values.ts';

/** What translate.ts lends this module (passed in, so that the two do not import each other). */
export interface TranslateHelpers {
  phase: { role: number; create: number; delete: number };
  addHalves(
    ctx: Ctx,
    phases: { create: number; delete: number },
    del: (() => PlanStep | undefined) | undefined,
    create: (() => PlanStep | undefined) | undefined,
  ): void;
  step(ctx: Ctx, cluster: StepCluster, action: StepAction): PlanStep;
  eksCluster(ctx: Ctx, side: 'before' | 'after'): StepCluster | undefined;
  createCluster(ctx: Ctx): StepCluster | undefined;
  unknown(ctx: Ctx, cluster: StepCluster, what: string): void;
}

/** The account of a role a plan names by name only: the account of the cluster simulated. */
export const CLUSTER_ACCOUNT = '(the cluster account)';

/** AWS managed policies that allow `eks-auth:AssumeRoleForPodIdentity`. */
const GRANTING_MANAGED_POLICIES = ['AmazonEKSWorkerNodePolicy', 'AmazonEKSWorkerNodeMinimalPolicy'];

const EVERY: StepCluster = { kind: 'every' };

function after(ctx: Ctx, ...path: (string | number)[]): Value {
  return afterValue(ctx.rc.after, ctx.rc.afterUnknown, path);
}

function before(ctx: Ctx, ...path: (string | number)[]): string | undefined {
  return stringOf(beforeValue(ctx.rc.before, path));
}

const isUpdate = (actions: readonly string[]) => actions.length === 1 && actions[0] === 'update';

function replaceOrder(actions: readonly string[]): 'delete-first' | 'create-first' | undefined {
  if (actions.length !== 2) return undefined;
  if (actions[0] === 'delete' && actions[1] === 'create') return 'delete-first';
  return actions[0] === 'create' && actions[1] === 'delete' ? 'create-first' : undefined;
}

function note(ctx: Ctx, cluster: StepCluster | undefined, text: string): void {
  ctx.out.notes.push({
    address: ctx.rc.address,
    text,
    ...(cluster?.kind === 'named' ? { cluster: cluster.name } : {}),
  });
}

function change(h: TranslateHelpers, ctx: Ctx, cluster: StepCluster, c: Change, phase: number): void {
  ctx.out.steps.push({ ...h.step(ctx, cluster, { kind: 'change', change: c }), phase });
}

// ---------------------------------------------------------------------------------------------
// aws_eks_pod_identity_association

function associationBefore(ctx: Ctx): PodIdentityAssociation | undefined {
  const associationId = before(ctx, 'association_id') ?? before(ctx, 'id');
  const namespace = before(ctx, 'namespace');
  const serviceAccount = before(ctx, 'service_account');
  const roleArn = before(ctx, 'role_arn');
  if (!associationId || !namespace || !serviceAccount || !roleArn) return undefined;
  const targetRoleArn = before(ctx, 'target_role_arn');
  const associationArn = before(ctx, 'association_arn');
  return {
    associationId,
    ...(associationArn ? { associationArn } : {}),
    namespace,
    serviceAccount,
    roleArn,
    ...(targetRoleArn ? { targetRoleArn } : {}),
    disableSessionTags: beforeValue(ctx.rc.before, ['disable_session_tags']) === true,
  };
}

/** The association `after` describes, or the fields known only after apply reported (then undefined). */
function associationAfter(h: TranslateHelpers, ctx: Ctx, cluster: StepCluster) {
  const fields = ['namespace', 'service_account', 'role_arn', 'target_role_arn', 'disable_session_tags'];
  const missing = fields.filter((f) => !after(ctx, f).known);
  if (missing.length > 0) {
    h.unknown(ctx, cluster, `${missing.join(', ')} known only after apply: the association is not simulated`);
    return undefined;
  }
  const namespace = knownString(after(ctx, 'namespace'));
  const serviceAccount = knownString(after(ctx, 'service_account'));
  const roleArn = knownString(after(ctx, 'role_arn'));
  const target = knownString(after(ctx, 'target_role_arn'));
  if (
    namespace === 'unknown' ||
    serviceAccount === 'unknown' ||
    roleArn === 'unknown' ||
    target === 'unknown'
  )
    return undefined;
  if (!namespace || !serviceAccount || !roleArn) return undefined;
  const tags = after(ctx, 'disable_session_tags');
  return {
    namespace,
    serviceAccount,
    roleArn,
    ...(target ? { targetRoleArn: target } : {}),
    disableSessionTags: tags.known && tags.value === true,
  };
}

function updateAssociation(h: TranslateHelpers, ctx: Ctx): void {
  const cluster = h.eksCluster(ctx, 'before');
  const was = associationBefore(ctx);
  if (cluster === undefined || was === undefined) return;
  const set: { roleArn?: string; targetRoleArn?: string; disableSessionTags?: boolean } = {};
  const unknowns: string[] = [];
  for (const [field, key] of [
    ['role_arn', 'roleArn'],
    ['target_role_arn', 'targetRoleArn'],
  ] as const) {
    const v = knownString(after(ctx, field));
    if (v === 'unknown') unknowns.push(field);
    else if ((v ?? '') !== (was[key] ?? '') && (v !== undefined || key === 'targetRoleArn'))
      set[key] = v ?? '';
  }
  const tags = after(ctx, 'disable_session_tags');
  if (!tags.known) unknowns.push('disable_session_tags');
  else if ((tags.value === true) !== was.disableSessionTags) set.disableSessionTags = tags.value === true;
  if (unknowns.length > 0) {
    h.unknown(ctx, cluster, `${unknowns.join(', ')} known only after apply: the update is not simulated`);
    return;
  }
  if (Object.keys(set).length === 0) return;
  change(
    h,
    ctx,
    cluster,
    { kind: 'update-pod-identity-association', associationId: was.associationId, ...set },
    h.phase.create,
  );
}

function podIdentityAssociation(h: TranslateHelpers, ctx: Ctx): void {
  if (isUpdate(ctx.rc.actions)) {
    updateAssociation(h, ctx);
    return;
  }
  const was = associationBefore(ctx);
  h.addHalves(
    ctx,
    h.phase,
    () => {
      const cluster = h.eksCluster(ctx, 'before');
      if (cluster === undefined || was === undefined) return undefined;
      return h.step(ctx, cluster, {
        kind: 'change',
        change: {
          kind: 'delete-pod-identity-association',
          associationId: was.associationId,
          association: was,
        },
      });
    },
    () => {
      const cluster = h.createCluster(ctx);
      if (cluster === undefined) return undefined;
      const a = associationAfter(h, ctx, cluster);
      if (a === undefined) return undefined;
      // The ID exists only after apply; the address says which association it is.
      const association = { associationId: `<known after apply: ${ctx.rc.address}>`, ...a };
      return h.step(ctx, cluster, {
        kind: 'change',
        change: { kind: 'create-pod-identity-association', association },
      });
    },
  );
  const same = (field: string, value: string) => knownString(after(ctx, field)) === value;
  if (
    replaceOrder(ctx.rc.actions) === 'delete-first' &&
    was !== undefined &&
    same('namespace', was.namespace) &&
    same('service_account', was.serviceAccount)
  ) {
    note(
      ctx,
      h.eksCluster(ctx, 'before'),
      `replaced, deleting first: between the delete and the create, pods of ${was.namespace}/${was.serviceAccount} started then get no Pod Identity credentials (the SDK falls back to the next provider of its chain, usually the node role), and running pods whose credential refresh falls in between fail it`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// aws_iam_role: trust policy and deletion

/** The two JSON texts hold the same document (Terraform prints the policy as given). */
function sameDocument(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return a === b;
  }
}

function roleTrust(h: TranslateHelpers, ctx: Ctx): void {
  const { actions } = ctx.rc;
  const oldArn = before(ctx, 'arn');
  const old = oldArn === undefined ? undefined : roleRefOfArn(oldArn);
  if (old === undefined) return;
  if (actions.length === 1 && actions[0] === 'delete') {
    change(h, ctx, EVERY, { kind: 'delete-role', role: old }, h.phase.role);
    return;
  }
  const replaced = replaceOrder(actions) !== undefined;
  if (!replaced && !isUpdate(actions)) return;
  const name = knownString(after(ctx, 'name'));
  const role: RoleRef | undefined = !replaced
    ? old
    : name === undefined || name === 'unknown'
      ? undefined
      : { accountId: old.accountId, roleName: name };
  const policy = after(ctx, 'assume_role_policy');
  if (!policy.known) {
    h.unknown(
      ctx,
      EVERY,
      `assume_role_policy known only after apply: the ${replaced ? 're-created' : 'updated'} role's trust policy is not evaluated`,
    );
    return;
  }
  const text = stringOf(policy.value);
  if (role === undefined || text === undefined) return;
  if (!replaced && sameDocument(before(ctx, 'assume_role_policy'), text)) return;
  change(h, ctx, EVERY, { kind: 'update-role-trust', role, trustPolicy: text }, h.phase.role);
}

// ---------------------------------------------------------------------------------------------
// Node role permissions: aws_iam_role_policy_attachment, aws_iam_role_policy

type Grant = 'yes' | 'no' | 'cannot tell';

/** Does the policy document allow eks-auth:AssumeRoleForPodIdentity (any resource, any condition)? */
function documentGrants(doc: string | undefined): Grant {
  if (doc === undefined || doc.length > MAX_POLICY_CHARS) return 'cannot tell';
  let value: unknown;
  try {
    value = JSON.parse(doc);
  } catch {
    return 'cannot tell';
  }
  // An identity policy names no principal: read it with the trust-policy parser as if for anyone.
  const raw =
    typeof value === 'object' && value !== null ? (value as { Statement?: unknown }).Statement : undefined;
  const statements = (Array.isArray(raw) ? raw : [raw]).map((st) =>
    typeof st === 'object' && st !== null && !('Principal' in st) && !('NotPrincipal' in st)
      ? { ...st, Principal: '*' }
      : st,
  );
  const parsed = parsePolicy({ Statement: statements });
  if (!parsed.ok) return 'cannot tell';
  const matches = (patterns: readonly string[]) =>
    patterns.some((p) => globMatch(p, ASSUME_ROLE_FOR_POD_IDENTITY, true));
  const allows = parsed.statements.some(
    (s) =>
      s.effect === 'Allow' &&
      (s.action !== undefined ? matches(s.action) : s.notAction !== undefined && !matches(s.notAction)),
  );
  return allows ? 'yes' : 'no';
}

/** What a managed policy ARN grants: known for AWS's own, from the plan's `aws_iam_policy` otherwise. */
function policyGrants(ctx: Ctx, policyArn: string): Grant {
  const aws = /^arn:aws[a-z-]*:iam::aws:policy\/(?:.*\/)?([^/]+)$/.exec(policyArn);
  if (aws) return GRANTING_MANAGED_POLICIES.includes(aws[1] ?? '') ? 'yes' : 'no';
  const resource = ctx.changes.find(
    (rc) =>
      rc.type === 'aws_iam_policy' &&
      stringOf(beforeValue(rc.before, ['arn'])) === policyArn &&
      rc.mode === 'managed',
  );
  return resource === undefined
    ? 'cannot tell'
    : documentGrants(stringOf(beforeValue(resource.before, ['policy'])));
}

/** The role a node-role policy resource names (by name, sometimes by ARN), in the cluster's account. */
function roleOfName(value: string): RoleRef {
  return roleRefOfArn(value) ?? { accountId: CLUSTER_ACCOUNT, roleName: value };
}

/** The attachment still holds after the change (a replace that keeps role and policy). */
function kept(ctx: Ctx, fields: readonly string[]): boolean {
  if (replaceOrder(ctx.rc.actions) === undefined) return false;
  return fields.every((f) => {
    const v = after(ctx, f);
    return v.known && stringOf(v.value) === before(ctx, f);
  });
}

function policyAttachment(h: TranslateHelpers, ctx: Ctx): void {
  if (!ctx.rc.actions.includes('delete') || kept(ctx, ['role', 'policy_arn'])) return;
  const roleName = before(ctx, 'role');
  const policyArn = before(ctx, 'policy_arn');
  if (roleName === undefined || policyArn === undefined) return;
  const grants = policyGrants(ctx, policyArn);
  if (grants === 'no') return;
  if (grants === 'cannot tell') {
    note(
      ctx,
      undefined,
      `${policyArn} is detached from role ${roleName}: whether it allowed ${ASSUME_ROLE_FOR_POD_IDENTITY} cannot be told from the plan (its document is not in it); if the role is a node role, check it before apply`,
    );
    return;
  }
  change(h, ctx, EVERY, { kind: 'detach-role-policy', role: roleOfName(roleName), policyArn }, h.phase.role);
}

function inlineRolePolicy(h: TranslateHelpers, ctx: Ctx): void {
  if (!ctx.rc.actions.includes('delete') || kept(ctx, ['role', 'name', 'policy'])) return;
  const roleName = before(ctx, 'role');
  const policyName = before(ctx, 'name');
  if (roleName === undefined || policyName === undefined) return;
  if (documentGrants(before(ctx, 'policy')) !== 'yes') return;
  change(h, ctx, EVERY, { kind: 'delete-role-policy', role: roleOfName(roleName), policyName }, h.phase.role);
}

// ---------------------------------------------------------------------------------------------
// aws_iam_openid_connect_provider, aws_eks_addon

function oidcProvider(h: TranslateHelpers, ctx: Ctx): void {
  if (!ctx.rc.actions.includes('delete')) return;
  const providerArn = before(ctx, 'arn');
  const url = before(ctx, 'url');
  if (providerArn === undefined) return;
  const newUrl = knownString(after(ctx, 'url'));
  const host = (u: string) => u.replace(/^https:\/\//, '').replace(/\/+$/, '');
  const sameUrl =
    url !== undefined && newUrl !== undefined && newUrl !== 'unknown' && host(newUrl) === host(url);
  if (replaceOrder(ctx.rc.actions) !== undefined && newUrl === 'unknown')
    h.unknown(ctx, EVERY, 'url known only after apply: the old provider is simulated as deleted');
  h.addHalves(
    ctx,
    { create: h.phase.role, delete: h.phase.role },
    () => h.step(ctx, EVERY, { kind: 'change', change: { kind: 'delete-oidc-provider', providerArn } }),
    sameUrl && url !== undefined
      ? () => h.step(ctx, EVERY, { kind: 'oidc-provider-created', arn: providerArn, url: host(url) })
      : undefined,
  );
}

function agentAddon(h: TranslateHelpers, ctx: Ctx): void {
  const { actions } = ctx.rc;
  const was = before(ctx, 'addon_name');
  const will = knownString(after(ctx, 'addon_name'));
  if (was !== POD_IDENTITY_AGENT_ADDON && will !== POD_IDENTITY_AGENT_ADDON) return;
  if (isUpdate(actions)) {
    const cluster = h.eksCluster(ctx, 'before');
    const from = before(ctx, 'addon_version');
    const to = knownString(after(ctx, 'addon_version'));
    if (cluster === undefined || to === undefined || to === from) return;
    const addonVersion = to === 'unknown' ? undefined : to;
    change(
      h,
      ctx,
      cluster,
      {
        kind: 'update-addon',
        addonName: POD_IDENTITY_AGENT_ADDON,
        ...(addonVersion ? { addonVersion } : {}),
      },
      h.phase.create,
    );
    return;
  }
  h.addHalves(
    ctx,
    h.phase,
    was === POD_IDENTITY_AGENT_ADDON
      ? () => {
          const cluster = h.eksCluster(ctx, 'before');
          if (cluster === undefined) return undefined;
          return h.step(ctx, cluster, { kind: 'change', change: { kind: 'delete-addon', addonName: was } });
        }
      : undefined,
    will === POD_IDENTITY_AGENT_ADDON
      ? () => {
          const cluster = h.createCluster(ctx);
          if (cluster === undefined) return undefined;
          const version = knownString(after(ctx, 'addon_version'));
          return h.step(ctx, cluster, {
            kind: 'addon-created',
            addonName: POD_IDENTITY_AGENT_ADDON,
            ...(version && version !== 'unknown' ? { version } : {}),
          });
        }
      : undefined,
  );
}

/** The translators of this module, by resource type; `aws_iam_role` runs after translate.ts's own. */
export function workloadIdentityTranslators(h: TranslateHelpers) {
  return {
    roleTrust: (ctx: Ctx) => roleTrust(h, ctx),
    byType: {
      aws_eks_pod_identity_association: (ctx: Ctx) => podIdentityAssociation(h, ctx),
      aws_iam_role_policy_attachment: (ctx: Ctx) => policyAttachment(h, ctx),
      aws_iam_role_policy: (ctx: Ctx) => inlineRolePolicy(h, ctx),
      aws_iam_openid_connect_provider: (ctx: Ctx) => oidcProvider(h, ctx),
      aws_eks_addon: (ctx: Ctx) => agentAddon(h, ctx),
    } as Record<string, (ctx: Ctx) => void>,
  };
}

// ---------------------------------------------------------------------------------------------
// Evaluation: creations, account binding, subjects, honest findings

/** Applies a creation no `Change` kind covers. */
export function applyCreated(
  s: ClusterSnapshot,
  action: CreatedAction,
  effects: SimulationEffect[],
): ClusterSnapshot {
  if (action.kind === 'addon-created') {
    if (s.addons?.status === 'error') {
      effects.push({ summary: 'add-ons could not be read: the creation is not simulated', assumed: false });
      return s;
    }
    const list = s.addons?.status === 'ok' ? s.addons.data : [];
    effects.push({
      summary: `EKS installs add-on ${action.addonName}: its DaemonSet runs on every node within minutes`,
      assumed: false,
    });
    return {
      ...s,
      addons: {
        status: 'ok',
        data: [
          ...list.filter((a) => a.name !== action.addonName),
          {
            name: action.addonName,
            status: 'ACTIVE',
            ...(action.version ? { version: action.version } : {}),
            healthIssues: [],
          },
        ],
      },
    };
  }
  if (s.oidcProviders?.status !== 'ok') {
    effects.push({
      summary: 'IAM OIDC providers could not be read: the creation is not simulated',
      assumed: false,
    });
    return s;
  }
  effects.push({ summary: `IAM creates the OIDC provider for ${action.url} again`, assumed: false });
  return {
    ...s,
    oidcProviders: {
      status: 'ok',
      data: [
        ...s.oidcProviders.data.filter((p) => p.arn !== action.arn),
        { arn: action.arn, url: action.url },
      ],
    },
  };
}

/** The steps with the roles a plan names by name only put in the cluster's account. */
export function bindClusterAccount(steps: readonly PlanStep[], accountId: string): PlanStep[] {
  return steps.map((s) => {
    if (s.action.kind !== 'change') return s;
    const c = s.action.change;
    if (!('role' in c) || c.role.accountId !== CLUSTER_ACCOUNT) return s;
    return { ...s, action: { kind: 'change', change: { ...c, role: { ...c.role, accountId } } } };
  });
}

/** The finding subjects a workload-identity change touches (for the step a state finding names). */
export function workloadIdentitySubjects(c: Change): string[] {
  switch (c.kind) {
    case 'create-pod-identity-association':
      return [`${c.association.namespace}/${c.association.serviceAccount}`];
    case 'delete-addon':
    case 'update-addon':
      return [c.addonName];
    case 'delete-role':
    case 'update-role-trust':
    case 'detach-role-policy':
    case 'delete-role-policy':
      return [`arn:aws:iam::${c.role.accountId}:role/${c.role.roleName}`];
    case 'delete-oidc-provider':
      return [c.providerArn];
    default:
      return [];
  }
}

/**
 * The roles an association change starts to use: its step is named by a finding about such a role
 * only when no other step of the plan changed the role itself (a rewritten trust is the cause).
 */
export function roleUsesOf(c: Change): string[] {
  if (c.kind === 'create-pod-identity-association')
    return [c.association.roleArn, c.association.targetRoleArn].filter((x): x is string => !!x);
  if (c.kind === 'update-pod-identity-association')
    return [c.roleArn, c.targetRoleArn].filter((x): x is string => !!x);
  return [];
}

const NODE_ROLE_CANNOT_ASSUME = 'pod-identity/node-role-cannot-assume';

/**
 * A node-role finding that rests on a detached policy having been the one that allowed
 * `eks-auth:AssumeRoleForPodIdentity`: the snapshot cannot tell whether another policy of the
 * role still allows it, so the finding says so instead of asserting it.
 */
export function qualifyPlanFindings(findings: readonly Finding[], steps: readonly PlanStep[]): Finding[] {
  const removed = new Map<string, string>();
  for (const s of steps) {
    if (s.action.kind !== 'change') continue;
    const c = s.action.change;
    if (c.kind === 'detach-role-policy') removed.set(s.address, c.policyArn);
    if (c.kind === 'delete-role-policy') removed.set(s.address, `inline policy ${c.policyName}`);
  }
  return findings.map((f) => {
    const address = f.evidence.planAddress;
    const what = typeof address === 'string' ? removed.get(address) : undefined;
    if (f.ruleId !== NODE_ROLE_CANNOT_ASSUME || what === undefined) return f;
    return {
      ...f,
      title: `Node role ${f.subject} may lose ${ASSUME_ROLE_FOR_POD_IDENTITY} when ${what} goes: cannot tell from the snapshot whether another of its policies still allows it; if none does, pods on its nodes get no Pod Identity credentials`,
      // The rule's own detail quotes IAM's answer; here that answer is simulated, not given.
      detail: `Today IAM allows the role ${ASSUME_ROLE_FOR_POD_IDENTITY}; the plan takes ${what} off it. The snapshot holds IAM's decision (iam:SimulatePrincipalPolicy), not which policy made it, so whether another policy of the role still allows the call cannot be told: this is what happens if ${what} was the only one. Before apply, check which of the role's other policies (aws iam list-attached-role-policies, aws iam list-role-policies) allow it, or keep ${what} attached.`,
      evidence: { ...f.evidence, verdict: 'cannot tell' },
    };
  });
}
