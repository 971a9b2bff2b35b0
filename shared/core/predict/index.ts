/**
 * The entry of `shared/core/predict/`: what code outside `shared/core` imports from this folder.
 */
export {
  type Change,
  deletionChanges,
  describeChange,
  hasSettled,
  POD_IDENTITY_AGENT_ADDON,
  roleRefOfArn,
} from './change.ts';
export {
  assessSince,
  assessSnapshot,
  dedupeFindings,
  diffSnapshots,
  type EvaluateOptions,
  predictEvent,
  whatIf,
} from './engine.ts';
export type { SimulationEffect } from './simulate.ts';
