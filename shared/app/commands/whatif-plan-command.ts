/**
 * Use case of `whatif --terraform-plan PLAN.json`: the check before apply. The plan is validated
 * (exit 2 with the JSON path of the problem) and translated once; its auth-relevant changes are
 * matched to the clusters by their `cluster_name` (one snapshot file, or each cluster read live)
 * and each cluster's changes are simulated together. A plan that changes nothing authentication
 * depends on says so and exits 0; a change that could not be checked must not pass as clean.
 */
import type { ClusterSnapshot } from '../../core/model.ts';
import {
  isAuthRelevant,
  type TerraformPlan,
  translatedClusterNames,
  translatePlan,
  validatePlan,
  whatIfTranslatedPlan,
} from '../../core/plan/index.ts';
import type { SimulationEffect } from '../../core/predict/index.ts';
import type { CommandResult, FindingsSection } from '../../core/render/index.ts';
import { CommandInputError } from '../errors.ts';
import { type CommandPorts, obtainSnapshot } from './command-inputs.ts';

/** Where `whatif --terraform-plan` reads the clusters: one snapshot, or live (the plan's clusters by default). */
export type PlanSnapshotSource =
  | { kind: 'file'; path: string }
  | { kind: 'live'; clusterNames: string[] | undefined; region: string };

/** `, 1 more UNKNOWN until apply (not simulated)`: the changes the step count leaves out. */
function unknownLabel(effects: readonly SimulationEffect[]): string {
  const n = effects.filter((e) => e.unknown === true).length;
  return n === 0 ? '' : `, ${n} more UNKNOWN until apply (not simulated)`;
}

async function loadPlan(ports: CommandPorts, path: string): Promise<TerraformPlan> {
  const v = validatePlan(await ports.files.loadJson(path));
  if (!v.ok)
    throw new CommandInputError(`not a usable Terraform plan: ${v.error}`, {
      where: `${ports.files.nameOf(path)}, ${v.path}`,
    });
  return v.plan;
}

async function planSnapshots(
  ports: CommandPorts,
  input: { plan: string; source: PlanSnapshotSource },
  names: string[],
): Promise<ClusterSnapshot[]> {
  const { source } = input;
  if (source.kind === 'file') return [await ports.files.loadSnapshot(source.path)];
  const clusters = source.clusterNames ?? names;
  if (clusters.length === 0) {
    throw new CommandInputError('the plan names no cluster (cluster_name) to read: give --cluster NAME', {
      where: ports.files.nameOf(input.plan),
    });
  }
  const out: ClusterSnapshot[] = [];
  for (const clusterName of clusters) {
    out.push((await obtainSnapshot(ports, { kind: 'live', clusterName, region: source.region })).snapshot);
  }
  return out;
}

export async function whatIfPlanCommand(
  ports: CommandPorts,
  input: { plan: string; source: PlanSnapshotSource },
): Promise<CommandResult> {
  const plan = await loadPlan(ports, input.plan);
  const translated = translatePlan(plan.resourceChanges);
  if (!isAuthRelevant(translated)) {
    return {
      kind: 'plan-irrelevant',
      resourceChanges: plan.resourceChanges.length,
      exit: { severities: [], failOnDefault: 'critical' },
    };
  }
  const snapshots = await planSnapshots(ports, input, translatedClusterNames(translated));
  const result = whatIfTranslatedPlan(plan, translated, snapshots);
  const file = ports.files.nameOf(input.plan);
  const sections: FindingsSection[] = result.clusters.map((c) => ({
    title: 'Terraform plan',
    cluster: c.cluster,
    change: `${file}: ${c.steps} auth-relevant change(s)${unknownLabel(c.effects)}`,
    findings: c.findings,
    effects: c.effects,
  }));
  return {
    kind: 'plan',
    plan: { file, formatVersion: plan.formatVersion, terraformVersion: plan.terraformVersion ?? null },
    sections,
    unchecked: result.unmatched,
    notes: result.notes,
    exit: {
      severities: sections.flatMap((s) => s.findings.map((f) => f.severity)),
      failOnDefault: 'critical',
      ...(result.unmatched.length > 0 ? { incomplete: 'after' as const } : {}),
    },
  };
}
