/**
 * Simulates a sequence of changes to one cluster, one after the other, each on the state the
 * previous one left: a `Change` through the engine's `whatIf` (EKS's side effects and the change
 * rules), an aws-auth write and an IAM role replacement through `diffSnapshots`. Every finding
 * names the step (its plan address) that causes it. For a replace that deletes before it creates,
 * what breaks between the two halves and is whole again afterwards is reported as such.
 */
import { analyzeSnapshot } from '../analysis.ts';
import { assessSnapshot, diffSnapshots, sortFindings, whatIf } from '../engine.ts';
import type { ClusterSnapshot, Finding, IamRole } from '../model.ts';
import { severityRank } from '../model.ts';
import { principalKey } from '../principal.ts';
import { type SimulationEffect, SimulationError } from '../simulate.ts';
import type { StepAction } from '../terraform-plan/translate.ts';
import { awsAuthLossEffects, type LineMapper } from './aws-auth-losses.ts';

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

/**
 * Applies the steps in order to `snapshot` and returns what they cause, most severe first.
 * `lineOf` maps aws-auth value lines to file lines (for a proposed manifest).
 */
export function simulateSteps(
  snapshot: ClusterSnapshot,
  steps: readonly SimulatedStep[],
  lineOf?: LineMapper,
): StepsResult {
  let state = snapshot;
  const recorded: { finding: Finding; step: SimulatedStep }[] = [];
  const effects: SimulationEffect[] = [];
  for (const step of steps) {
    const own: SimulationEffect[] = [];
    let next = state;
    let found: Finding[] = [];
    const { action } = step;
    if (action.kind === 'change') {
      try {
        const r = whatIf(state, action.change, { trigger: 'whatif' });
        next = r.after;
        found = r.findings;
        own.push(...r.effects);
      } catch (error) {
        if (!(error instanceof SimulationError)) throw error;
        own.push({ summary: `not simulated: ${error.message}`, assumed: false });
      }
    } else {
      next = action.kind === 'aws-auth' ? writeAwsAuth(state, action, own) : replaceRole(state, action, own);
      if (next !== state) {
        found = diffSnapshots(state, next, { trigger: 'whatif' });
        if (action.kind === 'aws-auth')
          own.push(...awsAuthLossEffects(analyzeSnapshot(state), analyzeSnapshot(next), lineOf).effects);
      }
    }
    for (const finding of found) recorded.push({ finding, step });
    effects.push(...prefixed(own, step.address));
    state = next;
  }
  // What is still broken at the end: a window finding on a subject not broken then is transient.
  const broken = new Map<string, number>();
  for (const f of assessSnapshot(state, { trigger: 'whatif' })) {
    const key = principalKey(f.subject);
    broken.set(key, Math.max(broken.get(key) ?? 0, severityRank(f.severity)));
  }
  const byFingerprint = new Map<string, Finding>();
  for (const { finding, step } of recorded) {
    const window = step.half === 'delete' && step.replaceOrder === 'delete-first';
    const between =
      window && (broken.get(principalKey(finding.subject)) ?? 0) < severityRank(finding.severity);
    const f = atAddress(finding, step, between);
    const seen = byFingerprint.get(f.fingerprint);
    if (seen === undefined || (seen.evidence.planWindow !== undefined && !between))
      byFingerprint.set(f.fingerprint, f);
  }
  return { findings: sortFindings([...byFingerprint.values()]), effects, after: state };
}
