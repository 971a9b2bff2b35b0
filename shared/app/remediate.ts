/**
 * Opt-in prevention (`remediation`: `off` | `dry-run` | `on`), the use case shared by onEksEvent,
 * the aws-auth change assessment and `watch`: it carries out a plan of core/remediation over the
 * writer ports, one action at a time, and alerts each outcome in the thread of the finding that
 * caused it.
 *
 * For each action:
 *   1. claim it in the ledger on its trigger (a CloudTrail eventID, or the aws-auth resourceVersion
 *      a removal was observed at): a redelivered or re-observed trigger never acts twice;
 *   2. dry run: alert "would do" with the exact call, write nothing;
 *   3. take one of the cluster's hourly action slots (`maxActionsPerHour`); none left → `failed`;
 *   4. write: CreateAccessEntry, or the mapRoles merge patch guarded by the resourceVersion the
 *      restore was planned on. On `409 Conflict`: read aws-auth again and plan again from the same
 *      "before" — the entries are back (someone restored them): `already-present`; still gone: the
 *      restore is appended to the newer text, whose edits stay (at most `CONFLICT_RETRIES` times,
 *      then `conflict`);
 *   5. record the outcome in the state table and alert it (`done`, `would-do`,
 *      `already-present`, `conflict`, `forbidden` — naming the IAM permission or RBAC grant —,
 *      `failed`).
 * A write that throws is `failed`, alerted, and never rethrown: prevention must not take the
 * detection path down with it.
 */
import type { AwsAuthConfigMap, ClusterId, ClusterSnapshot, Finding, Trigger } from '../core/model.ts';
import {
  type ActionCall,
  type ActionOutcome,
  type ActionResult,
  type AwsAuthGuard,
  actionFinding,
  planAwsAuthRemoval,
  planNodegroupDeletion,
  type RemediationAction,
  type RemediationMode,
  type RemediationPlan,
  restoreMapRoles,
} from '../core/remediation/index.ts';
import type { WatchAction } from '../core/render/index.ts';
import { safeErrorMessage } from '../errors.ts';
import type {
  AccessEntryWriter,
  AwsAuthReader,
  AwsAuthWriter,
  Clock,
  Deliver,
  DeliverySummary,
  KubeClusterRef,
  RemediationLedger,
  WriteOutcome,
} from '../ports.ts';
import type { AfterAssessResult, AwsAuthAssessment } from './assess-aws-auth-change.ts';
import type { WatchRemediationRequest } from './commands/command-inputs.ts';

/** Re-reads and re-plans after a 409 before giving up with `conflict`. */
export const CONFLICT_RETRIES = 3;

export interface RemediateDeps {
  /** `dry-run` or `on` (with `off` nothing calls this use case). */
  mode: Exclude<RemediationMode, 'off'>;
  maxActionsPerHour: number;
  accessEntries: AccessEntryWriter;
  awsAuthWriter: AwsAuthWriter;
  awsAuth: AwsAuthReader;
  ledger: RemediationLedger;
  deliver: Deliver;
  clock: Clock;
}

export interface RemediationTrigger {
  cluster: ClusterId;
  ref: KubeClusterRef;
  /** The state before the change: whose entries may come back, and who depends on them. */
  before: ClusterSnapshot;
  trigger: Trigger;
  /** What makes the trigger unique: a CloudTrail eventID, `aws-auth@<resourceVersion>`… */
  triggerId: string;
  /** A node group being deleted: its own nodes are no dependants. */
  excludingNodegroup?: string;
}

export interface RemediationReport {
  outcomes: ActionOutcome[];
  /** Actions a run for the same trigger already took. */
  duplicates: number;
  delivery?: DeliverySummary;
}

const HOUR_MS = 3_600_000;

const outcomeOf = (w: WriteOutcome): { result: ActionResult; detail: string } =>
  w.status === 'done' ? { result: 'done', detail: 'written' } : { result: w.status, detail: w.detail };

function hourOf(at: Date): string {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS).toISOString();
}

function keyOf(t: RemediationTrigger, action: RemediationAction): string {
  return `${t.cluster.accountId}#${t.cluster.region}#${t.cluster.clusterName}#${t.triggerId}#${action.kind}#${action.principalArn.toLowerCase()}`;
}

function createCall(
  t: RemediationTrigger,
  action: Extract<RemediationAction, { kind: 'create-access-entry' }>,
): ActionCall {
  return {
    service: 'eks',
    operation: 'CreateAccessEntry',
    input: { clusterName: t.cluster.clusterName, principalArn: action.principalArn, type: action.type },
    associate: action.accessPolicies,
  };
}

function patchCall(resourceVersion: string, mapRoles: string): ActionCall {
  return {
    service: 'kubernetes',
    method: 'PATCH',
    path: '/api/v1/namespaces/kube-system/configmaps/aws-auth',
    contentType: 'application/merge-patch+json',
    body: { metadata: { resourceVersion }, data: { mapRoles } },
  };
}

async function readAwsAuth(deps: RemediateDeps, ref: KubeClusterRef): Promise<AwsAuthConfigMap | undefined> {
  const got = await deps.awsAuth.awsAuth(ref);
  return got.found ? got.value : undefined;
}

/** A restore of `action`'s entries into aws-auth as it stands, re-planned after each conflict. */
async function restore(
  deps: RemediateDeps,
  t: RemediationTrigger,
  action: Extract<RemediationAction, { kind: 'restore-aws-auth-entries' }>,
  current: AwsAuthConfigMap | undefined,
  dryRun: boolean,
  takeSlot: () => Promise<boolean>,
): Promise<Omit<ActionOutcome, 'action' | 'dryRun'>> {
  let state = current ?? (await readAwsAuth(deps, t.ref));
  let slotTaken = false;
  for (let attempt = 0; ; attempt++) {
    if (state === undefined)
      return { result: 'failed', detail: 'aws-auth no longer exists: nothing was written' };
    if (state.resourceVersion === undefined)
      return {
        result: 'failed',
        detail: 'aws-auth was read without a resourceVersion: an unguarded write is never made',
      };
    // The same question again on what is there now: is the role still unmapped, still needed?
    if (attempt > 0) {
      const again = planAwsAuthRemoval(t.before, state, {
        onlyRoles: [action.principalArn],
        ...(t.excludingNodegroup === undefined ? {} : { excludingNodegroup: t.excludingNodegroup }),
      });
      if (!again.actions.some((a) => a.kind === 'restore-aws-auth-entries'))
        return {
          result: 'already-present',
          detail: `aws-auth changed meanwhile (resourceVersion ${state.resourceVersion}) and maps the role again: nothing was written`,
        };
    }
    const text = restoreMapRoles(state.data, action.entries);
    if (!text.ok) return { result: 'failed', detail: `not written: ${text.reason}` };
    if (text.added.length === 0)
      return {
        result: 'already-present',
        detail: 'every removed entry is in aws-auth again: nothing was written',
      };
    const call = patchCall(state.resourceVersion, text.mapRoles);
    if (dryRun) return { result: 'would-do', detail: 'dry run: nothing was written', call };
    if (!slotTaken) {
      if (!(await takeSlot()))
        return {
          result: 'failed',
          detail: `not written: the limit of ${deps.maxActionsPerHour} actions per cluster per hour is reached`,
          call,
        };
      slotTaken = true;
    }
    const written = await deps.awsAuthWriter.patchMapRoles(t.ref, {
      resourceVersion: state.resourceVersion,
      mapRoles: text.mapRoles,
    });
    if (written.status !== 'conflict' || attempt + 1 >= CONFLICT_RETRIES) {
      const o = outcomeOf(written);
      return {
        ...o,
        detail:
          o.result === 'done'
            ? `restored ${text.added.length} entr${text.added.length === 1 ? 'y' : 'ies'}${attempt > 0 ? ` after ${attempt} conflict${attempt === 1 ? '' : 's'} with newer edits, which were kept` : ''}`
            : o.detail,
        call,
      };
    }
    state = await readAwsAuth(deps, t.ref);
  }
}

async function carryOut(
  deps: RemediateDeps,
  t: RemediationTrigger,
  action: RemediationAction,
  current: AwsAuthConfigMap | undefined,
): Promise<ActionOutcome> {
  const dryRun = deps.mode === 'dry-run';
  const takeSlot = () => deps.ledger.takeSlot(t.cluster, hourOf(deps.clock.now()), deps.maxActionsPerHour);
  try {
    if (action.kind === 'restore-aws-auth-entries') {
      return { action, dryRun, ...(await restore(deps, t, action, current, dryRun, takeSlot)) };
    }
    const call = createCall(t, action);
    if (dryRun) return { action, dryRun, result: 'would-do', detail: 'dry run: nothing was written', call };
    if (!(await takeSlot()))
      return {
        action,
        dryRun,
        result: 'failed',
        detail: `not written: the limit of ${deps.maxActionsPerHour} actions per cluster per hour is reached`,
        call,
      };
    const written = outcomeOf(
      await deps.accessEntries.createAccessEntry(t.cluster, {
        principalArn: action.principalArn,
        type: action.type,
        accessPolicies: action.accessPolicies,
      }),
    );
    return {
      action,
      dryRun,
      ...written,
      ...(written.result === 'done' ? { detail: `created the ${action.type} access entry` } : {}),
      call,
    };
  } catch (error) {
    return { action, dryRun, result: 'failed', detail: safeErrorMessage(error) };
  }
}

/** Each action of `plan` claimed, carried out (or, dry run, described) and recorded; nothing delivered. */
export async function carryOutPlan(
  deps: RemediateDeps,
  t: RemediationTrigger,
  plan: Pick<RemediationPlan, 'actions'>,
  current?: AwsAuthConfigMap,
): Promise<{ outcomes: ActionOutcome[]; duplicates: number; findings: Finding[] }> {
  const outcomes: ActionOutcome[] = [];
  let duplicates = 0;
  for (const action of plan.actions) {
    const key = keyOf(t, action);
    if (!(await deps.ledger.claim(key))) {
      duplicates += 1;
      continue;
    }
    const outcome = await carryOut(deps, t, action, current);
    outcomes.push(outcome);
    await deps.ledger.record(key, {
      action: action.kind,
      principalArn: action.principalArn,
      result: outcome.result,
      detail: outcome.detail,
      dryRun: outcome.dryRun,
      at: deps.clock.now().toISOString(),
      trigger: `${t.trigger} ${t.triggerId}`,
    });
  }
  const findings = outcomes.map((o) =>
    actionFinding(t.before, o, { trigger: t.trigger, triggerId: t.triggerId }),
  );
  return { outcomes, duplicates, findings };
}

/**
 * Carries out `plan` (its actions; guards are `guardAwsAuth`'s) for one trigger and alerts each
 * outcome. `current`: aws-auth as the plan saw it, when it was read (saves a read).
 */
export async function remediate(
  deps: RemediateDeps,
  t: RemediationTrigger,
  plan: Pick<RemediationPlan, 'actions'>,
  current?: AwsAuthConfigMap,
  /** The delivery of the finding that caused the actions: their alerts join its thread once it is sent. */
  causeDelivered?: Promise<unknown>,
): Promise<RemediationReport> {
  const { outcomes, duplicates, findings } = await carryOutPlan(deps, t, plan, current);
  if (outcomes.length === 0) return { outcomes, duplicates };
  await causeDelivered?.catch(() => undefined);
  const delivery = await deps.deliver(t.cluster, findings, { kind: 'change' });
  return { outcomes, duplicates, delivery };
}

/**
 * The aws-auth change assessment's `afterAssess` hook (poll, watch, audit, `watch` CLI): a write
 * that removed every entry of a role that compute depends on gets those entries back, once per
 * observed resourceVersion; the outcomes' alerts are the assessment's to deliver, after its own.
 */
export function createRemediationHook(
  deps: RemediateDeps,
): (assessment: AwsAuthAssessment) => Promise<AfterAssessResult | undefined> {
  return async (a) => {
    if (a.changes !== undefined && a.changes.removed.length === 0) return undefined;
    const after = a.after.awsAuth.status === 'ok' ? a.after.awsAuth.data : undefined;
    if (a.after.awsAuth.status === 'error') return undefined;
    const plan = planAwsAuthRemoval(a.before, after);
    if (plan.actions.length === 0) return undefined;
    const t: RemediationTrigger = {
      cluster: {
        accountId: a.cluster.accountId,
        region: a.cluster.region,
        clusterName: a.cluster.clusterName,
      },
      ref: a.cluster,
      before: a.before,
      trigger: `event:aws-auth-${a.source}`,
      triggerId: `aws-auth@${a.resourceVersion ?? 'deleted'}`,
    };
    const { outcomes, findings } = await carryOutPlan(deps, t, plan, after);
    return {
      findings,
      actions: outcomes.map((o) => ({
        kind: o.action.kind,
        principalArn: o.action.principalArn,
        dryRun: o.dryRun,
        result: o.result,
        detail: o.detail,
      })),
    };
  };
}

export interface GuardOptions {
  /** Epoch ms: stop guarding then (the invocation's deadline less what delivery needs). */
  until: number;
  /** Between two reads of aws-auth, ms. */
  intervalMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * After a DeleteNodegroup in `CONFIG_MAP`: read aws-auth every `intervalMs` until EKS's edit
 * removes a guarded role, then restore its entries (EKS would remove a re-add made before its
 * edit). Ends when every guarded role was handled or at `until`; a read that fails is retried at
 * the next tick.
 */
export async function guardAwsAuth(
  deps: RemediateDeps,
  t: RemediationTrigger,
  guards: readonly AwsAuthGuard[],
  options: GuardOptions,
): Promise<RemediationReport & { unguarded: string[]; reads: number }> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let pending = guards.map((g) => g.principalArn);
  const report: RemediationReport = { outcomes: [], duplicates: 0 };
  let reads = 0;
  while (pending.length > 0 && deps.clock.now().getTime() < options.until) {
    let current: AwsAuthConfigMap | undefined;
    let readOk = true;
    try {
      current = await readAwsAuth(deps, t.ref);
      reads += 1;
    } catch {
      readOk = false;
    }
    if (readOk && current !== undefined) {
      const plan = planAwsAuthRemoval(t.before, current, {
        onlyRoles: pending,
        ...(t.excludingNodegroup === undefined ? {} : { excludingNodegroup: t.excludingNodegroup }),
      });
      const handled = new Set([...plan.actions, ...plan.skipped].map((a) => a.principalArn.toLowerCase()));
      if (plan.actions.length > 0) {
        const done = await remediate(deps, t, plan, current);
        report.outcomes.push(...done.outcomes);
        report.duplicates += done.duplicates;
        if (done.delivery !== undefined) report.delivery = done.delivery;
      }
      pending = pending.filter((arn) => !handled.has(arn.toLowerCase()));
      if (pending.length === 0) break;
    }
    await sleep(options.intervalMs);
  }
  return { ...report, unguarded: pending, reads };
}

/** The ledger of one `watch` run, in memory: each action once per trigger, the hourly cap per cluster. */
export function memoryLedger(): RemediationLedger {
  const claimed = new Set<string>();
  const slots = new Map<string, number>();
  return {
    async claim(key) {
      if (claimed.has(key)) return false;
      claimed.add(key);
      return true;
    },
    async takeSlot(cluster, hour, limit) {
      const k = `${cluster.accountId}#${cluster.region}#${cluster.clusterName}#${hour}`;
      const used = slots.get(k) ?? 0;
      if (used >= limit) return false;
      slots.set(k, used + 1);
      return true;
    },
    async record() {},
  };
}

/**
 * `watch --remediate dry-run|on`: the functions' remediation over the user's credentials, with an
 * in-memory ledger. A node group seen `DELETING` is the same prediction as its CloudTrail record
 * (in the API modes the access entry is created before EKS's aws-auth edit); in `CONFIG_MAP` the
 * watch's own aws-auth assessment restores the entries once EKS has removed them. The actions
 * are the watch's to print: nothing is delivered from here.
 */
export function createWatchRemediation(
  writers: Pick<RemediateDeps, 'accessEntries' | 'awsAuthWriter' | 'awsAuth' | 'clock'> & {
    maxActionsPerHour: number;
  },
): (request: WatchRemediationRequest) => Promise<WatchAction[]> {
  const ledger = memoryLedger();
  const deps = (mode: 'dry-run' | 'on'): RemediateDeps => ({
    ...writers,
    mode,
    ledger,
    deliver: async () => ({ sent: 0, failed: 0, pending: 0 }),
  });
  const asAction = (o: ActionOutcome): WatchAction => ({
    kind: o.action.kind,
    principalArn: o.action.principalArn,
    dryRun: o.dryRun,
    result: o.result,
    detail: o.detail,
  });
  return async (request) => {
    if (request.kind === 'aws-auth') {
      const done = await createRemediationHook(deps(request.mode))(request.assessment);
      return [...(done?.actions ?? [])];
    }
    if (request.change.kind !== 'delete-nodegroup') return [];
    const plan = planNodegroupDeletion(request.snapshot, request.change);
    const t: RemediationTrigger = {
      cluster: {
        accountId: request.cluster.accountId,
        region: request.cluster.region,
        clusterName: request.cluster.clusterName,
      },
      ref: request.cluster,
      before: request.snapshot,
      trigger: 'event:DeleteNodegroup',
      triggerId: `watch:${request.change.nodegroupName}`,
      excludingNodegroup: request.change.nodegroupName,
    };
    const { outcomes } = await carryOutPlan(deps(request.mode), t, plan);
    return outcomes.map(asAction);
  };
}
