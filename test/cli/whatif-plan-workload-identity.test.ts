import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/run-cli.ts';
import { createFakeIo } from '../support/fake-io.ts';

const PLANS = 'test/fixtures/terraform-plan';
const WI = 'scenarios/workload-identity';

async function run(argv: string[]) {
  const fake = createFakeIo({});
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out() };
}

interface PlanJson {
  clusters: {
    findings: { ruleId: string; severity: string; title: string; evidence: Record<string, unknown> }[];
    effects: { summary: string }[];
  }[];
}

/**
 * Each workload-identity plan fixture, the snapshot it applies to (the state before the change),
 * the findings it must cause (rule at plan address) and the severity that makes it fail.
 */
const CASES = [
  {
    plan: 'wi-association-created-role-trusts-only-oidc.json',
    snapshot: 'wi-healthy-irsa',
    expect: [
      'pod-identity/agent-missing @ module.payments.aws_eks_pod_identity_association.api',
      'pod-identity/role-trust-missing @ module.payments.aws_eks_pod_identity_association.api',
      'workload-identity/irsa-and-pod-identity @ module.payments.aws_eks_pod_identity_association.api',
    ],
    failOn: 'high',
  },
  {
    plan: 'wi-association-role-changed.json',
    snapshot: 'wi-workload-identity-irsa-and-pod-identity',
    expect: ['pod-identity/role-trust-missing @ module.payments.aws_eks_pod_identity_association.api'],
    failOn: 'high',
  },
  {
    plan: 'wi-association-replaced-service-account-renamed.json',
    snapshot: 'wi-healthy-pod-identity',
    expect: ['pod-identity/service-account-missing @ module.payments.aws_eks_pod_identity_association.api'],
    failOn: 'low',
  },
  {
    plan: 'wi-role-trust-rewritten-without-tag-session.json',
    snapshot: 'wi-healthy-pod-identity',
    expect: ['pod-identity/role-trust-missing @ module.payments.aws_iam_role.api'],
    failOn: 'high',
  },
  {
    plan: 'wi-roles-deleted.json',
    snapshot: 'wi-workload-identity-irsa-and-pod-identity',
    expect: [
      'irsa/role-not-found @ module.payments.aws_iam_role.irsa',
      'pod-identity/role-not-found @ module.payments.aws_iam_role.api',
    ],
    failOn: 'high',
  },
  {
    plan: 'wi-worker-node-policy-detached.json',
    snapshot: 'wi-healthy-pod-identity',
    expect: [
      'pod-identity/node-role-cannot-assume @ module.eks.aws_iam_role_policy_attachment.node["AmazonEKSWorkerNodePolicy"]',
    ],
    failOn: 'high',
  },
  {
    plan: 'wi-oidc-provider-deleted.json',
    snapshot: 'wi-healthy-irsa',
    expect: ['irsa/oidc-provider-missing @ module.eks.aws_iam_openid_connect_provider.oidc_provider[0]'],
    failOn: 'high',
  },
  {
    plan: 'wi-pod-identity-agent-deleted.json',
    snapshot: 'wi-healthy-pod-identity',
    expect: ['pod-identity/agent-missing @ module.eks.aws_eks_addon.this["eks-pod-identity-agent"]'],
    failOn: 'high',
  },
] as const;

const argv = (plan: string, snapshot: string, ...rest: string[]) => [
  'whatif',
  '--snapshot',
  `${WI}/${snapshot}.json`,
  '--terraform-plan',
  `${PLANS}/${plan}`,
  ...rest,
];

describe('whatif --terraform-plan on workload identity', () => {
  for (const c of CASES) {
    it(`exits 1 on ${c.plan} (--fail-on ${c.failOn}) with ${c.expect.join(', ')}`, async () => {
      const { code, out } = await run(argv(c.plan, c.snapshot, '--format', 'json', '--fail-on', c.failOn));
      expect(code).toBe(1);
      const findings = (JSON.parse(out) as PlanJson).clusters.flatMap((x) => x.findings);
      expect(findings.map((f) => `${f.ruleId} @ ${String(f.evidence.planAddress)}`).sort()).toEqual(c.expect);
    });
  }

  it('says a detached worker node policy may not have been the only grant (cannot tell), not that it was', async () => {
    const { out } = await run(
      argv('wi-worker-node-policy-detached.json', 'wi-healthy-pod-identity', '--format', 'json'),
    );
    const [f] = (JSON.parse(out) as PlanJson).clusters.flatMap((x) => x.findings);
    expect(f?.evidence.verdict).toBe('cannot tell');
    expect(f?.title).toContain(
      'cannot tell from the snapshot whether another of its policies still allows it',
    );
  });

  it('reports a trust policy known only after apply as unknown, guesses nothing and exits 0', async () => {
    const { code, out } = await run(
      argv('wi-role-trust-unknown-until-apply.json', 'wi-healthy-irsa', '--fail-on', 'info'),
    );
    expect(code).toBe(0);
    expect(out.replace(/\s+/g, ' ')).toContain(
      "module.payments.aws_iam_role.irsa: UNKNOWN until apply — assume_role_policy known only after apply: the updated role's trust policy is not evaluated",
    );
    // Not an all-clear: the summary says the unknown change was left out.
    expect(out).toContain('No findings from the known values for cluster prod');
    expect(out).toContain('1 change UNKNOWN until apply, listed below');
  });

  it('says so in the Markdown of the PR comment too, and still exits 0 by default', async () => {
    const { code, out } = await run(
      argv('wi-role-trust-unknown-until-apply.json', 'wi-healthy-irsa', '--format', 'markdown'),
    );
    expect(code).toBe(0);
    expect(out).toContain('No findings from the known values for cluster `prod`');
    expect(out).toContain('1 change UNKNOWN until apply, listed below');
    expect(out).toContain('0 auth-relevant change(s), 1 more UNKNOWN until apply (not simulated)');
  });

  it('still exits 0 with "nothing auth-relevant in this plan" on a plan of no-op workload-identity resources', async () => {
    const { code, out } = await run(argv('no-auth-relevant-change.json', 'wi-healthy-pod-identity'));
    expect(code).toBe(0);
    expect(out).toContain('nothing auth-relevant in this plan');
  });
});
