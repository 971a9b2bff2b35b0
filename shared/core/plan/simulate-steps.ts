/**
 * Simulates a sequence of changes to one cluster: each step is applied to the state the previous
 * one left (a `Change` through `simulateChange`, with EKS's side effects; an aws-auth write; an
 * IAM role replacement), then the whole sequence is evaluated once (`whatIfChanges`: every
 * change's rules, the transition and the state rules between the first and the last state).
 * Every finding names the step (its plan address) that causes it: the change whose rule made it,
 * else the last step that touched its subject. For a replace that deletes before it creates, what
 * breaks between the two halves and is whole again afterwards is reported as such.
 */

import { principalKey } from '../access/principal.ts';
import { knownIamRole, type RoleArnIndex, roleArnIndex } from '../access/role-arn.ts';
import type { AccessEntry, ClusterSnapshot, Finding, IamRole } from '../model.ts';
import { severityRank } from '../model.ts';
import {
  type Analysis,
  analyzeSnapshot,
  analyzeWithAwsAuth,
  withEvaluationMemo,
} from '../predict/analysis.ts';
import type { Change } from '../predict/change.ts';
import { assessSnapshot, sortFindings, whatIfChanges } from '../predict/engine.ts';
import { draftMappings, type MapRolesDraft, writeDraft } from '../predict/map-roles-edit.ts';
import { type SimulationEffect, SimulationError, simulateChange } from '../predict/simulate.ts';
import { awsAuthLossEffects, type LineMapper } from './aws-auth-losses.ts';
import type { StepAction } from './plan-steps.ts';
import { applyCreated, roleUsesOf, workloadIdentitySubjects } from './translate-workload-identity.ts';

/** One change to apply; `address` is the plan's resource address, when there is a plan. */
export interface SimulatedStep {
  address?: string;
  half?: 'delete' | 'create';
  replaceOrder?: 'delete-first' | 'create-first';
  action: StepAction;
}

export interface StepsResult {
  findings: Finding[];
  effects: SimulationEffect[];
  after: ClusterSnapshot;
}

/** `evidence.planWindow` of a finding that holds only between the delete and the create of a replace. */
export const BETWEEN_DELETE_AND_CREATE = 'between-delete-and-create';

type AwsAuthWrite = Extract<StepAction, { kind: 'aws-auth' }>;
type RoleReplace = Extract<StepAction, { kind: 'role-replaced' }>;

function writeAwsAuth(s: ClusterSnapshot, w: AwsAuthWrite, effects: SimulationEffect[]): ClusterSnapshot {
  if (s.awsAuth.status === 'error') {
    effects.push({ summary: 'aws-auth could not be read: the write is not simulated', assumed: false });
    return s;
  }
  if (w.data === null) {
    effects.push({
      summary: 'aws-auth is deleted: the authenticator drops every mapping at once',
      assumed: false,
    });
    return { ...s, awsAuth: { status: 'absent', reason: 'deleted by the plan' } };
  }
  const current = s.awsAuth.status === 'ok' ? s.awsAuth.data : { data: {}, managedFields: [] };
  const written = Object.keys(w.data);
  if (w.scope === 'keys' && !w.force) {
    const others = current.managedFields.filter(
      (f) => f.manager !== w.manager && f.dataKeys.some((k) => written.includes(k)),
    );
    if (others.length > 0) {
      effects.push({
        summary: `${w.manager} writes ${written.join(', ')} that ${[...new Set(others.map((o) => o.manager))].join(', ')} also manage(s): without force = true the apply fails with a conflict; simulated as if it succeeds`,
        assumed: true,
      });
    }
  }
  const data: Record<string, string> = w.scope === 'whole' ? {} : { ...current.data };
  for (const k of w.removedKeys) delete data[k];
  Object.assign(data, w.data);
  return {
    ...s,
    awsAuth: {
      status: 'ok',
      data: {
        ...current,
        data,
        // The writer takes ownership of the keys it writes (Kubernetes managedFields).
        managedFields: [
          ...current.managedFields
            .filter((f) => f.manager !== w.manager)
            .map((f) => ({ ...f, dataKeys: f.dataKeys.filter((k) => !written.includes(k)) }))
            .filter((f) => f.dataKeys.length > 0),
          { manager: w.manager, operation: w.scope === 'keys' ? 'Apply' : 'Update', dataKeys: written },
        ],
      },
    },
  };
}

function replaceRole(s: ClusterSnapshot, r: RoleReplace, effects: SimulationEffect[]): ClusterSnapshot {
  const key = principalKey(r.oldArn);
  const bound =
    s.accessEntries.status === 'ok'
      ? s.accessEntries.data.filter((e) => principalKey(e.principalArn) === key)
      : [];
  const what = r.deleted ? 'deleted' : 're-created with a new role ID';
  if (s.iamRoles.status !== 'ok') {
    effects.push({
      summary: `${r.oldArn} is ${what}; IAM roles were not read, so which access entries it leaves stale is unknown`,
      assumed: false,
    });
    return s;
  }
  const sameArn = r.newArn !== undefined && principalKey(r.newArn) === key;
  // The new role exists from the apply on: after every access entry that exists now.
  const replacement: IamRole = sameArn
    ? { arn: r.oldArn, state: 'exists', createDate: s.capturedAt }
    : { arn: r.oldArn, state: 'missing' };
  const roles = s.iamRoles.data.filter((role) => principalKey(role.arn) !== key);
  roles.push(replacement);
  if (r.newArn !== undefined && !sameArn)
    roles.push({ arn: r.newArn, state: 'exists', createDate: s.capturedAt });
  const undated = bound.filter((e) => e.createdAt === undefined).length;
  effects.push({
    summary:
      bound.length === 0
        ? `${r.oldArn} is ${what}: no access entry of this cluster is bound to it (aws-auth maps by ARN and is not affected)`
        : `${r.oldArn} is ${what}: its access entr${bound.length === 1 ? 'y' : 'ies'} (${bound.map((e) => e.type).join(', ')}) stay${bound.length === 1 ? 's' : ''} bound to the old role ID and stop matching; aws-auth maps by ARN and is not affected${undated > 0 ? ` (${undated} without a creation time cannot be checked)` : ''}`,
    assumed: false,
  });
  return { ...s, iamRoles: { status: 'ok', data: roles } };
}

function resourceType(address: string): string | undefined {
  return /(?:^|\.)((?:aws|kubernetes)_[a-z0-9_]+)\.[^.]+$/.exec(address.replace(/\[[^\]]*\]$/, ''))?.[1];
}

function windowAdvice(address: string): string {
  switch (resourceType(address)) {
    case 'aws_eks_access_entry':
      return 'EKS holds one access entry per principal, so create_before_destroy fails too: create an aws-auth mapping (where the mode reads it) or a temporary entry for another principal first, or apply at a quiet time.';
    case 'aws_eks_node_group':
      return 'Set create_before_destroy (with node_group_name_prefix) so the new node group exists before the old one goes, and EKS keeps the role in aws-auth.';
    case 'aws_eks_addon':
    case 'aws_iam_openid_connect_provider':
      return 'EKS holds one add-on per name and IAM one OIDC provider per URL, so create_before_destroy fails too: apply at a quiet time, or move the workloads first.';
    default:
      return 'Set create_before_destroy where the resource allows it, or create the replacement under another name first.';
  }
}

function atAddress(f: Finding, step: SimulatedStep, between: boolean): Finding {
  if (step.address === undefined) return f;
  const evidence: Record<string, unknown> = { ...f.evidence, planAddress: step.address };
  if (!between) return { ...f, evidence };
  evidence.planWindow = BETWEEN_DELETE_AND_CREATE;
  return {
    ...f,
    title: `Between the delete and the create of ${step.address}: ${f.title}`,
    detail: `${f.detail}\nThe replace deletes before it creates; this holds from the delete until the new object exists. ${windowAdvice(step.address)}`,
    evidence,
  };
}

function prefixed(effects: readonly SimulationEffect[], address: string | undefined): SimulationEffect[] {
  return address === undefined
    ? [...effects]
    : effects.map((e) => ({ ...e, summary: `${address}: ${e.summary}` }));
}

/** Which step a state or transition finding belongs to: the last step that touched its subject. */
interface Attribution {
  bySubject: Map<string, number>;
  fallback: number | undefined;
}

function touch(at: Attribution, subjects: readonly string[], index: number): void {
  for (const subject of subjects) at.bySubject.set(principalKey(subject), index);
}

function changeSubjects(change: Change): string[] {
  switch (change.kind) {
    case 'delete-nodegroup':
      return change.nodeRole === undefined ? [change.nodegroupName] : [change.nodeRole, change.nodegroupName];
    case 'create-nodegroup':
      return [change.nodeRole, change.nodegroupName];
    case 'create-fargate-profile':
      return [change.podExecutionRoleArn, change.fargateProfileName];
    case 'delete-fargate-profile':
      return [
        change.fargateProfileName,
        ...(change.podExecutionRoleArn === undefined ? [] : [change.podExecutionRoleArn]),
      ];
    case 'create-access-entry':
      return [change.entry.principalArn];
    case 'set-auth-mode':
    case 'create-certificate-authority':
    case 'activate-certificate-authority':
      return [];
    default:
      // Workload-identity changes name no access-entry principal.
      return 'principalArn' in change ? [change.principalArn] : workloadIdentitySubjects(change);
  }
}

type EntryChange = Extract<
  Change,
  {
    kind:
      | 'create-access-entry'
      | 'update-access-entry'
      | 'delete-access-entry'
      | 'associate-access-policy'
      | 'disassociate-access-policy';
  }
>;

function entryChangeOf(action: StepAction): EntryChange | undefined {
  if (action.kind !== 'change') return undefined;
  switch (action.change.kind) {
    case 'create-access-entry':
    case 'update-access-entry':
    case 'delete-access-entry':
    case 'associate-access-policy':
    case 'disassociate-access-policy':
      return action.change;
    default:
      return undefined;
  }
}

/**
 * Consecutive access-entry changes on one working index instead of a copy of the whole cluster
 * per change (a plan can hold thousands). Each change still goes through `simulateChange`, on a
 * snapshot holding only the entry of its principal and, for a create, what IAM holds of its role
 * (EKS refuses an ARN without the role's path): EKS's entry operations look at those and the
 * mode, so the outcome and the effects are the same.
 */
class EntryBatch {
  private readonly entries: Map<string, AccessEntry>;
  private readonly roleArns: RoleArnIndex;
  /** What every change's snapshot keeps of `base`: the cluster's identity, mode and the like. */
  private readonly identity: Omit<
    ClusterSnapshot,
    | 'karpenterNodeClasses'
    | 'podIdentityAssociations'
    | 'addons'
    | 'oidcProviders'
    | 'serviceAccounts'
    | 'nodeRolePermissions'
  >;

  constructor(
    private readonly base: ClusterSnapshot & { accessEntries: { status: 'ok'; data: AccessEntry[] } },
  ) {
    this.entries = new Map(base.accessEntries.data.map((e) => [principalKey(e.principalArn), e]));
    this.roleArns = roleArnIndex(base);
    const {
      karpenterNodeClasses: _k,
      podIdentityAssociations: _p,
      addons: _a,
      oidcProviders: _o,
      serviceAccounts: _s,
      nodeRolePermissions: _n,
      ...identity
    } = base;
    this.identity = identity;
  }

  apply(change: EntryChange, own: SimulationEffect[]): void {
    const arn = change.kind === 'create-access-entry' ? change.entry.principalArn : change.principalArn;
    const key = principalKey(arn);
    const found = this.entries.get(key);
    const role = change.kind === 'create-access-entry' ? knownIamRole(this.roleArns, arn) : undefined;
    const light: ClusterSnapshot = {
      ...this.identity,
      awsAuth: { status: 'absent' },
      accessEntries: { status: 'ok', data: found === undefined ? [] : [found] },
      nodegroups: { status: 'ok', data: [] },
      fargateProfiles: { status: 'ok', data: [] },
      compute: { status: 'ok', data: [] },
      iamRoles: { status: 'ok', data: role === undefined ? [] : [role] },
    };
    const sim = simulateChange(light, change);
    own.push(...sim.effects);
    if (sim.after.accessEntries.status !== 'ok') return;
    const [now] = sim.after.accessEntries.data;
    if (now === undefined) this.entries.delete(key);
    else this.entries.set(key, now);
  }

  state(): ClusterSnapshot {
    return { ...this.base, accessEntries: { status: 'ok', data: [...this.entries.values()] } };
  }
}

/** Whether the write leaves nothing of the mapRoles text before it (deleted, replaced or removed). */
function replacesMapRoles(w: AwsAuthWrite): boolean {
  return (
    w.data === null ||
    w.scope === 'whole' ||
    Object.hasOwn(w.data, 'mapRoles') ||
    w.removedKeys.includes('mapRoles')
  );
}

/**
 * Applies one step without evaluating anything; its effects go to `own`. A change's mapRoles edits
 * go into `draft` when given (the caller writes it before anything reads aws-auth).
 */
function applyStep(
  state: ClusterSnapshot,
  action: StepAction,
  own: SimulationEffect[],
  draft?: MapRolesDraft,
): ClusterSnapshot {
  switch (action.kind) {
    case 'change':
      try {
        const sim = simulateChange(state, action.change, draft === undefined ? {} : { draft });
        own.push(...sim.effects);
        return sim.after;
      } catch (error) {
        if (!(error instanceof SimulationError)) throw error;
        own.push({ summary: `not simulated: ${error.message}`, assumed: false });
        return state;
      }
    case 'aws-auth':
      return writeAwsAuth(state, action, own);
    case 'role-replaced':
      return replaceRole(state, action, own);
    case 'addon-created':
    case 'oidc-provider-created':
      return applyCreated(state, action, own);
  }
}

/**
 * Applies the steps in order to `snapshot` and returns what they cause together, most severe
 * first: every change's rules between the state before the first step and after the last, and
 * the state findings new at the end (one evaluation for the whole sequence). A replace that
 * deletes first is also evaluated between its two halves. `lineOf` maps aws-auth value lines to
 * file lines (for a proposed manifest).
 */
export function simulateSteps(
  snapshot: ClusterSnapshot,
  steps: readonly SimulatedStep[],
  lineOf?: LineMapper,
): StepsResult {
  return withEvaluationMemo(() => evaluateSteps(snapshot, steps, lineOf));
}

function evaluateSteps(
  snapshot: ClusterSnapshot,
  steps: readonly SimulatedStep[],
  lineOf: LineMapper | undefined,
): StepsResult {
  const effects: SimulationEffect[] = [];
  const at: Attribution = { bySubject: new Map(), fallback: undefined };
  let modeStep: number | undefined;
  // Only the states around a replace that deletes first are kept: a plan has thousands of steps.
  const windowStates = new Map<number, { before: ClusterSnapshot; after: ClusterSnapshot }>();
  let state = snapshot;
  let batch: EntryBatch | undefined;
  // Consecutive changes outside a replace window edit mapRoles decoded, encoded once after the
  // run (`MapRolesDraft`): a run of node-group and Fargate steps writes aws-auth once.
  let draft: MapRolesDraft | undefined;
  const write = () => {
    if (draft !== undefined) state = writeDraft(state, draft).state;
    draft = undefined;
  };
  steps.forEach((step, i) => {
    const own: SimulationEffect[] = [];
    const { action } = step;
    const window = step.half === 'delete' && step.replaceOrder === 'delete-first';
    const entryChange = entryChangeOf(action);
    if (entryChange !== undefined && !window && state.accessEntries.status === 'ok') {
      write();
      batch ??= new EntryBatch({ ...state, accessEntries: state.accessEntries });
      batch.apply(entryChange, own);
      touch(at, changeSubjects(entryChange), i);
      effects.push(...prefixed(own, step.address));
      return;
    }
    if (batch !== undefined) {
      state = batch.state();
      batch = undefined;
    }
    if (action.kind === 'change' && !window) {
      draft ??= {};
      state = applyStep(state, action, own, draft);
      touch(at, changeSubjects(action.change), i);
      if (action.change.kind === 'set-auth-mode') modeStep = i;
      effects.push(...prefixed(own, step.address));
      return;
    }
    // A write that replaces mapRoles never reads the text a pending draft would encode: the state
    // before it is analysed from the draft's mappings, and the draft is dropped unwritten.
    const pending = draft === undefined ? undefined : draftMappings(draft);
    let beforeView: Analysis | undefined;
    if (pending !== undefined && action.kind === 'aws-auth' && replacesMapRoles(action)) {
      beforeView = analyzeWithAwsAuth(state, pending);
      draft = undefined;
    }
    write();
    const before = state;
    const next = applyStep(before, action, own);
    if (action.kind === 'change') {
      touch(at, changeSubjects(action.change), i);
      for (const arn of roleUsesOf(action.change))
        if (!at.bySubject.has(principalKey(arn))) touch(at, [arn], i);
      if (action.change.kind === 'set-auth-mode') modeStep = i;
      if (step.half === 'delete' && step.replaceOrder === 'delete-first')
        windowStates.set(i, { before, after: next });
    } else if (action.kind === 'role-replaced') {
      touch(at, [action.oldArn, ...(action.newArn === undefined ? [] : [action.newArn])], i);
    } else if (action.kind === 'aws-auth' && next !== before) {
      const { losses, effects: lossEffects } = awsAuthLossEffects(
        beforeView ?? analyzeSnapshot(before),
        analyzeSnapshot(next),
        lineOf,
      );
      own.push(...lossEffects);
      touch(at, [...losses.map((l) => l.arn), ...Object.keys(action.data ?? {}), ...action.removedKeys], i);
      at.fallback = i;
    }
    effects.push(...prefixed(own, step.address));
    state = next;
  });
  at.fallback ??= modeStep ?? (steps.length > 0 ? steps.length - 1 : undefined);
  write();
  const after = batch === undefined ? state : batch.state();
  const changeSteps = steps.flatMap((s, i) =>
    s.action.kind === 'change' ? [{ change: s.action.change, i }] : [],
  );
  const main = whatIfChanges(
    snapshot,
    after,
    changeSteps.map((c) => c.change),
    { trigger: 'whatif' },
  );
  const stepOf = (f: Finding): SimulatedStep | undefined => {
    const fromChange = main.fromChange.get(f.fingerprint);
    const index =
      fromChange !== undefined
        ? changeSteps[fromChange]?.i
        : (at.bySubject.get(principalKey(f.subject)) ?? at.fallback);
    return index === undefined ? undefined : steps[index];
  };
  const byFingerprint = new Map<string, Finding>();
  for (const f of main.findings) {
    const step = stepOf(f);
    byFingerprint.set(f.fingerprint, step === undefined ? f : atAddress(f, step, false));
  }
  // What breaks between the delete and the create of a replace, and is whole again at the end.
  const windows = steps.flatMap((s, i) => {
    const around = windowStates.get(i);
    return around !== undefined && s.action.kind === 'change' ? [{ s, around, change: s.action.change }] : [];
  });
  if (windows.length > 0) {
    const broken = new Map<string, number>();
    for (const f of assessSnapshot(after, { trigger: 'whatif' })) {
      const key = principalKey(f.subject);
      broken.set(key, Math.max(broken.get(key) ?? 0, severityRank(f.severity)));
    }
    for (const { s, around, change } of windows) {
      const w = whatIfChanges(around.before, around.after, [change], { trigger: 'whatif' });
      for (const f of w.findings) {
        if (byFingerprint.has(f.fingerprint)) continue;
        if ((broken.get(principalKey(f.subject)) ?? 0) >= severityRank(f.severity)) continue;
        byFingerprint.set(f.fingerprint, atAddress(f, s, true));
      }
    }
  }
  return { findings: sortFindings([...byFingerprint.values()]), effects, after };
}
