/**
 * The steps a plan translates to (translate.ts, translate-workload-identity.ts) and what the
 * translators share while they work: the types alone, so that the two translators and the
 * step simulation (preapply/simulate-steps.ts) depend on them, not on each other.
 */
import type { Change } from '../predict/change.ts';
import type { ResourceChange } from './schema.ts';

/** Which cluster a step concerns. */
export type StepCluster =
  /** The plan names it (`cluster_name`, or the cluster's `name`). */
  | { kind: 'named'; name: string }
  /** Every cluster (an IAM role is account-wide). */
  | { kind: 'every' }
  /** The resource does not say (the Kubernetes provider's ConfigMap): matched by module or by being the only one. */
  | { kind: 'unnamed' };

export type StepAction =
  | { kind: 'change'; change: Change }
  | {
      kind: 'aws-auth';
      /** `whole`: the ConfigMap is replaced by `data`; `keys`: only these keys are written (`_v1_data`). */
      scope: 'whole' | 'keys';
      /** null: the ConfigMap is deleted. Keys whose new value is unknown are left as they are. */
      data: Record<string, string> | null;
      /** Keys `_v1_data` stops managing (removed from the ConfigMap). */
      removedKeys: string[];
      manager: string;
      /** `_v1_data` without `force = true`: the apply conflicts with another manager's keys. */
      force: boolean;
    }
  | { kind: 'role-replaced'; oldArn: string; newArn: string | undefined; deleted: boolean }
  | CreatedAction;

export interface PlanStep {
  address: string;
  moduleAddress?: string;
  cluster: StepCluster;
  phase: number;
  /** The half of a replace this step is, with the replace's action order. */
  half?: 'delete' | 'create';
  replaceOrder?: 'delete-first' | 'create-first';
  action: StepAction;
}

/** A value the plan knows only after apply, and what of the simulation it leaves open. */
export interface PlanUnknown {
  address: string;
  cluster: StepCluster;
  moduleAddress?: string;
  what: string;
}

export interface TranslatedPlan {
  steps: PlanStep[];
  unknowns: PlanUnknown[];
  /** Facts about the plan worth saying (a cluster deleted, a conflict, an incomplete plan). */
  notes: { address: string; text: string; cluster?: string }[];
}

/** Creations no `Change` kind covers: the second half of a replace, or a plan that adds them. */
export type CreatedAction =
  | { kind: 'addon-created'; addonName: string; version?: string }
  | { kind: 'oidc-provider-created'; arn: string; url: string };

export interface Ctx {
  rc: ResourceChange;
  /** Every resource change of the plan (a policy attachment looks up its policy's document). */
  changes: readonly ResourceChange[];
  out: TranslatedPlan;
  base: Pick<PlanStep, 'address' | 'moduleAddress'>;
}
