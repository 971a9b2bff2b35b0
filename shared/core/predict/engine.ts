/**
 * The engine's entry points: assess one snapshot, diff two, predict a change. Pure: no clock,
 * no I/O. `snapshot → analyse → rules → findings`.
 */

import { principalKey } from '../access/principal.ts';
import { fingerprintOf } from '../fingerprint.ts';
import { renderFix } from '../fixes/remediation.ts';
import { type ClusterSnapshot, compareFindings, type Finding, severityRank, type Trigger } from '../model.ts';
import { MONITOR_RULES } from '../rules/monitor-rules.ts';
import { SOURCE_UNAVAILABLE } from '../rules/monitor-source-unavailable.ts';
import { PARITY_RULES } from '../rules/parity-rules.ts';
import type { Rule, RuleContext, RuleKind } from '../rules/types.ts';
import { type Analysis, analyzeSnapshot, withEvaluationMemo } from './analysis.ts';
import type { Change } from './change.ts';
import { type SimulateOptions, type SimulationEffect, simulateChange } from './simulate.ts';

export type { SimulationEffect } from './simulate.ts';

export interface EvaluateOptions {
  trigger?: Trigger;
  /** The monitor's own IAM principal: a change that would blind it is a finding. */
  monitorPrincipalArn?: string;
}

export interface WhatIfResult {
  change: Change;
  after: ClusterSnapshot;
  effects: SimulationEffect[];
  /** Findings the change causes (new after it), most severe first. */
  findings: Finding[];
}

/** Findings that always stand, new or not: the monitor's own blindness. */
const ALWAYS_REPORTED = new Set([SOURCE_UNAVAILABLE]);

export function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(compareFindings);
}

/**
 * The findings of the rules of `kind` among `rules`: the monitor's, or for `compare` the parity
 * rules (named only in compareSnapshots, so that a bundle without it leaves them out).
 */
function run(
  kind: RuleKind,
  ctx: RuleContext,
  trigger: Trigger,
  rules: readonly Rule[] = MONITOR_RULES,
): Finding[] {
  const out: Finding[] = [];
  const { current: a } = ctx;
  for (const rule of rules) {
    if (!rule.kinds.includes(kind)) continue;
    for (const d of rule.evaluate(ctx)) out.push(toFinding(rule, d, a, trigger));
  }
  return out;
}

function toFinding(
  rule: Rule,
  d: ReturnType<Rule['evaluate']>[number],
  a: Analysis,
  trigger: Trigger,
): Finding {
  const { fingerprintKey, remediation, ...rest } = d;
  return {
    ruleId: rule.id,
    ...rest,
    ...(remediation === undefined
      ? {}
      : { remediation: renderFix(remediation, { region: a.cluster.region }) }),
    cluster: a.cluster,
    trigger,
    fingerprint: fingerprintOf([
      rule.id,
      a.cluster.accountId,
      a.cluster.region,
      a.cluster.name,
      d.subject.toLowerCase(),
      fingerprintKey ?? '',
    ]),
  };
}

function ctxOf(current: Analysis, options: EvaluateOptions, extra: Partial<RuleContext> = {}): RuleContext {
  return {
    current,
    ...extra,
    ...(options.monitorPrincipalArn ? { monitorPrincipalArn: options.monitorPrincipalArn } : {}),
  };
}

/** Keep findings that are new (or more severe) in `after` than in `before`, and the always-reported ones. */
function newIn(after: Finding[], before: Finding[]): Finding[] {
  const old = new Map(before.map((f) => [f.fingerprint, f]));
  return after.filter((f) => {
    if (ALWAYS_REPORTED.has(f.ruleId)) return true;
    const prev = old.get(f.fingerprint);
    return !prev || severityRank(f.severity) > severityRank(prev.severity);
  });
}

export function assessSnapshot(snapshot: ClusterSnapshot, options: EvaluateOptions = {}): Finding[] {
  return sortFindings(run('state', ctxOf(analyzeSnapshot(snapshot), options), options.trigger ?? 'manual'));
}

/**
 * Findings on a change between two snapshots: what the transition rules see (mappings removed,
 * admins granted) plus state findings that are new or more severe after it.
 */
export function diffSnapshots(
  before: ClusterSnapshot,
  after: ClusterSnapshot,
  options: EvaluateOptions = {},
): Finding[] {
  const trigger = options.trigger ?? 'manual';
  const b = analyzeSnapshot(before);
  const a = analyzeSnapshot(after);
  const transition = run('transition', ctxOf(a, options, { previous: b }), trigger);
  const fresh = newIn(run('state', ctxOf(a, options), trigger), run('state', ctxOf(b, options), trigger));
  return sortFindings(dedupeFindings([...transition, ...fresh]));
}

/**
 * What a scheduled run reports: every state finding of `current`, plus what the transition rules
 * see since `previous` (mappings removed, admins granted), when there is a previous snapshot.
 */
export function assessSince(
  current: ClusterSnapshot,
  previous: ClusterSnapshot | undefined,
  options: EvaluateOptions = {},
): Finding[] {
  const trigger = options.trigger ?? 'manual';
  const a = analyzeSnapshot(current);
  const state = run('state', ctxOf(a, options), trigger);
  if (!previous) return sortFindings(state);
  const transition = run('transition', ctxOf(a, options, { previous: analyzeSnapshot(previous) }), trigger);
  return sortFindings(dedupeFindings([...state, ...transition]));
}

/**
 * Blue/green parity: what `from` grants that `to` does not (access, workload identity). The
 * findings are about `to`, the cluster that must match before traffic moves.
 */
export function compareSnapshots(
  from: ClusterSnapshot,
  to: ClusterSnapshot,
  options: EvaluateOptions = {},
): Finding[] {
  const ctx = ctxOf(analyzeSnapshot(to), options, { previous: analyzeSnapshot(from) });
  return sortFindings(run('parity', ctx, options.trigger ?? 'manual', PARITY_RULES));
}

/** Findings with the same fingerprint once, first occurrence kept. */
export function dedupeFindings(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => !seen.has(f.fingerprint) && !!seen.add(f.fingerprint));
}

/** State rules whose new findings a change rule already explains (same subject). */
const EXPLAINED_BY_CHANGE = new Set([
  'nodes/role-unauthorized',
  'fargate/pod-execution-role-unauthorized',
  'aws-auth/entry-removed',
  // what cluster/auth-mode-drops-principals predicts (subject: the cluster)
  'cluster/api-mode-ignores-aws-auth',
]);

/**
 * Predict a change: simulate EKS's side effects, then report what the change causes — the
 * change rules' findings and state findings that are new after it.
 */
export function whatIf(
  snapshot: ClusterSnapshot,
  change: Change,
  options: EvaluateOptions = {},
): WhatIfResult {
  const trigger = options.trigger ?? 'whatif';
  const b = analyzeSnapshot(snapshot);
  const sim = simulateChange(snapshot, change, parseOf(b));
  const a = analyzeSnapshot(sim.after, sim.awsAuth);
  const findings = predictedFindings(b, a, change, options, trigger, {
    before: run('state', ctxOf(b, options), trigger),
    after: run('state', ctxOf(a, options), trigger),
  });
  return { change, after: sim.after, effects: sim.effects, findings };
}

/** What `change` causes between the analysed states `b` and `a`, given the state findings of each. */
function predictedFindings(
  b: Analysis,
  a: Analysis,
  change: Change,
  options: EvaluateOptions,
  trigger: Trigger,
  state: { before: Finding[]; after: Finding[] },
): Finding[] {
  const changeFindings = run('change', ctxOf(a, options, { previous: b, change }), trigger);
  const covered = new Set(changeFindings.map((f) => principalKey(f.subject)));
  const fresh = newIn(state.after, state.before).filter(
    (f) => !(EXPLAINED_BY_CHANGE.has(f.ruleId) && covered.has(principalKey(f.subject))),
  );
  return sortFindings(dedupeFindings([...changeFindings, ...fresh]));
}

export interface EventPrediction extends WhatIfResult {
  /**
   * What changed since the stored snapshot (EKS's side effect may already have happened before
   * the fresh read): transition findings and state findings new since `stored`, on the state as
   * read now with the compute the change takes away already gone. Empty without a stored snapshot.
   */
  already: Finding[];
}

/**
 * A CloudTrail event's prediction in one evaluation: `whatIf(before, change)` and
 * `diffSnapshots(stored, now)`, where `now` is `before` with the compute the change takes away
 * gone. Each aws-auth text read is parsed once, the simulated one not at all (the simulation
 * hands over the mappings it wrote), and each state's rules run once: when the fresh read left
 * the stored snapshot's sources as they were (`refreshVolatile` keeps the stored objects then),
 * the stored state is the state before and is not evaluated again.
 */
export function predictEvent(
  stored: ClusterSnapshot | undefined,
  before: ClusterSnapshot,
  change: Change,
  options: EvaluateOptions = {},
): EventPrediction {
  return withEvaluationMemo(() => {
    const trigger = options.trigger ?? 'whatif';
    const b = analyzeSnapshot(before);
    const sim = simulateChange(before, change, parseOf(b));
    const a = analyzeSnapshot(sim.after, sim.awsAuth);
    const stateB = run('state', ctxOf(b, options), trigger);
    const findings = predictedFindings(b, a, change, options, trigger, {
      before: stateB,
      after: run('state', ctxOf(a, options), trigger),
    });
    const prediction = { change, after: sim.after, effects: sim.effects, findings };
    if (stored === undefined) return { ...prediction, already: [] };
    const now = { ...before, nodegroups: sim.after.nodegroups, compute: sim.after.compute };
    // `refreshVolatile` keeps the stored aws-auth object when the fresh read found the same text.
    const s = sameEvaluatedState(stored, before)
      ? b
      : analyzeSnapshot(stored, stored.awsAuth === before.awsAuth ? b.awsAuth : undefined);
    const n = analyzeSnapshot(now, b.awsAuth);
    const transition = run('transition', ctxOf(n, options, { previous: s }), trigger);
    const fresh = newIn(
      run('state', ctxOf(n, options), trigger),
      s === b ? stateB : run('state', ctxOf(s, options), trigger),
    );
    return { ...prediction, already: sortFindings(dedupeFindings([...transition, ...fresh])) };
  });
}

/** The simulation options that hand it the parse of the analysed state's aws-auth. */
function parseOf(a: Analysis): SimulateOptions {
  return a.awsAuth === undefined ? {} : { awsAuth: a.awsAuth };
}

/**
 * `stored` and `fresh` hold the same sources (the same objects) and the same cluster fields, so
 * the rules see the same state in both. When they were captured differs, which only the CA
 * rotation rule reads (how soon an activation is): with a certificate authority listed, the
 * capture times must be equal too.
 */
function sameEvaluatedState(stored: ClusterSnapshot, fresh: ClusterSnapshot): boolean {
  const keys = new Set([...Object.keys(stored), ...Object.keys(fresh)]) as Set<keyof ClusterSnapshot>;
  const cas = fresh.certificateAuthorities;
  const timeRead = cas?.status === 'ok' && cas.data.length > 0;
  for (const key of keys) {
    if (key === 'capturedAt') {
      if (timeRead && stored.capturedAt !== fresh.capturedAt) return false;
    } else if (key === 'cluster') {
      if (JSON.stringify(stored.cluster) !== JSON.stringify(fresh.cluster)) return false;
    } else if (stored[key] !== fresh[key]) return false;
  }
  return true;
}

/**
 * Several changes simulated together (a Terraform plan): `after` is `before` with all of them
 * applied, in order. The change rules run once per change between the two states, the transition
 * and state rules once, so a plan costs about one what-if whatever its size. `fromChange` maps a
 * finding's fingerprint to the index of the change whose rule produced it.
 */
export function whatIfChanges(
  before: ClusterSnapshot,
  after: ClusterSnapshot,
  changes: readonly Change[],
  options: EvaluateOptions = {},
): { findings: Finding[]; fromChange: Map<string, number> } {
  const trigger = options.trigger ?? 'whatif';
  const b = analyzeSnapshot(before);
  const a = analyzeSnapshot(after);
  const fromChange = new Map<string, number>();
  const changeFindings = changes.flatMap((change, i) =>
    run('change', ctxOf(a, options, { previous: b, change }), trigger).map((f) => {
      if (!fromChange.has(f.fingerprint)) fromChange.set(f.fingerprint, i);
      return f;
    }),
  );
  // A state finding a change finding already explains, at least as severe, is left out.
  const covered = new Map<string, number>();
  for (const f of changeFindings) {
    const key = principalKey(f.subject);
    covered.set(key, Math.max(covered.get(key) ?? 0, severityRank(f.severity)));
  }
  const explained = (f: Finding) =>
    EXPLAINED_BY_CHANGE.has(f.ruleId) &&
    (covered.get(principalKey(f.subject)) ?? 0) >= severityRank(f.severity);
  const transition = run('transition', ctxOf(a, options, { previous: b }), trigger).filter(
    (f) => !explained(f),
  );
  const fresh = newIn(
    run('state', ctxOf(a, options), trigger),
    run('state', ctxOf(b, options), trigger),
  ).filter((f) => !explained(f));
  return { findings: sortFindings(dedupeFindings([...changeFindings, ...transition, ...fresh])), fromChange };
}
