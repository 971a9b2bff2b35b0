/**
 * The engine's entry points: assess one snapshot, diff two, predict a change. Pure.
 * (Bodies land with the resolver and rules; signatures are the contract for CLI and handlers.)
 */
import type { Change } from './change.ts';
import type { ClusterSnapshot, Finding, Trigger } from './model.ts';

export interface EvaluateOptions {
  trigger?: Trigger;
}

/** One side effect EKS applies (or may apply) for a change. */
export interface SimulationEffect {
  summary: string;
  /** True where the facts do not confirm EKS does this and the engine assumes the worse case. */
  assumed: boolean;
}

export interface WhatIfResult {
  change: Change;
  after: ClusterSnapshot;
  effects: SimulationEffect[];
  /** Findings the change causes (new after it), most severe first. */
  findings: Finding[];
}

export function assessSnapshot(_snapshot: ClusterSnapshot, _options?: EvaluateOptions): Finding[] {
  throw new Error('assessSnapshot: not implemented yet');
}

export function diffSnapshots(
  _before: ClusterSnapshot,
  _after: ClusterSnapshot,
  _options?: EvaluateOptions,
): Finding[] {
  throw new Error('diffSnapshots: not implemented yet');
}

export function whatIf(_snapshot: ClusterSnapshot, _change: Change, _options?: EvaluateOptions): WhatIfResult {
  throw new Error('whatIf: not implemented yet');
}
