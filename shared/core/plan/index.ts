/**
 * `whatif --terraform-plan`: the JSON of a Terraform/OpenTofu plan against the current state of
 * one or more clusters. `validatePlan` (schema.ts) types the plan, `translatePlan` (translate.ts)
 * turns its auth-relevant resource changes into steps in apply order, and `whatIfTerraformPlan`
 * matches them to the clusters by the plan's `cluster_name` and simulates each cluster's steps
 * together (preapply/simulate-steps.ts). Pure.
 */
import type { ClusterRef, ClusterSnapshot, Finding } from '../model.ts';
import { clusterRefOf } from '../model.ts';
import type { SimulationEffect } from '../predict/simulate.ts';
import type { PlanStep, PlanUnknown, StepCluster, TranslatedPlan } from './plan-steps.ts';
import type { TerraformPlan } from './schema.ts';
import { createRedactor } from './sensitive.ts';
import { simulateSteps } from './simulate-steps.ts';
import { translatePlan } from './translate.ts';
import { bindClusterAccount, qualifyPlanFindings } from './translate-workload-identity.ts';

export type { PlanStep, PlanUnknown, TranslatedPlan } from './plan-steps.ts';
export { type PlanValidation, type ResourceChange, type TerraformPlan, validatePlan } from './schema.ts';
export { SENSITIVE_VALUE } from './sensitive.ts';
export { translatePlan } from './translate.ts';

export interface ClusterPlanResult {
  cluster: ClusterRef;
  /** The plan's auth-relevant changes to this cluster, simulated. */
  steps: number;
  findings: Finding[];
  /** What the changes do, each prefixed with its address; unknowns and notes included. */
  effects: SimulationEffect[];
}

export interface PlanWhatIfResult {
  /** False: the plan changes nothing authentication depends on. */
  relevant: boolean;
  clusters: ClusterPlanResult[];
  /** Changes to clusters no snapshot was given for (or whose cluster the plan does not say). */
  unmatched: { cluster: string; addresses: string[] }[];
  /** Plan-wide facts (an incomplete plan). */
  notes: string[];
}

/** The cluster names the plan's auth-relevant changes name, sorted: what to read live. */
export function planClusterNames(plan: TerraformPlan): string[] {
  return translatedClusterNames(translatePlan(plan.resourceChanges));
}

/** `planClusterNames` of a plan already translated. */
export function translatedClusterNames(t: TranslatedPlan): string[] {
  const names = new Set<string>();
  for (const x of [...t.steps, ...t.unknowns]) if (x.cluster.kind === 'named') names.add(x.cluster.name);
  return [...names].sort();
}

/** For a step the resource does not name a cluster of: the only cluster, or the one its module names. */
function resolveUnnamed(
  moduleAddress: string | undefined,
  named: readonly { moduleAddress?: string; cluster: StepCluster }[],
  clusters: readonly string[],
): string | undefined {
  if (clusters.length === 1) return clusters[0];
  const inModule = new Set(
    named
      .filter((s) => s.moduleAddress === moduleAddress && s.cluster.kind === 'named')
      .map((s) => (s.cluster.kind === 'named' ? s.cluster.name : '')),
  );
  return inModule.size === 1 ? [...inModule][0] : undefined;
}

function targetsOf(
  x: { moduleAddress?: string; cluster: StepCluster },
  all: readonly { moduleAddress?: string; cluster: StepCluster }[],
  clusters: readonly string[],
): string[] | undefined {
  switch (x.cluster.kind) {
    case 'named':
      return [x.cluster.name];
    case 'every':
      return [...clusters];
    case 'unnamed': {
      const one = resolveUnnamed(x.moduleAddress, all, clusters);
      return one === undefined ? undefined : [one];
    }
  }
}

function unknownEffect(u: PlanUnknown): SimulationEffect {
  return { summary: `${u.address}: UNKNOWN until apply — ${u.what}`, assumed: false, unknown: true };
}

/**
 * Simulates the plan against the snapshots, each cluster's changes together, in apply order. The
 * values the plan marks sensitive are in none of the result's text (sensitive.ts).
 */
export function whatIfTerraformPlan(
  plan: TerraformPlan,
  snapshots: readonly ClusterSnapshot[],
): PlanWhatIfResult {
  return whatIfTranslatedPlan(plan, translatePlan(plan.resourceChanges), snapshots);
}

/** Whether a translated plan changes anything authentication depends on. */
export function isAuthRelevant(t: TranslatedPlan): boolean {
  return t.steps.length + t.unknowns.length + t.notes.length > 0;
}

/** `whatIfTerraformPlan` of a plan already translated (`translatePlan(plan.resourceChanges)`). */
export function whatIfTranslatedPlan(
  plan: TerraformPlan,
  t: TranslatedPlan,
  snapshots: readonly ClusterSnapshot[],
): PlanWhatIfResult {
  const names = snapshots.map((s) => s.clusterName);
  const all = [...t.steps, ...t.unknowns];
  const perCluster = new Map<string, { steps: PlanStep[]; unknowns: PlanUnknown[] }>(
    names.map((n) => [n, { steps: [], unknowns: [] }]),
  );
  const unmatched = new Map<string, Set<string>>();
  const place = (
    x: PlanStep | PlanUnknown,
    add: (bucket: { steps: PlanStep[]; unknowns: PlanUnknown[] }) => void,
  ) => {
    const targets = targetsOf(x, all, names);
    if (targets === undefined) {
      const set = unmatched.get('(not named by the plan)') ?? new Set<string>();
      unmatched.set('(not named by the plan)', set.add(x.address));
      return;
    }
    for (const name of targets) {
      const bucket = perCluster.get(name);
      if (bucket) add(bucket);
      else unmatched.set(name, (unmatched.get(name) ?? new Set<string>()).add(x.address));
    }
  };
  for (const s of t.steps) place(s, (b) => b.steps.push(s));
  for (const u of t.unknowns) place(u, (b) => b.unknowns.push(u));
  const notesFor = (name: string) => t.notes.filter((n) => n.cluster === name);
  const clusters: ClusterPlanResult[] = [];
  for (const snapshot of snapshots) {
    const bucket = perCluster.get(snapshot.clusterName);
    if (bucket === undefined) continue;
    const notes = notesFor(snapshot.clusterName);
    if (bucket.steps.length === 0 && bucket.unknowns.length === 0 && notes.length === 0) continue;
    const steps = bindClusterAccount(bucket.steps, snapshot.accountId);
    const result = simulateSteps(snapshot, steps);
    clusters.push({
      cluster: clusterRefOf(snapshot),
      steps: bucket.steps.length,
      findings: qualifyPlanFindings(result.findings, steps),
      effects: [
        ...result.effects,
        ...bucket.unknowns.map(unknownEffect),
        ...notes.map((n) => ({ summary: `${n.address}: ${n.text}`, assumed: false })),
      ],
    });
  }
  const planNotes = [
    ...(plan.complete
      ? []
      : [
          'the plan is incomplete (complete: false): deferred changes follow in a later plan and are not checked',
        ]),
    ...t.notes
      .filter((n) => n.cluster === undefined || !names.includes(n.cluster))
      .map((n) => `${n.address}: ${n.text}${n.cluster === undefined ? '' : ` (cluster ${n.cluster})`}`),
  ];
  return createRedactor(plan.resourceChanges).redact({
    relevant: isAuthRelevant(t),
    clusters,
    unmatched: [...unmatched].map(([cluster, addresses]) => ({ cluster, addresses: [...addresses].sort() })),
    notes: planNotes,
  });
}
export { proposalIssues, readAwsAuthProposal } from './aws-auth-proposal.ts';
export { simulateSteps } from './simulate-steps.ts';
