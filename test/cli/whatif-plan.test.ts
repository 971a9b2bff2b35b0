import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/run-cli.ts';
import { createFakeIo, REPO_ROOT } from '../support/fake-io.ts';

const PLANS = 'test/fixtures/terraform-plan';
const PROPOSALS = 'test/fixtures/aws-auth-proposals';

async function run(argv: string[], files: Record<string, string> = {}) {
  const fake = createFakeIo(files);
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

function json(out: string) {
  return JSON.parse(out) as {
    relevant: boolean;
    clusters: { findings: { ruleId: string; severity: string; evidence: Record<string, unknown> }[] }[];
  };
}

/**
 * Each incident of scenarios/ as the plan that would cause it, with the snapshot it applies to
 * (the state before the damage), the critical rule it must trip and the plan address it names.
 */
const INCIDENTS = [
  {
    incident: 'a',
    plan: 'a-delete-nodegroup-general.json',
    snapshot: 'scenarios/a-karpenter-shares-last-nodegroup-role.json',
    rule: 'nodegroup/deletion-orphans-role',
    address: 'module.eks.aws_eks_node_group.this["general"]',
  },
  {
    incident: 'b',
    plan: 'b-fargate-profile-created-terraform-owns-aws-auth.json',
    snapshot: 'scenarios/b-fargate-entry-removed-by-terraform.json',
    rule: 'fargate/pod-execution-role-unauthorized',
    address: 'kubernetes_config_map_v1_data.aws_auth',
  },
  {
    incident: 'c',
    plan: 'c-yaml-slip-in-aws-auth.json',
    snapshot: 'scenarios/a-karpenter-shares-last-nodegroup-role.json',
    rule: 'aws-auth/parse-failure',
    address: 'kubernetes_config_map_v1.aws_auth',
  },
  {
    incident: 'd',
    plan: 'd-node-role-re-created.json',
    snapshot: 'scenarios/healthy-api-mode.json',
    rule: 'nodes/role-unauthorized',
    address: 'module.eks.aws_iam_role.this[0]',
  },
  {
    incident: 'e',
    plan: 'e-auth-mode-to-api.json',
    snapshot: 'scenarios/a-karpenter-shares-role-api-and-config-map-no-entry.json',
    rule: 'cluster/auth-mode-drops-principals',
    address: 'module.eks.aws_eks_cluster.this[0]',
  },
] as const;

describe('whatif --terraform-plan', () => {
  for (const c of INCIDENTS) {
    it(`exits 1 on the plan of incident ${c.incident} with ${c.rule} naming ${c.address}`, async () => {
      const { code, out } = await run([
        'whatif',
        '--snapshot',
        c.snapshot,
        '--terraform-plan',
        `${PLANS}/${c.plan}`,
        '--format',
        'json',
      ]);
      expect(code).toBe(1);
      const findings = json(out).clusters.flatMap((x) => x.findings);
      const hit = findings.find((f) => f.ruleId === c.rule && f.severity === 'critical');
      expect(hit?.evidence.planAddress).toBe(c.address);
    });
  }

  it('shows the plan address in text and Markdown', async () => {
    const argv = [
      'whatif',
      '--snapshot',
      INCIDENTS[0].snapshot,
      '--terraform-plan',
      `${PLANS}/${INCIDENTS[0].plan}`,
    ];
    const text = await run(argv);
    expect(text.out).toContain('plan address      module.eks.aws_eks_node_group.this["general"]');
    const md = await run([...argv, '--format', 'markdown']);
    expect(md.out).toContain('- **Plan address:** `module.eks.aws_eks_node_group.this["general"]`');
  });

  it('exits 0 with "nothing auth-relevant in this plan" on a plan that changes no auth source', async () => {
    const { code, out } = await run([
      'whatif',
      '--snapshot',
      'scenarios/a-karpenter-shares-last-nodegroup-role.json',
      '--terraform-plan',
      `${PLANS}/no-auth-relevant-change.json`,
    ]);
    expect(code).toBe(0);
    expect(out).toContain('nothing auth-relevant in this plan');
  });

  it('reports a node group replace that deletes first as what breaks in between', async () => {
    const { code, out } = await run([
      'whatif',
      '--snapshot',
      'scenarios/a-karpenter-shares-last-nodegroup-role.json',
      '--terraform-plan',
      `${PLANS}/a-replace-nodegroup-general.json`,
      '--format',
      'json',
    ]);
    expect(code).toBe(1);
    const [f] = json(out).clusters.flatMap((x) => x.findings);
    expect(f?.evidence.planWindow).toBe('between-delete-and-create');
  });

  it('exits 1 on incident e against a cluster whose node role has an access entry: developers alone lose access for good (critical)', async () => {
    const argv = [
      'whatif',
      '--snapshot',
      'scenarios/e-switch-to-api-mode.json',
      '--terraform-plan',
      `${PLANS}/e-auth-mode-to-api.json`,
    ];
    expect((await run(argv)).code).toBe(1);
    expect((await run([...argv, '--fail-on', 'none'])).code).toBe(0);
  });

  it('exits 2 when the plan changes a cluster no snapshot was given for, naming it', async () => {
    const plan = readFileSync(join(REPO_ROOT, PLANS, 'a-delete-nodegroup-general.json'), 'utf8');
    const staging = plan.replaceAll('"cluster_name": "prod"', '"cluster_name": "staging"');
    const { code, err } = await run(
      ['whatif', '--snapshot', INCIDENTS[0].snapshot, '--terraform-plan', 'staging.json'],
      { 'staging.json': staging },
    );
    expect(code).toBe(2);
    expect(err).toContain('not checked: changes to cluster staging (no snapshot of it)');
    expect(err).toContain('module.eks.aws_eks_node_group.this["general"]');
  });

  const BAD = [
    ['bad/cloudformation-template.json', 'no format_version', '$.format_version'],
    ['bad/state-not-plan.json', 'JSON of a Terraform state', '$.resource_changes'],
    ['bad/no-resource-changes.json', 'no resource_changes', '$.resource_changes'],
    ['bad/truncated.json', 'not valid JSON', 'line 57:1'],
    ['bad/unknown-action.json', 'expected one of', '$.resource_changes[0].change.actions[0]'],
  ] as const;
  for (const [file, what, where] of BAD) {
    it(`exits 2 on ${file}, saying what (${what}) and where (${where})`, async () => {
      const { code, out, err } = await run([
        'whatif',
        '--snapshot',
        'scenarios/healthy-api-mode.json',
        '--terraform-plan',
        `${PLANS}/${file}`,
      ]);
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toMatch(/^eks-auth-sentinel: [^\n]+\n$/);
      expect(err).toContain(what);
      expect(err).toContain(`${PLANS}/${file}`);
      expect(err).toContain(where);
      // At most one "not a … plan" on the line: the reason is not wrapped twice.
      expect((err.match(/not a (usable|valid) Terraform plan/g) ?? []).length).toBeLessThanOrEqual(1);
    });
  }

  it('exits 2 on a plan with a wrong type in an attribute it reads, instead of "nothing auth-relevant"', async () => {
    const plan = JSON.parse(readFileSync(join(REPO_ROOT, PLANS, 'a-delete-nodegroup-general.json'), 'utf8'));
    plan.resource_changes[0].change.before.cluster_name = 7;
    const { code, out, err } = await run(
      ['whatif', '--snapshot', INCIDENTS[0].snapshot, '--terraform-plan', 'typed.json'],
      { 'typed.json': JSON.stringify(plan) },
    );
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toContain('expected a string');
    expect(err).toContain('$.resource_changes[0].change.before.cluster_name');
  });

  it('exits 2 on a ClusterSnapshot passed as the plan, saying which option it belongs to', async () => {
    const { code, err } = await run([
      'whatif',
      '--snapshot',
      'scenarios/healthy-api-mode.json',
      '--terraform-plan',
      'scenarios/healthy-api-mode.json',
    ]);
    expect(code).toBe(2);
    expect(err).toContain('pass it as --snapshot FILE');
  });
});

describe('whatif --aws-auth', () => {
  const SNAPSHOT = 'scenarios/a-karpenter-shares-last-nodegroup-role.json';
  const ROLES = [
    'arn:aws:iam::111122223333:role/prod-node-role',
    'arn:aws:iam::111122223333:role/platform-admin',
    'arn:aws:iam::111122223333:role/developers',
  ];

  it("names the file line of incident c's YAML slip and every role it unmaps", async () => {
    const { code, out } = await run([
      'whatif',
      '--snapshot',
      SNAPSHOT,
      '--aws-auth',
      `${PROPOSALS}/c-yaml-slip.yaml`,
    ]);
    expect(code).toBe(1);
    const flat = out.replace(/\s+/g, ' ');
    // line 16 of the file: `username: "developer:{{SessionName}}`, the unterminated quote
    expect(flat).toContain(`${PROPOSALS}/c-yaml-slip.yaml line 16:`);
    for (const role of ROLES) expect(flat).toContain(role);
    expect(flat).toContain('EKS added this entry for node group general');
    expect(flat).toContain('it serves node group general, EC2NodeClass default, 5 node(s)');
  });

  it('reads a bare mapRoles document and the JSON kubectl prints', async () => {
    for (const file of ['c-yaml-slip-maproles-only.yaml', 'c-yaml-slip.json']) {
      const { code, out } = await run([
        'whatif',
        '--snapshot',
        SNAPSHOT,
        '--aws-auth',
        `${PROPOSALS}/${file}`,
      ]);
      expect(code).toBe(1);
      for (const role of ROLES) expect(out.replace(/\s+/g, ' ')).toContain(role);
    }
  });

  it('exits 0 on a proposal that only adds a mapping', async () => {
    const { code, out } = await run([
      'whatif',
      '--snapshot',
      SNAPSHOT,
      '--aws-auth',
      `${PROPOSALS}/adds-developers.yaml`,
    ]);
    expect(code).toBe(0);
    expect(out).toContain('No findings');
  });

  it('exits 2 on a ConfigMap that is not aws-auth, with the file and line', async () => {
    const { code, err } = await run([
      'whatif',
      '--snapshot',
      SNAPSHOT,
      '--aws-auth',
      `${PROPOSALS}/not-aws-auth-coredns.yaml`,
    ]);
    expect(code).toBe(2);
    expect(err).toBe(
      `eks-auth-sentinel: not a usable aws-auth: the ConfigMap is "coredns", not aws-auth (${PROPOSALS}/not-aws-auth-coredns.yaml, line 20)\n`,
    );
  });
});

describe('whatif --terraform-plan arguments', () => {
  it('reads the plan’s own clusters live when --region is given without --cluster', async () => {
    const { parseCommandLine } = await import('../../shared/cli/args.ts');
    expect(parseCommandLine(['whatif', '--terraform-plan', 'p.json', '--region', 'eu-west-1'])).toMatchObject(
      {
        kind: 'whatif-plan',
        plan: 'p.json',
        source: { kind: 'live', clusterNames: undefined, region: 'eu-west-1' },
      },
    );
    expect(
      parseCommandLine(['whatif', '--terraform-plan', 'p.json', '--cluster', 'prod,staging'], {
        AWS_REGION: 'us-east-1',
      }),
    ).toMatchObject({ source: { kind: 'live', clusterNames: ['prod', 'staging'], region: 'us-east-1' } });
    expect(() =>
      parseCommandLine(['whatif', '--terraform-plan', 'p.json', '--aws-auth', 'a.yaml', '--snapshot', 's']),
    ).toThrow('whatif takes exactly one change, got --terraform-plan and --aws-auth');
  });
});
