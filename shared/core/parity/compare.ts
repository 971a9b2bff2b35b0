/**
 * `compare`'s result: the parity findings of `to` against `from`, the whole fix as one block per
 * language, and the IRSA → Pod Identity plan for the target. Pure.
 */

import { dedupeFixCommands } from '../fixes/dedupe.ts';
import { renderFix } from '../fixes/remediation.ts';
import type { ClusterSnapshot, Finding, Remediation } from '../model.ts';
import { analyzeSnapshot } from '../predict/analysis.ts';
import { compareSnapshots, type EvaluateOptions } from '../predict/engine.ts';
import { type MigrationStep, podIdentityPlan, workloadUses } from './access-parity.ts';

export interface CompareResult {
  findings: Finding[];
  /** Every finding's fix in one AWS CLI / Terraform / aws-auth block; undefined when nothing to fix. */
  fixAll?: Remediation;
  /** Every IRSA service account of the source, moved to Pod Identity on the target. */
  podIdentityPlan?: { steps: MigrationStep[]; remediation: Remediation };
}

function joined(findings: readonly Finding[], field: 'awsCli' | 'terraform' | 'awsAuthYaml', sep: string) {
  const parts = findings.flatMap((f) => {
    const code = f.remediation?.[field];
    return code === undefined || code.trim() === '' ? [] : [code.trimEnd()];
  });
  return parts.length === 0 ? undefined : parts.join(sep);
}

/** The findings' fixes as one block per language, in the findings' order (most severe first). */
export function fixAllOf(findings: readonly Finding[], target: string): Remediation | undefined {
  const awsCli = joined(findings, 'awsCli', '\n');
  // whole files only (each validates alone; identical ones once): a fragment belongs to a block
  // of the user's own configuration and stays in its finding's fix
  const wholeFiles = findings.filter((f) => f.remediation?.terraformFragmentOf === undefined);
  const terraform = joined(
    wholeFiles.filter(
      (f, i) => wholeFiles.findIndex((g) => g.remediation?.terraform === f.remediation?.terraform) === i,
    ),
    'terraform',
    '\n\n',
  );
  const awsAuthYaml = joined(findings, 'awsAuthYaml', '');
  if (!awsCli && !terraform && !awsAuthYaml) return undefined;
  const fragments = findings.length - wholeFiles.length;
  const notes = [
    ...new Set([
      ...findings.flatMap((f) => f.remediation?.notes ?? []),
      ...(fragments > 0
        ? [
            `${fragments} Terraform fragment(s) to add to existing configuration are in their findings' fixes, not in this block.`,
          ]
        : []),
    ]),
  ];
  return {
    summary: `Apply on ${target} before traffic moves: ${findings.length} finding(s), their fixes in one block.`,
    ...(awsCli ? { awsCli } : {}),
    ...(terraform ? { terraform } : {}),
    ...(awsAuthYaml ? { awsAuthYaml } : {}),
    ...(notes.length ? { notes } : {}),
  };
}

export function compareClusters(
  from: ClusterSnapshot,
  to: ClusterSnapshot,
  options: EvaluateOptions = {},
): CompareResult {
  const findings = dedupeFixCommands(compareSnapshots(from, to, options));
  const fixAll = fixAllOf(findings, to.clusterName);
  const source = analyzeSnapshot(from);
  const plan = podIdentityPlan(analyzeSnapshot(to), workloadUses(source), source);
  return {
    findings,
    ...(fixAll ? { fixAll } : {}),
    ...(plan
      ? { podIdentityPlan: { steps: plan.steps, remediation: renderFix(plan.fix, { region: to.region }) } }
      : {}),
  };
}

/** The IRSA → Pod Identity plan of one cluster, for `report`. */
export function podIdentityPlanOf(s: ClusterSnapshot): CompareResult['podIdentityPlan'] {
  const a = analyzeSnapshot(s);
  const plan = podIdentityPlan(a, workloadUses(a));
  return plan && { steps: plan.steps, remediation: renderFix(plan.fix, { region: s.region }) };
}
