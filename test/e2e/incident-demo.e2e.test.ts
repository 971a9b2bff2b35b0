/**
 * `npm start`, the incidents CloudTrail announces (a, d, e, g, h) and the hygiene edit f: exit 0,
 * and in the printed timeline the alert as Slack and SNS received it comes before the damage — or,
 * in d and f where the access is lost at the call or the edit itself, after it, timed from it and
 * never said to come before. The aws-auth edits b and c and the remediation runs are in
 * incident-demo-aws-auth.e2e.test.ts (two files, so that their runs go side by side).
 */
import { describe, expect, it } from 'vitest';
import { firstAt, timeline, useIncidentDemo } from '../support/incident-demo-run.ts';

const demo = useIncidentDemo();

describe('npm start: the incident demo, CloudTrail incidents and hygiene', () => {
  it('scenario a: the critical alert reaches Slack and SNS before the first node goes NotReady, exit 0', async () => {
    const { code, out } = await demo();
    expect(out).toContain('OK: the critical alert reached Slack');
    expect(code).toBe(0);
    const lines = timeline(out);
    const call = firstAt(lines, /^API call {2}eks:DeleteNodegroup/);
    const slack = firstAt(lines, /^Slack received/);
    const sns = firstAt(lines, /^SNS received/);
    const edit = firstAt(lines, /EKS removed .* aws-auth/);
    const notReady = firstAt(lines, /Ready=Unknown/);
    const followUp = firstAt(lines, /^snapshotWorker .*follow-up #1 of DeleteNodegroup/);
    expect(call).toBe(0);
    for (const t of [slack, sns, edit, notReady, followUp]) expect(Number.isFinite(t)).toBe(true);
    expect(slack).toBeLessThan(notReady);
    expect(sns).toBeLessThan(notReady);
    expect(edit).toBeLessThan(notReady);
    expect(followUp).toBeGreaterThan(notReady);
    // the clock is stated, and the world's delays with it
    expect(out).toContain("Clock: 5× faster than AWS's (--clock 5");
    expect(out).toContain('EKS edits aws-auth 30 s (6.0 s here) into a node group deletion');
    expect(out).toMatch(
      /^Lead time \(alert in Slack → the first node went NotReady\): \d+\.\d\d s on this 5× clock/m,
    );
    // What Slack received, rendered: what, who loses access, the fix as code.
    expect(out).toContain('CRITICAL · prod · Deleting node group general');
    expect(out).toMatch(/Who loses access.*3 nodes/);
    expect(out).toContain('--principal-arn arn:aws:iam::111122223333:role/prod-node-role --type EC2_LINUX');
    expect(out).toContain('Subject: [CRITICAL] prod eu-west-1: nodegroup/deletion-orphans-role');
    expect(out).toMatch(/attributes: severity=critical ruleId=nodegroup\/deletion-orphans-role cluster=prod/);
    // the counts it printed agree with the sandbox: 3 nodes lose access, 3 go NotReady (the 2
    // nodes terminated with the node group are gone, not NotReady)
    expect(out).toContain(
      'Counts agree: the alert said 3 node(s) lose access; the sandbox saw 3 go NotReady.',
    );
    expect(lines.filter(([, what]) => /Ready=Unknown/.test(what))).toHaveLength(3);
    // EKS's aws-auth edit has no CloudTrail record: the aws-auth check sees it and confirms the
    // predicted outage (before the follow-up, which comes after the damage)
    expect(out).toMatch(
      /awsAuthCheck {2}[^\n]*\n.*\n\s+→ confirmed \(the prediction came true, the damage stays open\) nodes\/role-unauthorized/,
    );
  });

  it('scenario e: the alert on the switch to API mode arrives before EKS applies it, exit 0', async () => {
    const { code, out } = await demo('--scenario', 'e');
    expect(out).toContain('OK: the critical alert reached Slack');
    expect(code).toBe(0);
    const lines = timeline(out);
    expect(firstAt(lines, /^Slack received/)).toBeLessThan(firstAt(lines, /authentication mode is now API/));
    expect(out).toContain('cluster/auth-mode-drops-principals');
    expect(out).toContain("--username 'developer:{{SessionName}}'");
    expect(out).toContain(
      'Counts agree: the alert said 1 aws-auth principal(s) lose access; the sandbox saw 1 lose it.',
    );
    // it ends with the damage still open and named, never "Resolved"
    expect(out).not.toMatch(/Resolved/);
    expect(out).toMatch(
      /CRITICAL \(confirmed\) · prod · prod runs in API mode: 1 principal\(s\) mapped only in aws-auth have lost access \(role developers\)/,
    );
    expect(out).toContain('Prediction confirmed: "Switching prod to API mode drops 1 aws-auth principal(s)"');
    const last = out.slice(out.lastIndexOf('Slack received'));
    expect(last).toContain('CRITICAL (confirmed)');
  });

  it("scenario g: the IAM record of a trust rewrite alerts with the trust to restore before the pods' credential refresh fails, exit 0", async () => {
    const { code, out } = await demo('--scenario', 'g');
    expect(out).toContain('OK: the high alert reached Slack');
    expect(code).toBe(0);
    const lines = timeline(out);
    const call = firstAt(lines, /^terraform apply {2}iam:UpdateAssumeRolePolicy role=payments-api/);
    const event = firstAt(
      lines,
      /^onEksEvent {2}EventBridge delivers CloudTrail UpdateAssumeRolePolicy \(IAM: recorded in us-east-1/,
    );
    const slack = firstAt(lines, /^Slack received/);
    const sns = firstAt(lines, /^SNS received/);
    const refresh = firstAt(lines, /prod: pod identity payments\/api: credential refresh failed/);
    expect(call).toBe(0);
    for (const t of [event, slack, sns, refresh]) expect(Number.isFinite(t)).toBe(true);
    expect(slack).toBeLessThan(refresh);
    expect(sns).toBeLessThan(refresh);
    expect(out).toContain('outcome=fanned-out clusters=prod(pod-identity/role-trust-missing)');
    expect(out).toContain('HIGH · prod · role payments-api does not trust pods.eks.amazonaws.com');
    // the fix: the trust statement to restore, as AWS CLI, Terraform and JSON
    expect(out).toContain('aws iam update-assume-role-policy --region eu-west-1 --role-name payments-api');
    expect(out).toContain('identifiers = ["pods.eks.amazonaws.com"]');
    expect(out).toMatch(/"Service": "pods\.eks\.amazonaws\.com"/);
    expect(out).toContain(
      'Counts agree: the alert said 1 Pod Identity service account(s) get no credentials; the sandbox saw 1 fail their credential refresh.',
    );
    // the follow-up after the damage resolves nothing: the alert stays open
    expect(out).not.toMatch(/Resolved|→ resolved/);
    expect(firstAt(lines, /^snapshotWorker .*follow-up #1 of UpdateAssumeRolePolicy/)).toBeGreaterThan(
      refresh,
    );
  });

  it("scenario h: green's alert and compare's plan come from the live sandbox; the alert precedes green's first failed AssumeRoleWithWebIdentity, exit 0", async () => {
    const { code, out } = await demo('--scenario', 'h');
    expect(out).toContain('OK: the high alert reached Slack');
    expect(code).toBe(0);
    const lines = timeline(out);
    const created = firstAt(lines, /^sandbox {2}green: cluster created/);
    const slack = firstAt(lines, /^Slack received/);
    const failed = firstAt(lines, /^sandbox {2}green: IRSA payments\/api: AssumeRoleWithWebIdentity failed/);
    for (const t of [created, slack, failed]) expect(Number.isFinite(t)).toBe(true);
    expect(slack).toBeLessThan(failed);
    expect(out).toContain('"clusters":["eu-west-1/blue","eu-west-1/green"]');
    expect(out).toContain(
      "HIGH · green · role payments-api-irsa does not trust this cluster's OIDC provider",
    );
    // compare lists exactly the seeded differences, and the plan
    expect(out).toMatch(
      /CLI {2}eks-auth-sentinel compare --from-cluster blue --to-cluster green\n\s+exit 1 after/,
    );
    expect(out).toContain('3 findings (1 critical, 2 high)');
    for (const rule of ['parity/access-missing', 'parity/access-differs', 'parity/workload-identity-missing'])
      expect(out).toContain(rule);
    expect(out).toContain('IRSA → Pod Identity plan');
    expect(out).toContain(
      'aws eks create-pod-identity-association --cluster-name green --region eu-west-1 --namespace payments --service-account api',
    );
    expect(out).toContain(
      'Counts agree: the alert said 1 IRSA service account(s) get no credentials; the sandbox saw 1 fail AssumeRoleWithWebIdentity.',
    );
    expect(out).not.toMatch(/Resolved/);
  });

  it("scenario d: the node role's access entry is deleted; the loss is the call, so the demo times the alert from the call and claims nothing before it, exit 0", async () => {
    const { code, out } = await demo('--scenario', 'd');
    expect(code).toBe(0);
    const lines = timeline(out);
    const call = firstAt(lines, /^API call {2}eks:DeleteAccessEntry cluster=prod/);
    const deleted = firstAt(lines, /^sandbox {2}prod: access entry \S+prod-node-role deleted$/);
    const event = firstAt(lines, /^onEksEvent {2}EventBridge delivers CloudTrail DeleteAccessEntry/);
    const slack = firstAt(lines, /^Slack received/);
    const sns = firstAt(lines, /^SNS received/);
    expect(call).toBe(0);
    for (const t of [deleted, event, slack, sns]) expect(Number.isFinite(t)).toBe(true);
    // The access is lost at the call: every alert comes after it, and the demo says so.
    expect(slack).toBeGreaterThan(deleted);
    expect(out).toMatch(
      /^OK: the node role's access was gone at the call \(EKS applies a deleted access entry at once\), T\+0\.00s, so no alert can come before the loss: the critical alert reached Slack \d+\.\d\d s and SNS \d+\.\d\d s after it\.$/m,
    );
    expect(out).not.toMatch(/reached Slack [\d.]+ s and SNS [\d.]+ s before/);
    expect(out).toContain('--principal-arn arn:aws:iam::111122223333:role/prod-node-role --type EC2_LINUX');
    expect(out).toContain(
      'Counts agree: the alert said 2 node(s) lose access; the sandbox saw 2 go NotReady.',
    );
    expect(out).not.toMatch(/Resolved/);
  });

  it("scenario f: an aws-auth entry written with the role's IAM path, caught by awsAuthCheck (no CloudTrail for a ConfigMap edit), timed from the edit, exit 0", async () => {
    const { code, out } = await demo('--scenario', 'f');
    expect(code).toBe(0);
    const lines = timeline(out);
    expect(firstAt(lines, /^kubectl edit configmap aws-auth: the node role written as IAM shows it/)).toBe(0);
    expect(Number.isFinite(firstAt(lines, /^awsAuthCheck {2}(re-check|schedule tick)/))).toBe(true);
    expect(lines.some(([, what]) => /^onEksEvent/.test(what))).toBe(false);
    expect(out).toContain(
      'HIGH · prod · aws-auth maps role prod-node-role with an IAM path: it never matches',
    );
    expect(out).toContain('Replace the rolearn with arn:aws:iam::111122223333:role/prod-node-role.');
    expect(out).toMatch(
      /^OK: the node role's aws-auth entry stopped matching when it was written \(STS presents the ARN without its path\), T\+0\.00s, so no alert can come before the loss: the critical alert reached Slack \d+\.\d\d s and SNS \d+\.\d\d s after it\.$/m,
    );
    expect(out).toContain(
      'Counts agree: the alert said 5 node(s) lose access; the sandbox saw 5 go NotReady.',
    );
    expect(out).not.toMatch(/Resolved/);
  });

  it('lists the scenarios in --help', async () => {
    const { code, out } = await demo('--help');
    expect(code).toBe(0);
    expect(out).toMatch(/^ {2}a {2}DeleteNodegroup/m);
    expect(out).toMatch(/^ {2}b {2}Terraform/m);
    expect(out).toMatch(/^ {2}c {2}/m);
    expect(out).toMatch(/^ {2}d {2}DeleteAccessEntry/m);
    expect(out).toMatch(/^ {2}e {2}UpdateClusterConfig/m);
    expect(out).toMatch(/^ {2}f {2}Hygiene: kubectl edit maps the node role in aws-auth with its IAM path/m);
    expect(out).toMatch(/^ {2}g {2}An IaC apply rewrites a Pod Identity role's trust/m);
    expect(out).toMatch(/^ {2}h {2}A blue\/green move/m);
  });
});
