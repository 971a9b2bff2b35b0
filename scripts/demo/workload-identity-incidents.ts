/**
 * The demo's workload-identity incidents:
 *
 *   g  an IaC apply rewrites a Pod Identity role's trust policy (UpdateAssumeRolePolicy without
 *      pods.eks.amazonaws.com): the IAM record reaches onEksEvent (IAM records arrive in
 *      us-east-1), the monitor alerts with the trust statement to restore before the pods' next
 *      credential refresh fails;
 *   h  a blue/green move: green is created with a new OIDC issuer while the IRSA role trusts only
 *      blue's; the next scheduled run alerts on green and `compare --from-cluster blue
 *      --to-cluster green` lists what fails on green and the Pod Identity plan, before green's
 *      pods first ask for credentials.
 */
import { UpdateAssumeRolePolicyCommand } from '@aws-sdk/client-iam';
import { loadScenarioSnapshot, type Scenario } from './scenario.ts';

/** What the shared Terraform module writes when its `trusted_services` default applies. */
const MODULE_DEFAULT_TRUST = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});

/**
 * The lines of `compare`'s text output worth a timeline: its header, each finding's severity,
 * rule and title, and the IRSA → Pod Identity plan up to its Terraform (the AWS CLI of the plan).
 */
export function compareHighlights(lines: string[]): string[] {
  const out: string[] = [];
  const text = lines.map((l) => l.trimEnd());
  out.push(...text.filter((l) => l.trim() !== '').slice(0, 2));
  text.forEach((line, i) => {
    if (!/^(CRITICAL|HIGH|MEDIUM|LOW) {2}\S+\/\S+$/.test(line)) return;
    out.push(line);
    for (let j = i + 1; j < text.length && !/^\s+cluster\s/.test(text[j] ?? ''); j++) out.push(text[j] ?? '');
  });
  const plan = text.indexOf('IRSA → Pod Identity plan');
  if (plan >= 0) {
    const end = text.findIndex((l, i) => i > plan && l.trim() === 'Terraform:');
    out.push(
      ...text
        .slice(plan, end < 0 ? undefined : end)
        .filter((l) => l.trim() !== '' && !/^\s*--- (sh|end) ---$/.test(l)),
    );
  }
  return out;
}

export const WORKLOAD_IDENTITY_SCENARIOS: Scenario[] = [
  {
    id: 'g',
    file: 'workload-identity/wi-healthy-pod-identity',
    title: "An IaC apply rewrites a Pod Identity role's trust policy without pods.eks.amazonaws.com",
    credentialRefreshDelayMs: 6_000,
    sandboxNote: 'pods ask for fresh AWS credentials 6 s after a change they depend on',
    async act(ctx) {
      ctx.note(
        'terraform apply  iam:UpdateAssumeRolePolicy role=payments-api (AWS SDK IAMClient): the module default trust, pods.eks.amazonaws.com dropped',
        [`    │ ${MODULE_DEFAULT_TRUST}`],
      );
      await ctx.iam.send(
        new UpdateAssumeRolePolicyCommand({ RoleName: 'payments-api', PolicyDocument: MODULE_DEFAULT_TRUST }),
      );
      await ctx.deliverCloudTrail();
    },
    damage: /: pod identity \S+: credential refresh failed/,
    damageLabel: "the pods' next credential refresh failed",
    severity: 'high',
  },
  {
    id: 'h',
    file: 'workload-identity/wi-blue',
    title: 'A blue/green move: green gets a new OIDC issuer while the IRSA role trusts only blue',
    credentialRefreshDelayMs: 12_000,
    sandboxNote:
      "green's workloads start (Argo CD's first sync) and ask for credentials 12 s after it is created",
    async act(ctx) {
      ctx.note(
        "terraform apply  creates cluster green (new OIDC issuer …/id/GREEN and its IAM OIDC provider); role payments-api-irsa still trusts blue's issuer only",
      );
      await ctx.sandbox.addCluster({ snapshot: loadScenarioSnapshot('workload-identity/wi-green') });
      await ctx.scheduledRun('next scheduled run: the scheduler lists blue and green');
      await ctx.cli(
        'eks-auth-sentinel compare --from-cluster blue --to-cluster green',
        ['compare', '--from-cluster', 'blue', '--to-cluster', 'green'],
        compareHighlights,
      );
    },
    damage: /^green: IRSA \S+: AssumeRoleWithWebIdentity failed/,
    damageLabel: "green's pods first asked for credentials",
    severity: 'high',
  },
];
