/**
 * What each CLI command's use case (shared/app/commands/) returns and the renderer
 * (command-output.ts) turns into text, Markdown, JSON or HTML: plain data, so that a use case never
 * renders and a renderer never decides what was found. Every result says what `--fail-on` looks at
 * and whether something could not be read or checked (`exit`).
 */

import type { MigrationPlan } from '../migrate/migration-plan.ts';
import type { Actor, ClusterRef, ClusterSnapshot, Finding, Remediation, Severity } from '../model.ts';
import type { MigrationStep } from '../parity/access-parity.ts';
import type { Change } from '../predict/change.ts';
import type { SimulationEffect } from '../predict/simulate.ts';

/** What the exit code is made of; the CLI adds the user's `--fail-on`. */
export interface ExitIntent {
  /** The severities `--fail-on` looks at (a migration blocker counts as critical). */
  severities: readonly Severity[];
  /** The threshold without `--fail-on`: `none` never fails on findings. */
  failOnDefault: Severity | 'none';
  /**
   * Something could not be read or checked: exit 2 unless the findings already fail (`after`), or
   * whatever the findings say (`before`: the demo, where a missing scenario is the first thing to fix).
   */
  incomplete?: 'before' | 'after';
}

/** One block of findings: a title, the cluster, and for a what-if the change and its effects. */
export interface FindingsSection {
  title: string;
  cluster: ClusterRef;
  findings: Finding[];
  change?: string;
  effects?: SimulationEffect[];
  /** Who made the replayed change (`whatif --event`), when the event names anyone. */
  actor?: Actor;
}

/** One simulated change of a report or the demo. */
export interface WhatIfReport {
  change: Change;
  label: string;
  effects: SimulationEffect[];
  findings: Finding[];
}

/** The state findings of one snapshot and its what-ifs. */
export interface AssessedCluster {
  findings: Finding[];
  whatIf: WhatIfReport[];
}

/** A cluster or Region that could not be read at all. */
export interface Unreadable {
  region: string;
  clusterName?: string;
  error: string;
}

/** A fix that is advice, not alarm: IRSA → Pod Identity for the workloads that use IRSA. */
export interface PodIdentityPlan {
  steps: MigrationStep[];
  remediation: Remediation;
}

export interface ReportedCluster extends AssessedCluster {
  snapshot: ClusterSnapshot;
  podIdentityPlan?: PodIdentityPlan;
}

export interface DemoScenario extends AssessedCluster {
  name: string;
  file: string;
  cluster: ClusterRef;
}

/** A scenario of the demo: assessed, or a file that could not be read (one line on stderr). */
export type DemoEntry =
  | ({ ok: true } & DemoScenario)
  | { ok: false; name: string; file: string; message: string; where?: string };

/** A catalog row of the `rules` command. */
export interface CatalogRule {
  id: string;
  severity: Severity;
  title: string;
  meaning: string;
  fix: string;
}

export type CommandResult =
  /** `assess`, `diff`, `whatif`: one section of findings. */
  | { kind: 'findings'; section: FindingsSection; exit: ExitIntent }
  /** `whatif --event` with an event that changes nothing authentication depends on. */
  | { kind: 'event-ignored'; reason: string; exit: ExitIntent }
  | {
      kind: 'compare';
      section: FindingsSection;
      from: ClusterRef;
      fixAll?: Remediation;
      podIdentityPlan?: PodIdentityPlan;
      exit: ExitIntent;
    }
  /** `whatif --terraform-plan` with a plan that changes nothing authentication depends on. */
  | { kind: 'plan-irrelevant'; resourceChanges: number; exit: ExitIntent }
  | {
      kind: 'plan';
      plan: { file: string; formatVersion: string; terraformVersion: string | null };
      sections: FindingsSection[];
      /** Changes to clusters no snapshot was given for: said on stderr too, and exit 2. */
      unchecked: { cluster: string; addresses: string[] }[];
      notes: string[];
      exit: ExitIntent;
    }
  /** `whatif --aws-auth FILE`. */
  | { kind: 'aws-auth'; section: FindingsSection; exit: ExitIntent }
  | { kind: 'migrate'; plan: MigrationPlan; exit: ExitIntent }
  /** `snapshot --out -`: the snapshot itself. */
  | { kind: 'snapshot-document'; snapshot: ClusterSnapshot; exit: ExitIntent }
  | {
      kind: 'snapshots-written';
      written: { cluster: string; region: string; path: string }[];
      unreadable: Unreadable[];
      exit: ExitIntent;
    }
  | {
      kind: 'report';
      regions: string[];
      clusters: ReportedCluster[];
      unreadable: Unreadable[];
      exit: ExitIntent;
    }
  | { kind: 'demo'; scenarios: DemoEntry[]; exit: ExitIntent }
  | { kind: 'rules'; rules: CatalogRule[]; exit: ExitIntent };

/** The severities of every finding of an assessment and of its what-ifs. */
export function severitiesOf(assessed: readonly AssessedCluster[]): Severity[] {
  return assessed.flatMap((a) => [
    ...a.findings.map((f) => f.severity),
    ...a.whatIf.flatMap((w) => w.findings.map((f) => f.severity)),
  ]);
}
