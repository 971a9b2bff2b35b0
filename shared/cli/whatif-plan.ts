/**
 * `whatif --terraform-plan PLAN.json` and `whatif --aws-auth FILE`: the checks before apply.
 * Loaded only when one of them runs. The plan is validated (exit 2 with the JSON path of the
 * problem), matched to the clusters by its `cluster_name` (from --snapshot, or read live), and
 * each cluster's changes are simulated together; a plan that changes nothing authentication
 * depends on says so and exits 0.
 */
import type { ClusterRef, ClusterSnapshot, Finding } from '../core/model.ts';
import {
  planClusterNames,
  proposalIssues,
  readAwsAuthProposal,
  simulateSteps,
  validatePlan,
  whatIfTerraformPlan,
} from '../core/plan/index.ts';
import type { SimulationEffect } from '../core/predict/index.ts';
import { renderFindings, toJsonReport } from '../core/render/index.ts';
import type { ParsedArgs } from './args.ts';
import { CliError } from './errors.ts';
import { inputName, loadSnapshot, parseJsonText, readInput } from './inputs.ts';
import type { CliIo } from './io.ts';
import { obtainSnapshot } from './live.ts';
import { clusterOf, EXIT, exitFor, renderOptions, stamped, toolInfo } from './output.ts';
import { readVersion } from './version.ts';

type PlanArgs = Extract<ParsedArgs, { kind: 'whatif-plan' }>;
type AwsAuthArgs = Extract<ParsedArgs, { kind: 'whatif-aws-auth' }>;

export const NOTHING_RELEVANT = 'nothing auth-relevant in this plan';

/** `, 1 more UNKNOWN until apply (not simulated)`: the changes the step count leaves out. */
function unknownLabel(effects: readonly SimulationEffect[]): string {
  const n = effects.filter((e) => e.unknown === true).length;
  return n === 0 ? '' : `, ${n} more UNKNOWN until apply (not simulated)`;
}

interface Section {
  cluster: ClusterRef;
  change: string;
  findings: Finding[];
  effects: SimulationEffect[];
}

function renderSections(io: CliIo, args: PlanArgs | AwsAuthArgs, title: string, sections: Section[]): string {
  return sections
    .map((s) =>
      renderFindings(
        args.format,
        s.findings,
        renderOptions(io, args, { title, cluster: s.cluster, change: s.change, effects: s.effects }),
      ).trimEnd(),
    )
    .join(args.format === 'markdown' ? '\n\n' : '\n\n');
}

async function loadPlan(io: CliIo, path: string) {
  const value = parseJsonText(await readInput(io, path), path);
  const v = validatePlan(value);
  if (!v.ok)
    throw new CliError(`not a usable Terraform plan: ${v.error}`, { where: `${inputName(path)}, ${v.path}` });
  return v.plan;
}

async function planSnapshots(io: CliIo, args: PlanArgs, names: string[]): Promise<ClusterSnapshot[]> {
  const { source } = args;
  if (source.kind === 'file') return [await loadSnapshot(io, source.path)];
  const clusters = source.clusterNames ?? names;
  if (clusters.length === 0) {
    throw new CliError('the plan names no cluster (cluster_name) to read: give --cluster NAME', {
      where: inputName(args.plan),
    });
  }
  const out: ClusterSnapshot[] = [];
  for (const clusterName of clusters) {
    out.push((await obtainSnapshot(io, { kind: 'live', clusterName, region: source.region })).snapshot);
  }
  return out;
}

export async function runWhatIfPlan(args: PlanArgs, io: CliIo): Promise<number> {
  const plan = await loadPlan(io, args.plan);
  const tool = toolInfo(await readVersion(io));
  const names = planClusterNames(plan);
  const probe = whatIfTerraformPlan(plan, []);
  if (!probe.relevant) {
    io.stdout(
      args.format === 'json'
        ? stamped('json', JSON.stringify({ relevant: false, message: NOTHING_RELEVANT, clusters: [] }), tool)
        : `${args.format === 'markdown' ? '## Terraform plan: ' : ''}${NOTHING_RELEVANT} (${plan.resourceChanges.length} resource change(s) read)\n`,
    );
    return EXIT.ok;
  }
  const snapshots = await planSnapshots(io, args, names);
  const result = whatIfTerraformPlan(plan, snapshots);
  const sections: Section[] = result.clusters.map((c) => ({
    cluster: c.cluster,
    change: `${inputName(args.plan)}: ${c.steps} auth-relevant change(s)${unknownLabel(c.effects)}`,
    findings: c.findings,
    effects: c.effects,
  }));
  const findings = sections.flatMap((s) => s.findings);
  const unchecked = result.unmatched.map(
    (u) => `not checked: changes to cluster ${u.cluster} (no snapshot of it): ${u.addresses.join(', ')}`,
  );
  const lines = [...result.notes, ...unchecked];
  if (args.format === 'json') {
    const body = {
      relevant: true,
      plan: {
        file: inputName(args.plan),
        formatVersion: plan.formatVersion,
        terraformVersion: plan.terraformVersion ?? null,
      },
      clusters: sections.map((s) =>
        toJsonReport(s.findings, { cluster: s.cluster, change: s.change, effects: s.effects }),
      ),
      unchecked: result.unmatched,
      notes: result.notes,
    };
    io.stdout(stamped('json', JSON.stringify(body), tool));
  } else {
    const head = args.format === 'markdown' ? lines.map((l) => `> ${l}`) : lines;
    const text = [renderSections(io, args, 'Terraform plan', sections), ...head]
      .filter((x) => x !== '')
      .join('\n\n');
    io.stdout(stamped(args.format, text, tool));
  }
  for (const line of unchecked) io.stderr(`eks-auth-sentinel: ${line}\n`);
  const code = exitFor(findings, args.failOn ?? 'critical');
  // A change that could not be checked must not pass as clean.
  return code === EXIT.ok && unchecked.length > 0 ? EXIT.usage : code;
}

export async function runWhatIfAwsAuth(args: AwsAuthArgs, io: CliIo): Promise<number> {
  const text = await readInput(io, args.file);
  const proposal = readAwsAuthProposal(text);
  if (!proposal.ok) {
    throw new CliError(`not a usable aws-auth: ${proposal.error}`, {
      where:
        proposal.line === undefined ? inputName(args.file) : `${inputName(args.file)}, line ${proposal.line}`,
    });
  }
  const { snapshot } = await obtainSnapshot(io, args.source);
  const result = simulateSteps(
    snapshot,
    [
      {
        action: {
          kind: 'aws-auth',
          scope: proposal.form === 'manifest' ? 'whole' : 'keys',
          data: proposal.data,
          removedKeys: [],
          manager: 'kubectl-client-side-apply',
          force: true,
        },
      },
    ],
    proposal.lineOf,
  );
  const effects = [
    ...proposalIssues(proposal.data, proposal.lineOf, inputName(args.file)),
    ...result.effects,
  ];
  const section: Section = {
    cluster: clusterOf(snapshot),
    change: `apply ${inputName(args.file)} as kube-system/aws-auth${proposal.form === 'mapRoles' ? ' mapRoles' : ''}`,
    findings: result.findings,
    effects,
  };
  const tool = toolInfo(await readVersion(io));
  io.stdout(
    args.format === 'json'
      ? stamped(
          'json',
          JSON.stringify(
            toJsonReport(section.findings, { cluster: section.cluster, change: section.change, effects }),
          ),
          tool,
        )
      : stamped(args.format, renderSections(io, args, 'Proposed aws-auth', [section]), tool),
  );
  return exitFor(section.findings, args.failOn ?? 'critical');
}
