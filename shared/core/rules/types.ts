import type { FixPlan } from '../fixes/remediation.ts';
import type { Actor, BlastRadius, Severity } from '../model.ts';
import type { Analysis } from '../predict/analysis.ts';
import type { Change } from '../predict/change.ts';

export interface RuleContext {
  /** The state evaluated: the snapshot, or the simulated state after a change. */
  current: Analysis;
  /** The earlier state: the previous snapshot (diff), the state before the change (what-if), or the source cluster (compare). */
  previous?: Analysis;
  change?: Change;
  /** The monitor's own IAM principal, so a change that blinds it is caught. */
  monitorPrincipalArn?: string;
}

/** A finding before the engine adds cluster, trigger and fingerprint. */
export interface FindingDraft {
  severity: Severity;
  subject: string;
  title: string;
  detail: string;
  evidence: Record<string, unknown>;
  blastRadius?: BlastRadius;
  /** The fix as structured values: the engine writes its code blocks (`renderFix`), never a rule. */
  remediation?: FixPlan;
  /** Who made the change (e.g. aws-auth's last managedFields writer); not fingerprinted. */
  actor?: Actor;
  /** Extra identity for the fingerprint beyond rule, cluster and subject (e.g. the data key). */
  fingerprintKey?: string;
}

export type RuleKind =
  /** Evaluated on one state. */
  | 'state'
  /** Needs a previous state (diff, what-if). */
  | 'transition'
  /** Needs a change (event, what-if). */
  | 'change'
  /** Compares two clusters (`compare`): `previous` is the source, `current` the target. */
  | 'parity';

export interface Rule {
  id: string;
  /** The catalog severity (the most a finding of this rule carries). */
  severity: Severity;
  /** When the rule runs: on a state, on a transition between two states, on a change. */
  kinds: readonly RuleKind[];
  /**
   * For a change rule: the state rules whose findings are the damage it predicts. When one of them
   * opens on the same subject while the prediction is open, the prediction came true: that notice
   * says "confirmed", and the prediction closes without a "resolved" (alerts.ts).
   */
  confirmedBy?: readonly string[];
  /**
   * For a change rule: the change itself is the damage, which no later state shows (a deleted
   * entry is simply absent). Once the change has settled the prediction came true: it closes
   * without a "resolved" (alerts.ts).
   */
  settledIsDamage?: true;
  title: string;
  meaning: string;
  fix: string;
  evaluate(ctx: RuleContext): FindingDraft[];
}
