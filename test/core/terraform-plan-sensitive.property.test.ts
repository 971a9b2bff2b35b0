/**
 * Issue 17, "Secrets and bounds": values a plan marks sensitive (`after_sensitive`,
 * `before_sensitive`, `true` at a leaf or a whole subtree) were printed — once in text, once in
 * Markdown, twice in JSON, and the parse-failure finding quoted the line. Random plans with
 * sensitive marks, through `whatif --terraform-plan` in text, Markdown and JSON and through the
 * HTML, Slack and SNS renderers: no secret string appears; the simulation still reads them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/gen-cli-golden.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import type { Notice } from '../../shared/core/alerts/lifecycle.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { SENSITIVE_VALUE, validatePlan, whatIfTerraformPlan } from '../../shared/core/plan/index.ts';
import { renderHtmlReport } from '../../shared/core/render/html-report.ts';
import { renderSlackMessages } from '../../shared/core/render/slack.ts';
import { renderSnsMessage } from '../../shared/core/render/sns.ts';
import { createFakeIo } from '../support/fake-io.ts';

const RUNS = Math.max(25, Math.floor(Number(process.env.PROPERTY_RUNS ?? 10_000) / 200));
const SNAPSHOT_PATH = 'scenarios/a-karpenter-shares-last-nodegroup-role.json';
const SNAPSHOT = JSON.parse(readFileSync(join(REPO_ROOT, SNAPSHOT_PATH), 'utf8')) as ClusterSnapshot;
const BASE = JSON.parse(
  readFileSync(join(REPO_ROOT, 'test/fixtures/terraform-plan/c-yaml-slip-in-aws-auth.json'), 'utf8'),
) as { resource_changes: Array<{ change: Record<string, unknown> }> };
const NODE_ENTRY =
  '- groups:\n  - system:bootstrappers\n  - system:nodes\n  rolearn: arn:aws:iam::111122223333:role/prod-node-role\n  username: system:node:{{EC2PrivateDNSName}}\n';

/** A secret no report would hold by chance. */
const secret = fc
  .stringMatching(/^[a-z0-9]{10,24}$/)
  .map((s) => `zq${s}`)
  .filter((s) => !s.includes('value'));

const dataMarks = fc.constantFrom<unknown>(true, { mapRoles: true }, { mapRoles: true, mapUsers: false });

const planCase = fc.record({
  user: secret,
  group: secret,
  removed: secret,
  broken: fc.boolean(),
  afterMarks: dataMarks,
  beforeMarks: fc.constantFrom<unknown>(true, { mapRoles: true }),
  entryMarks: fc.constantFrom<unknown>(
    { user_name: true, kubernetes_groups: true },
    { user_name: true, kubernetes_groups: [true] },
    true,
  ),
});

type Case = typeof planCase extends fc.Arbitrary<infer T> ? T : never;

function planOf(c: Case): string {
  const plan = structuredClone(BASE) as { resource_changes: unknown[] };
  type Side = { data: Record<string, string> };
  const cm = plan.resource_changes[0] as {
    change: { before: Side; after: Side; after_sensitive: unknown; before_sensitive: unknown };
  };
  // The admin re-mapped (shown: "mapped as USER [GROUP] instead of …"), or the mapping broken (the line quoted).
  const admin = `- groups:\n  - ${c.group}\n  rolearn: arn:aws:iam::111122223333:role/platform-admin\n  username: ${c.broken ? `"${c.user}:{{SessionName}}` : c.user}\n`;
  cm.change.after.data.mapRoles = `${NODE_ENTRY}${admin}`;
  cm.change.before.data.mapRoles = `${NODE_ENTRY}- groups:\n  - system:masters\n  rolearn: arn:aws:iam::111122223333:role/platform-admin\n  username: ${c.removed}\n`;
  cm.change.after_sensitive = { data: c.afterMarks };
  cm.change.before_sensitive = { data: c.beforeMarks };
  plan.resource_changes.push({
    address: 'aws_eks_access_entry.ops',
    mode: 'managed',
    type: 'aws_eks_access_entry',
    name: 'ops',
    change: {
      actions: ['create'],
      before: null,
      after: {
        cluster_name: 'prod',
        principal_arn: 'arn:aws:iam::111122223333:role/ops-admins',
        type: 'STANDARD',
        user_name: `${c.user}-entry`,
        kubernetes_groups: [`${c.group}-entry`],
      },
      after_unknown: {},
      after_sensitive: c.entryMarks,
    },
  });
  return JSON.stringify(plan);
}

async function cli(plan: string, format: string): Promise<{ code: number; out: string }> {
  const fake = createFakeIo({ 'plan.json': plan });
  const code = await runCli(
    ['whatif', '--snapshot', SNAPSHOT_PATH, '--terraform-plan', 'plan.json', '--format', format],
    fake.io,
  );
  return { code, out: fake.out() + fake.err() };
}

function secretsOf(c: Case): string[] {
  return [c.user, c.group, c.removed];
}

describe('sensitive plan values are never shown (issue 17)', () => {
  it('whatif --terraform-plan in text, Markdown and JSON; HTML, Slack and SNS of the same result', async () => {
    await fc.assert(
      fc.asyncProperty(planCase, async (c) => {
        const plan = planOf(c);
        const outputs: Record<string, string> = {};
        for (const format of ['text', 'markdown', 'json']) {
          const r = await cli(plan, format);
          expect([0, 1]).toContain(r.code);
          outputs[format] = r.out;
        }
        const v = validatePlan(JSON.parse(plan));
        if (!v.ok) throw new Error(v.error);
        const result = whatIfTerraformPlan(v.plan, [SNAPSHOT]);
        const findings = result.clusters.flatMap((x) => x.findings);
        const notices: Notice[] = findings.map((finding) => ({
          kind: 'opened',
          finding,
          at: '2026-12-01T00:00:00.000Z',
        }));
        outputs.html = renderHtmlReport({
          title: 'plan',
          tool: { name: 'eks-auth-sentinel' },
          clusters: [
            {
              snapshot: SNAPSHOT,
              findings: [],
              whatIf: result.clusters.map((x) => ({
                label: 'plan',
                effects: x.effects,
                findings: x.findings,
              })),
            },
          ],
        });
        outputs.slack = JSON.stringify(renderSlackMessages(notices).map((m) => m.payload));
        outputs.sns = JSON.stringify(renderSnsMessage(notices));
        for (const [format, out] of Object.entries(outputs))
          for (const s of secretsOf(c)) expect(out, `${format} shows ${s}`).not.toContain(s);
        // Still simulated: the slip is found, the re-mapped admin reported, redacted.
        const rules = findings.map((f) => f.ruleId);
        if (c.broken) expect(rules).toContain('aws-auth/parse-failure');
        expect(outputs.json).toContain(SENSITIVE_VALUE);
      }),
      { numRuns: RUNS },
    );
  });

  it('a plan without sensitive marks is shown as before', async () => {
    const c: Case = {
      user: 'zqvisibleuser',
      group: 'zqvisiblegroup',
      removed: 'zqremoved',
      broken: false,
      afterMarks: false,
      beforeMarks: false,
      entryMarks: false,
    };
    const { out } = await cli(planOf(c), 'json');
    expect(out).toContain('zqvisibleuser');
    expect(out).not.toContain(SENSITIVE_VALUE);
  });
});
