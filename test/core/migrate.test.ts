// biome-ignore-all lint/suspicious/noTemplateCurlyInString: aws-auth templates and attacker input stay literal
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { awsAuthRoleArns, roleAccount } from '../../shared/core/access/compute.ts';
import { principalKey, roleArnWithoutPath } from '../../shared/core/access/principal.ts';
import { applyMigrationPlan } from '../../shared/core/migrate/apply.ts';
import { type MigrationPlan, planMigration } from '../../shared/core/migrate/migration-plan.ts';
import {
  migrationAwsCli,
  migrationJson,
  migrationTerraform,
  migrationText,
} from '../../shared/core/migrate/render-migration.ts';
import type { ClusterSnapshot, Finding } from '../../shared/core/model.ts';
import { assessSnapshot, whatIf } from '../../shared/core/predict/engine.ts';
import { decodeHclDocument } from '../hostile/hcl-decoder.ts';
import { runWithStubs } from '../hostile/shell-stub.ts';
import { HCL_INJECTION, SHELL_INJECTION } from '../hostile/strings.ts';

const SCENARIOS = join(import.meta.dirname, '../../scenarios');
const ACCOUNT = '111122223333';
const role = (name: string) => `arn:aws:iam::${ACCOUNT}:role/${name}`;

function scenario(name: string): ClusterSnapshot {
  return JSON.parse(readFileSync(join(SCENARIOS, `${name}.json`), 'utf8')) as ClusterSnapshot;
}

const ALL = readdirSync(SCENARIOS)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''));
const MIGRATABLE = ALL.filter((n) => scenario(n).cluster.authenticationMode !== 'API');

/** Critical and high findings once the cluster runs in API mode: the what-if's and the state's. */
function severeInApi(snapshot: ClusterSnapshot): Finding[] {
  const result = whatIf(snapshot, { kind: 'set-auth-mode', mode: 'API' });
  return [...result.findings, ...assessSnapshot(result.after)].filter(
    (f) => f.severity === 'critical' || f.severity === 'high',
  );
}

function coveredBy(plan: Pick<MigrationPlan, 'blockers'>, f: Finding): boolean {
  return plan.blockers.some(
    (b) => b.subject === f.subject || principalKey(b.subject) === principalKey(f.subject),
  );
}

/**
 * A CONFIG_MAP snapshot with the given aws-auth mapRoles and nothing else mapped; IAM has every
 * mapped role of the account at path `/`, as a capture records it (GetRole's `Path`).
 */
function withMapRoles(mapRoles: string, extra: Record<string, string> = {}): ClusterSnapshot {
  const s = scenario('a-karpenter-shares-last-nodegroup-role');
  if (s.awsAuth.status !== 'ok' || s.iamRoles.status !== 'ok') throw new Error('fixture');
  s.awsAuth.data.data = { mapRoles, ...extra };
  const known = new Set(s.iamRoles.data.map((r) => principalKey(r.arn)));
  for (const arn of awsAuthRoleArns(s.awsAuth.data)) {
    if (roleAccount(arn) !== ACCOUNT || known.has(principalKey(arn))) continue;
    known.add(principalKey(arn));
    s.iamRoles.data.push({ arn: roleArnWithoutPath(arn), state: 'exists', path: '/' });
  }
  return s;
}

describe('planMigration proven by simulation on the scenarios', () => {
  it('has CONFIG_MAP and API_AND_CONFIG_MAP scenarios to prove it on, some of which API mode breaks today', () => {
    expect(MIGRATABLE.length).toBeGreaterThanOrEqual(6);
    // the check below can fail: switching these straight to API leaves critical findings
    const broken = MIGRATABLE.filter((n) => severeInApi(scenario(n)).some((f) => f.severity === 'critical'));
    expect(broken.length).toBeGreaterThanOrEqual(4);
  });

  it.each(MIGRATABLE)(
    '%s: the JSON plan applied, then --auth-mode API, leaves nothing critical or high but its blockers',
    (name) => {
      const snapshot = scenario(name);
      const plan = JSON.parse(migrationJson(planMigration(snapshot))) as MigrationPlan;
      expect(Object.keys(plan)).toEqual(['cluster', 'steps', 'accessEntries', 'blockers']);
      const left = severeInApi(applyMigrationPlan(snapshot, plan)).filter((f) => !coveredBy(plan, f));
      expect(left.map((f) => `${f.severity} ${f.ruleId} ${f.subject}`)).toEqual([]);
    },
  );

  it('names the unparseable mapRoles of incident c as a blocker, with its line, and still moves the node role', () => {
    const plan = planMigration(scenario('c-yaml-slip-in-maproles'));
    expect(plan.blockers).toEqual([
      {
        subject: 'mapRoles',
        reason: expect.stringMatching(/^mapRoles does not parse \(line \d+\).*platform-admin/),
      },
    ]);
    expect(plan.accessEntries).toEqual([{ principalArn: role('prod-node-role'), type: 'EC2_LINUX' }]);
  });

  it('gives the unmapped Fargate pod execution role of incident b its FARGATE_LINUX entry', () => {
    const plan = planMigration(scenario('b-fargate-entry-removed-by-terraform'));
    expect(plan.accessEntries).toContainEqual({
      principalArn: role('prod-fargate-pod-execution'),
      type: 'FARGATE_LINUX',
    });
  });

  it('re-creates the stale entry of incident d: deleted first, then created again as it was', () => {
    const plan = planMigration(scenario('d-access-entry-older-than-role'));
    expect(plan.steps.map((s) => s.action)).toEqual([
      'replace-stale-access-entries',
      'create-access-entries',
      'verify',
      'set-authentication-mode',
    ]);
    expect(plan.steps[0]?.principalArns).toEqual([role('ci-deployer')]);
    expect(plan.accessEntries).toEqual([
      {
        principalArn: role('ci-deployer'),
        type: 'STANDARD',
        accessPolicies: [
          {
            policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy',
            accessScope: { type: 'namespace', namespaces: ['apps'] },
          },
        ],
      },
    ]);
  });

  it('orders the steps: API_AND_CONFIG_MAP, create, verify, and API last', () => {
    const plan = planMigration(scenario('a-karpenter-shares-last-nodegroup-role'));
    expect(plan.steps.map((s) => [s.action, s.mode])).toEqual([
      ['set-authentication-mode', 'API_AND_CONFIG_MAP'],
      ['create-access-entries', undefined],
      ['verify', undefined],
      ['set-authentication-mode', 'API'],
    ]);
    expect(plan.accessEntries).toEqual([
      {
        principalArn: role('platform-admin'),
        type: 'STANDARD',
        username: 'platform-admin',
        accessPolicies: [
          {
            policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy',
            accessScope: { type: 'cluster' },
          },
        ],
      },
      { principalArn: role('prod-node-role'), type: 'EC2_LINUX' },
    ]);
  });
});

describe('planMigration entry types', () => {
  it('gives Windows node groups EC2_WINDOWS, Fargate FARGATE_LINUX and hybrid nodes HYBRID_LINUX', () => {
    const s = withMapRoles(`- rolearn: ${role('win-nodes')}
  username: system:node:{{EC2PrivateDNSName}}
  groups: [system:bootstrappers, system:nodes, eks:kube-proxy-windows]
`);
    s.nodegroups = {
      status: 'ok',
      data: [
        {
          name: 'win',
          status: 'ACTIVE',
          nodeRole: role('win-nodes'),
          amiType: 'WINDOWS_CORE_2022_x86_64',
          healthIssues: [],
        },
      ],
    };
    s.karpenterNodeClasses = { status: 'ok', data: [] };
    s.fargateProfiles = {
      status: 'ok',
      data: [
        {
          name: 'fp',
          status: 'ACTIVE',
          podExecutionRoleArn: role('fargate-pods'),
          selectors: [{ namespace: 'batch' }],
        },
      ],
    };
    s.compute = {
      status: 'ok',
      data: [
        {
          kind: 'managed',
          id: 'i-0123456789abcdef0',
          roleArn: role('win-nodes'),
          nodegroup: 'win',
          os: 'windows',
        },
        { kind: 'fargate', id: 'fargate-ip-10-0-0-1', roleArn: role('fargate-pods'), fargateProfile: 'fp' },
        { kind: 'hybrid', id: 'mi-0123456789abcdef0', roleArn: role('hybrid-nodes') },
        { kind: 'self-managed', id: 'i-0fedcba9876543210', roleArn: role('win-self'), os: 'windows' },
      ],
    };
    const types = Object.fromEntries(planMigration(s).accessEntries.map((e) => [e.principalArn, e.type]));
    expect(types).toEqual({
      [role('win-nodes')]: 'EC2_WINDOWS',
      [role('win-self')]: 'EC2_WINDOWS',
      [role('fargate-pods')]: 'FARGATE_LINUX',
      [role('hybrid-nodes')]: 'HYBRID_LINUX',
    });
  });

  it('reads the node type from the aws-auth entry itself when no compute is known', () => {
    const s = withMapRoles(`- rolearn: ${role('fp-role')}
  username: system:node:{{SessionName}}
  groups: [system:bootstrappers, system:nodes, system:node-proxier]
- rolearn: ${role('win-role')}
  username: system:node:{{EC2PrivateDNSName}}
  groups: [system:bootstrappers, system:nodes, eks:kube-proxy-windows]
`);
    s.nodegroups = { status: 'ok', data: [] };
    s.compute = { status: 'ok', data: [] };
    s.karpenterNodeClasses = { status: 'ok', data: [] };
    expect(planMigration(s).accessEntries).toEqual([
      { principalArn: role('fp-role'), type: 'FARGATE_LINUX' },
      { principalArn: role('win-role'), type: 'EC2_WINDOWS' },
    ]);
  });

  it('takes the real role ARN with its IAM path from the snapshot IAM roles', () => {
    const s = withMapRoles(`- rolearn: ${role('deployer')}
  username: deployer
  groups: [deployers]
`);
    if (s.iamRoles.status !== 'ok') throw new Error('fixture');
    s.iamRoles.data = s.iamRoles.data.filter((r) => principalKey(r.arn) !== principalKey(role('deployer')));
    s.iamRoles.data.push({
      arn: role('teams/ci/deployer'),
      state: 'exists',
      path: '/teams/ci/',
      createDate: '2024-01-01T00:00:00Z',
    });
    expect(planMigration(s).accessEntries).toContainEqual({
      principalArn: role('teams/ci/deployer'),
      type: 'STANDARD',
      username: 'deployer',
      kubernetesGroups: ['deployers'],
    });
  });

  it('moves IAM users and SSO permission-set roles (by the real ARN of the matching role)', () => {
    const sso = role('aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_ViewOnly_0123456789abcdef');
    const s = withMapRoles(
      `- sso:
    permissionSetName: ViewOnly
    accountID: "${ACCOUNT}"
  username: viewer:{{SessionName}}
  groups: [viewers]
`,
      {
        mapUsers: `- userarn: arn:aws:iam::${ACCOUNT}:user/alice\n  username: alice\n  groups: [system:masters]\n`,
      },
    );
    if (s.iamRoles.status !== 'ok') throw new Error('fixture');
    s.iamRoles.data.push({ arn: sso, state: 'exists', createDate: '2024-01-01T00:00:00Z' });
    const plan = planMigration(s);
    expect(plan.accessEntries).toContainEqual({
      principalArn: sso,
      type: 'STANDARD',
      username: 'viewer:{{SessionName}}',
      kubernetesGroups: ['viewers'],
    });
    expect(plan.accessEntries).toContainEqual({
      principalArn: `arn:aws:iam::${ACCOUNT}:user/alice`,
      type: 'STANDARD',
      username: 'alice',
      accessPolicies: [
        {
          policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy',
          accessScope: { type: 'cluster' },
        },
      ],
    });
    expect(plan.blockers).toEqual([]);
  });

  it('follows the last duplicate and drops invalid entries, as the authenticator does', () => {
    const s = withMapRoles(`- rolearn: ${role('dev')}
  username: dev
  groups: [system:masters]
- username: no-arn
  groups: [x]
- rolearn: ${role('dev')}
  username: dev:{{SessionName}}
  groups: [dev-team]
`);
    const plan = planMigration(s);
    expect(plan.accessEntries).toContainEqual({
      principalArn: role('dev'),
      type: 'STANDARD',
      username: 'dev:{{SessionName}}',
      kubernetesGroups: ['dev-team'],
    });
    expect(plan.blockers).toEqual([
      { subject: 'mapRoles[1]', reason: expect.stringContaining('drops this entry') },
    ]);
  });
});

describe('planMigration names each role by its real ARN, IAM path included', () => {
  const LEGACY = role('eks/legacy-node');
  const PATHLESS = role('legacy-node');
  const NAME = 'f-path-node-role-config-map';

  it('takes the path of the instance profile when IAM roles were read before paths were recorded', () => {
    const s = scenario(NAME);
    if (s.iamRoles.status !== 'ok') throw new Error('fixture');
    // an older capture asked GetRole once per spelling and kept the ARN it asked with
    s.iamRoles.data = s.iamRoles.data.flatMap(({ path: _path, ...r }) =>
      r.arn === LEGACY ? [{ ...r }, { ...r, arn: PATHLESS }] : [r],
    );
    const plan = planMigration(s);
    expect(plan.accessEntries).toContainEqual({ principalArn: LEGACY, type: 'EC2_LINUX' });
    expect(plan.accessEntries.map((e) => e.principalArn)).not.toContain(PATHLESS);
  });

  it('blocks a role whose path nothing tells, with the aws iam get-role that tells it, and plans no guess', () => {
    const s = scenario(NAME);
    if (s.iamRoles.status !== 'ok' || s.compute.status !== 'ok') throw new Error('fixture');
    // the self-managed nodes are gone; aws-auth still maps the role (without its path, as it must)
    s.compute.data = s.compute.data.filter((n) => n.kind !== 'self-managed');
    s.iamRoles.data = s.iamRoles.data.filter((r) => r.arn !== LEGACY);
    const plan = planMigration(s);
    expect(plan.accessEntries.map((e) => principalKey(e.principalArn))).not.toContain(principalKey(LEGACY));
    expect(plan.blockers).toEqual([
      {
        subject: PATHLESS,
        reason: expect.stringContaining(
          '`aws iam get-role --role-name legacy-node --region eu-west-1 --query Role.Arn --output text` prints the ARN',
        ),
      },
    ]);
    expect(plan.blockers[0]?.reason).toMatch(
      /^aws-auth line \d+: the IAM path of role "legacy-node" is unknown/,
    );
  });

  it('verifies by simulation what EKS does: an entry for the path-less ARN is refused, the nodes stay unauthorized', () => {
    const s = scenario(NAME);
    const plan = planMigration(s);
    const guessed = {
      ...plan,
      accessEntries: plan.accessEntries.map((e) =>
        e.principalArn === LEGACY ? { ...e, principalArn: PATHLESS } : e,
      ),
    };
    const after = applyMigrationPlan(s, guessed);
    expect(
      after.accessEntries.status === 'ok' && after.accessEntries.data.map((e) => e.principalArn),
    ).not.toContain(PATHLESS);
    expect(severeInApi(after).map((f) => `${f.ruleId} ${f.subject}`)).toContain(
      `nodes/role-unauthorized ${LEGACY}`,
    );
    expect(severeInApi(applyMigrationPlan(s, plan))).toEqual([]);
  });

  it("re-creates a stale entry for IAM's ARN when the role came back under another path", () => {
    const s = scenario('d-access-entry-older-than-role');
    if (s.iamRoles.status !== 'ok') throw new Error('fixture');
    const ci = s.iamRoles.data.find((r) => r.arn === role('ci-deployer'));
    if (!ci) throw new Error('fixture');
    Object.assign(ci, { arn: role('ci/ci-deployer'), path: '/ci/' });
    const plan = planMigration(s);
    expect(plan.steps[0]?.principalArns).toEqual([role('ci-deployer')]);
    expect(plan.accessEntries.map((e) => e.principalArn)).toEqual([role('ci/ci-deployer')]);
  });
});

describe('planMigration blockers', () => {
  it('blocks mapAccounts, system: groups, unsupported username templates and principals whose entry means otherwise', () => {
    const s = withMapRoles(
      `- rolearn: ${role('viewer')}
  username: viewer
  groups: [system:authenticated-viewers]
- rolearn: ${role('keyed')}
  username: key-{{AccessKeyID}}
  groups: [ops]
- rolearn: ${role('nocolon')}
  username: x{{SessionName}}
  groups: [ops]
- rolearn: ${role('reserved')}
  username: eks:ops
  groups: [ops]
- rolearn: ${role('ok')}
  username: ok:{{SessionNameRaw}}
  groups: [ops]
- rolearn: ${role('differs')}
  username: d
  groups: [ops]
`,
      { mapAccounts: '- "444455556666"\n' },
    );
    s.cluster.authenticationMode = 'API_AND_CONFIG_MAP';
    s.accessEntries = {
      status: 'ok',
      data: [
        {
          principalArn: role('differs'),
          type: 'STANDARD',
          kubernetesGroups: ['readers'],
          accessPolicies: [],
        },
      ],
    };
    const plan = planMigration(s);
    const bySubject = Object.fromEntries(plan.blockers.map((b) => [b.subject, b.reason]));
    expect(Object.keys(bySubject).sort()).toEqual(
      [
        '444455556666',
        role('differs'),
        role('keyed'),
        role('nocolon'),
        role('reserved'),
        role('viewer'),
      ].sort(),
    );
    expect(bySubject['444455556666']).toMatch(/mapAccounts .*Create an access entry for each principal/);
    expect(bySubject[role('viewer')]).toMatch(
      /system:authenticated-viewers: EKS refuses kubernetesGroups that start with system:/,
    );
    expect(bySubject[role('keyed')]).toMatch(/template \{\{AccessKeyID\}\}/);
    expect(bySubject[role('nocolon')]).toMatch(/without a ":" before it/);
    expect(bySubject[role('reserved')]).toMatch(/starts with eks:/);
    expect(bySubject[role('differs')]).toMatch(/groups \[readers\], aws-auth maps \[ops\]/);
    // a blocked principal gets no entry (it would override aws-auth at once, with less access)
    const planned = plan.accessEntries.map((e) => e.principalArn);
    expect(planned).toContain(role('ok'));
    for (const blocked of ['viewer', 'keyed', 'nocolon', 'reserved', 'differs'])
      expect(planned).not.toContain(role(blocked));
    expect(plan.steps.map((x) => x.action)).toContain('resolve-blockers');
    expect(plan.steps.at(-1)).toMatchObject({ action: 'set-authentication-mode', mode: 'API' });
  });

  it('blocks nothing and creates nothing for an entry that already means what aws-auth says', () => {
    const plan = planMigration(scenario('a-karpenter-shares-role-api-and-config-map-with-entry'));
    expect(plan.accessEntries).toEqual([]);
    expect(plan.blockers).toEqual([]);
  });
});

describe('migration plan renderings', () => {
  const hostile = () =>
    withMapRoles(`- rolearn: ${role('dev')}
  username: 'dev:{{SessionName}}'
  groups: ['${HCL_INJECTION.replaceAll("'", "''")}', '${SHELL_INJECTION}', "it's"]
- rolearn: ${role('admin')}
  username: admin
  groups: [system:masters]
`);

  it('writes Terraform whose strings decode back to the plan values, with the association referring to its entry', () => {
    const plan = planMigration(hostile());
    const r = migrationTerraform(plan);
    if (!r.ok) throw new Error(r.reason);
    expect(r.text).toContain('resource "aws_eks_access_entry" "dev"');
    expect(r.text).toContain('resource "aws_eks_access_policy_association" "admin__cluster_admin"');
    expect(r.text).toMatch(/principal_arn = aws_eks_access_entry\.admin\.principal_arn\n/);
    // the module input is an alternative to the resources: commented out, so the file validates
    expect(r.text).toMatch(/^# access_entries = \{$/m);
    expect(r.text).toMatch(/^# {5}policy_associations = \{$/m);
    expect(r.text).not.toMatch(/^access_entries/m);
    const doc = decodeHclDocument(
      r.text.replace(/= aws_eks_access_entry\.[A-Za-z0-9_]+\.principal_arn$/gm, '= "ref"'),
    );
    expect(doc.strings).toEqual(
      expect.arrayContaining([HCL_INJECTION, SHELL_INJECTION, "it's", 'dev:{{SessionName}}']),
    );
  });

  it('writes an AWS CLI script that passes exactly the plan values to aws', () => {
    const plan = planMigration(hostile());
    const r = migrationAwsCli(plan);
    if (!r.ok) throw new Error(r.reason);
    const run = runWithStubs('bash', r.text);
    const creates = run.calls.filter((c) => c[2] === 'create-access-entry');
    const dev = creates.find((c) => c.includes(role('dev')));
    expect(dev?.slice(-4)).toEqual(['--kubernetes-groups', HCL_INJECTION, SHELL_INJECTION, "it's"]);
    expect(run.calls.map((c) => c.slice(0, 4).join(' '))).toEqual([
      'aws eks update-cluster-config --name',
      'aws eks wait cluster-active',
      'aws eks create-access-entry --cluster-name',
      'aws eks associate-access-policy --cluster-name',
      'aws eks create-access-entry --cluster-name',
      // the node role of the fixture's compute
      'aws eks create-access-entry --cluster-name',
    ]);
    const associate = run.calls[3] ?? [];
    expect(associate.slice(-2)).toEqual(['--access-scope', '{"type":"cluster"}']);
    // the one-way switch to API is shown, never run
    expect(run.calls.some((c) => c.includes('authenticationMode=API'))).toBe(false);
    expect(r.text).toContain('authenticationMode=API');
  });

  it('writes text with the steps, the entries and the blockers, one line each', () => {
    const text = migrationText(planMigration(scenario('c-yaml-slip-in-maproles')));
    expect(text).toMatch(/Steps\n {2}1\. Switch the authentication mode to API_AND_CONFIG_MAP/);
    expect(text).toContain('arn:aws:iam::111122223333:role/prod-node-role  EC2_LINUX');
    expect(text).toMatch(/Blockers for API \(1\)\n {2}mapRoles: mapRoles does not parse/);
  });
});
