/**
 * Each remediation action — done, refused, or only "would do" in a dry run — is an alert of its
 * own. Its subject is the role it acted for, the subject of the finding that caused it, so the
 * Slack thread of that finding carries it (core/alerts `threadOfRecord` joins records by subject).
 * It reports what happened once (`evidence.basis: 'transition'`): the next scheduled evaluation
 * closes it without a "resolved" notice.
 *
 * The exact call is shown as the command that makes the same request (`aws eks
 * create-access-entry …`, `kubectl patch … -p '<the JSON body sent>'`), written through the shell
 * and JSON quoting layers: every value in it came from aws-auth or an access entry, so from anyone
 * who could write those.
 */
import { fingerprintOf } from '../fingerprint.ts';
import { nodeAccessRemediation, renderFix } from '../fixes/remediation.ts';
import type { ClusterRef, ClusterSnapshot, Finding, Remediation, Severity, Trigger } from '../model.ts';
import { analyzeSnapshot } from '../predict/analysis.ts';
import { jsonText } from '../quote/json.ts';
import { CONTINUE, renderShellScript, type ShellCommand } from '../quote/shell.ts';
import type { Dependants, RemediationAction } from './plan-actions.ts';

export const REMEDIATION_RULE_ID = 'remediation/action';

export const ACTION_RESULTS = [
  'done',
  'would-do',
  'already-present',
  'conflict',
  'forbidden',
  'failed',
] as const;
export type ActionResult = (typeof ACTION_RESULTS)[number];

/** The request an action makes (or, dry run, would make), exactly. */
export type ActionCall =
  | {
      service: 'eks';
      operation: 'CreateAccessEntry';
      input: { clusterName: string; principalArn: string; type: string };
      /** AssociateAccessPolicy calls that follow (Auto Mode's EC2 entry). */
      associate: string[];
    }
  | {
      service: 'kubernetes';
      method: 'PATCH';
      path: '/api/v1/namespaces/kube-system/configmaps/aws-auth';
      contentType: 'application/merge-patch+json';
      /** The merge patch: the resourceVersion it was planned on (a precondition) and the new mapRoles. */
      body: { metadata: { resourceVersion: string }; data: { mapRoles: string } };
    };

export interface ActionOutcome {
  action: RemediationAction;
  result: ActionResult;
  /** What happened, in a sentence (an error's safe message, the missing permission…). */
  detail: string;
  /** The request made or that would be made; absent when none could be formed. */
  call?: ActionCall;
  dryRun: boolean;
}

const SEVERITY: Record<ActionResult, Severity> = {
  done: 'high',
  'would-do': 'high',
  'already-present': 'medium',
  conflict: 'high',
  forbidden: 'critical',
  failed: 'critical',
};

/** The call as a command line that makes the same request. */
export function callCommand(call: ActionCall, cluster: ClusterRef): ShellCommand[] {
  if (call.service === 'eks') {
    const base: ShellCommand = {
      argv: [
        'aws',
        'eks',
        'create-access-entry',
        { flag: '--cluster-name', value: call.input.clusterName },
        { flag: '--region', value: cluster.region },
        CONTINUE,
        { flag: '--principal-arn', value: call.input.principalArn },
        { flag: '--type', value: call.input.type },
      ],
    };
    return [
      base,
      ...call.associate.map(
        (policyArn): ShellCommand => ({
          argv: [
            'aws',
            'eks',
            'associate-access-policy',
            { flag: '--cluster-name', value: call.input.clusterName },
            { flag: '--region', value: cluster.region },
            CONTINUE,
            { flag: '--principal-arn', value: call.input.principalArn },
            { flag: '--policy-arn', value: policyArn },
            { flag: '--access-scope', value: 'type=cluster' },
          ],
        }),
      ),
    ];
  }
  return [
    {
      argv: [
        'kubectl',
        'patch',
        'configmap/aws-auth',
        '-n',
        'kube-system',
        '--type',
        'merge',
        CONTINUE,
        '-p',
        jsonText(call.body),
      ],
    },
  ];
}

function dependantsText(d: Dependants): string {
  const parts: string[] = [];
  if (d.nodes > 0)
    parts.push(
      `${d.nodes} node${d.nodes === 1 ? '' : 's'}${d.nodeNames.length > 0 ? ` (${d.nodeNames.join(', ')}${d.nodes > d.nodeNames.length ? ', …' : ''})` : ''}`,
    );
  if (d.nodegroups.length > 0) parts.push(`node groups: ${d.nodegroups.join(', ')}`);
  if (d.nodeClasses.length > 0) parts.push(`node classes: ${d.nodeClasses.join(', ')}`);
  if (d.fargateProfiles.length > 0) parts.push(`Fargate profiles: ${d.fargateProfiles.join(', ')}`);
  return parts.join('; ');
}

function what(action: RemediationAction): string {
  return action.kind === 'create-access-entry'
    ? `create the ${action.type} access entry of ${action.principalArn}`
    : `restore ${action.entries.length} aws-auth entr${action.entries.length === 1 ? 'y' : 'ies'} of ${action.principalArn}`;
}

const TITLE: Record<ActionResult, string> = {
  done: 'Remediation done',
  'would-do': 'Remediation would do (dry run)',
  'already-present': 'Remediation not needed',
  conflict: 'Remediation lost a race',
  forbidden: 'Remediation forbidden',
  failed: 'Remediation failed',
};

/** The IaC change that keeps a restored entry (the tool that removed it removes it again otherwise). */
function iacFix(before: ClusterSnapshot, action: RemediationAction): Remediation | undefined {
  if (action.kind !== 'restore-aws-auth-entries' || action.iacOwner === undefined) return undefined;
  const a = analyzeSnapshot(before);
  const req =
    action.dependants.fargateProfiles.length > 0 && action.dependants.nodes === 0 ? 'fargate' : 'ec2-linux';
  const fix = renderFix(nodeAccessRemediation(a, action.principalArn, req), { region: before.region });
  return {
    ...fix,
    summary: `${action.iacOwner.manager} owned mapRoles before the removal: declare ${action.principalArn} in its configuration of aws-auth (or create an access entry), or its next apply removes the entry again.`,
  };
}

/** The alert of one action's outcome. */
export function actionFinding(
  before: ClusterSnapshot,
  outcome: ActionOutcome,
  context: { trigger: Trigger; triggerId: string },
): Finding {
  const cluster: ClusterRef = {
    accountId: before.accountId,
    region: before.region,
    name: before.clusterName,
  };
  const { action, result } = outcome;
  const commands =
    outcome.call === undefined ? undefined : renderShellScript(callCommand(outcome.call, cluster));
  const removedBy =
    action.kind === 'restore-aws-auth-entries' && action.iacOwner !== undefined
      ? ` The entries were last owned by ${action.iacOwner.manager}: it will remove them again at its next apply unless its configuration declares them.`
      : '';
  const iac = iacFix(before, action);
  const remediation: Remediation = {
    summary:
      iac?.summary ??
      (result === 'done' || result === 'already-present'
        ? 'Nothing to do now; keep the role authorized by an access entry so that the next edit cannot remove it.'
        : `The monitor did not ${what(action)}: run the call below yourself once it is safe.`),
    ...(commands?.ok ? { awsCli: commands.text } : {}),
    ...(iac?.terraform === undefined ? {} : { terraform: iac.terraform }),
    ...(iac?.awsAuthYaml === undefined ? {} : { awsAuthYaml: iac.awsAuthYaml }),
    notes: [
      `The call ${outcome.dryRun ? 'that would be made' : 'made'} (as the command that makes the same request).`,
      ...(commands !== undefined && !commands.ok ? [`The call is not shown: ${commands.reason}.`] : []),
    ],
  };
  return {
    ruleId: REMEDIATION_RULE_ID,
    severity: SEVERITY[result],
    cluster,
    subject: action.principalArn,
    title: `${TITLE[result]}: ${what(action)}`,
    detail: `${action.why}. Result: ${result} — ${outcome.detail}${removedBy} Depends on it: ${dependantsText(action.dependants)}.`,
    evidence: {
      basis: 'transition',
      action: action.kind,
      result,
      dryRun: outcome.dryRun,
      triggerId: context.triggerId,
      call: outcome.call ?? null,
    },
    remediation,
    trigger: context.trigger,
    fingerprint: fingerprintOf([
      REMEDIATION_RULE_ID,
      cluster.accountId,
      cluster.region,
      cluster.name,
      action.principalArn.toLowerCase(),
      action.kind,
      context.triggerId,
      result,
    ]),
  };
}
