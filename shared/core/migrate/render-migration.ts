/**
 * The migration plan (`migrate.ts`) as the user reads or pastes it: text, JSON, Terraform
 * (a whole file of `aws_eks_access_entry` + `aws_eks_access_policy_association`, the
 * terraform-aws-eks `access_entries` input commented out: `terraform-access-entries.ts`) and an
 * AWS CLI script. Every principal ARN, username, group and namespace is attacker-written (it comes from aws-auth or access entries): code goes
 * through the quoting layer of its language (`quote/hcl.ts`, `quote/shell.ts`, `quote/json.ts`),
 * text through `sanitize`.
 */

import {
  authModeCommand,
  eksCommand,
  modeSwitchScript,
  str,
  uniqueTerraformNames,
} from '../fixes/remediation.ts';
import { accessEntriesFile } from '../fixes/terraform-access-entries.ts';
import { type HclItem, renderHcl } from '../quote/hcl.ts';
import { jsonText } from '../quote/json.ts';
import type { Rendered } from '../quote/rendered.ts';
import { CONTINUE, renderShellScript, type ShellLine, type ShellWord } from '../quote/shell.ts';
import { oneLine } from '../render/layout.ts';
import type { MigrationPlan } from './migration-plan.ts';

/** The JSON plan: `{cluster, steps[], accessEntries[], blockers[]}` and nothing else. */
export function migrationJson(plan: MigrationPlan): string {
  const { cluster, steps, accessEntries, blockers } = plan;
  return jsonText({ cluster, steps, accessEntries, blockers }, 2);
}

function policyName(arn: string): string {
  return arn.split('/').pop() ?? arn;
}

function scopeText(scope: { type: string; namespaces?: string[] }): string {
  return scope.type === 'namespace' ? `namespaces ${(scope.namespaces ?? []).join(', ')}` : scope.type;
}

export function migrationText(plan: MigrationPlan): string {
  const c = plan.cluster;
  const lines = [
    `Migration plan from aws-auth to access entries: cluster ${oneLine(c.name)} (account ${c.accountId}, region ${c.region})`,
    '',
    'Steps',
    ...plan.steps.map((s, i) => `  ${i + 1}. ${oneLine(s.summary)}`),
    '',
    `Access entries to create (${plan.accessEntries.length})`,
  ];
  for (const e of plan.accessEntries) {
    lines.push(`  ${oneLine(e.principalArn)}  ${e.type}`);
    if (e.username !== undefined) lines.push(`      username: ${oneLine(e.username)}`);
    if (e.kubernetesGroups !== undefined)
      lines.push(`      groups: ${e.kubernetesGroups.map(oneLine).join(', ')}`);
    for (const p of e.accessPolicies ?? [])
      lines.push(`      policy: ${oneLine(policyName(p.policyArn))} (${oneLine(scopeText(p.accessScope))})`);
  }
  if (plan.accessEntries.length === 0) lines.push('  none');
  lines.push('', `Blockers for API (${plan.blockers.length})`);
  for (const b of plan.blockers) lines.push(`  ${oneLine(b.subject)}: ${oneLine(b.reason)}`);
  if (plan.blockers.length === 0) lines.push('  none');
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Terraform

export function migrationTerraform(plan: MigrationPlan): Rendered {
  const names = uniqueTerraformNames(plan.accessEntries.map((e) => e.principalArn));
  const cluster = plan.cluster.name;
  const head: HclItem[] = [
    {
      comment: `aws-auth → access entries for cluster ${cluster}: apply after authentication_mode = "API_AND_CONFIG_MAP" (access_config of aws_eks_cluster), and before "API".`,
    },
    ...plan.blockers.map((b) => ({ comment: `BLOCKER ${b.subject}: ${b.reason}` })),
  ];
  const entries = plan.accessEntries.map((e, i) => ({ ...e, name: names[i] ?? `entry_${i + 1}` }));
  const r = renderHcl(accessEntriesFile(cluster, entries, head));
  return r.ok ? { ok: true, text: `${r.text}\n` } : r;
}

// ---------------------------------------------------------------------------------------------
// AWS CLI

function eks(plan: MigrationPlan, operation: string, ...words: ShellWord[]): ShellLine {
  return eksCommand(plan, operation, CONTINUE, ...words);
}

function modeSwitch(plan: MigrationPlan, mode: string): ShellLine[] {
  return modeSwitchScript(plan.cluster, mode);
}

export function migrationAwsCli(plan: MigrationPlan): Rendered {
  const script: ShellLine[] = [];
  for (const [i, step] of plan.steps.entries()) {
    script.push({ comment: `${i + 1}. ${step.summary}` });
    switch (step.action) {
      case 'set-authentication-mode':
        if (step.mode === 'API') {
          script.push({ comment: 'one-way: run it by hand once the verification is clean' });
          script.push(...modeSwitch(plan, 'API').map((l) => ({ comment: `  ${lineText(l)}` })));
        } else script.push(...modeSwitch(plan, step.mode ?? 'API_AND_CONFIG_MAP'));
        break;
      case 'replace-stale-access-entries':
        for (const arn of step.principalArns ?? [])
          script.push(eks(plan, 'delete-access-entry', { flag: '--principal-arn', value: arn }));
        break;
      case 'create-access-entries':
        for (const e of plan.accessEntries) {
          script.push(
            eks(
              plan,
              'create-access-entry',
              { flag: '--principal-arn', value: e.principalArn },
              { flag: '--type', value: e.type },
              ...(e.username === undefined ? [] : [{ flag: '--username', value: e.username }]),
              ...(e.kubernetesGroups === undefined
                ? []
                : [{ flag: '--kubernetes-groups', values: e.kubernetesGroups }]),
            ),
          );
          for (const p of e.accessPolicies ?? []) {
            script.push(
              eks(
                plan,
                'associate-access-policy',
                { flag: '--principal-arn', value: e.principalArn },
                { flag: '--policy-arn', value: p.policyArn },
                CONTINUE,
                { flag: '--access-scope', value: jsonText(p.accessScope) },
              ),
            );
          }
        }
        break;
      case 'verify':
        script.push({
          argv: [
            'eks-auth-sentinel',
            'whatif',
            { flag: '--cluster', value: plan.cluster.name },
            { flag: '--region', value: plan.cluster.region },
            '--auth-mode',
            'API',
          ],
        });
        break;
      case 'resolve-blockers':
        for (const b of plan.blockers) script.push({ comment: `BLOCKER ${b.subject}: ${b.reason}` });
        break;
    }
  }
  const r = renderShellScript(script);
  return r.ok ? { ok: true, text: `${r.text}\n` } : r;
}

/** A command as one comment line (the API switch is shown, not run). */
function lineText(l: ShellLine): string {
  const r = renderShellScript([l]);
  return r.ok ? r.text.replace(/ \\\n {2}/g, ' ') : '(not shown)';
}
