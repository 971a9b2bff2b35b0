import { describe, expect, it } from 'vitest';
import type { Finding } from '../../shared/core/model.ts';
import { assessSnapshot, diffSnapshots, whatIf } from '../../shared/core/predict/engine.ts';
import { loadScenario, NODE_ROLE } from '../support/snapshot-builder.ts';

const ids = (fs: Array<{ ruleId: string }>) => fs.map((f) => f.ruleId);

describe('scenario a: Karpenter shares the last managed node group role', () => {
  it('CONFIG_MAP: deleting the node group is critical and names every Karpenter node that loses access', () => {
    const s = loadScenario('a-karpenter-shares-last-nodegroup-role');
    const r = whatIf(s, { kind: 'delete-nodegroup', nodegroupName: 'general' });
    const f = r.findings.find((x) => x.ruleId === 'nodegroup/deletion-orphans-role');
    expect(f?.severity).toBe('critical');
    expect(f?.subject).toBe(NODE_ROLE);
    const karpenter = s.compute.status === 'ok' ? s.compute.data.filter((n) => n.kind === 'karpenter') : [];
    expect(karpenter.length).toBe(3);
    expect(f?.blastRadius?.nodeCount).toBe(3);
    expect(f?.blastRadius?.firstNodes.sort()).toEqual(karpenter.map((n) => n.nodeName).sort());
    expect(f?.blastRadius?.nodeClasses).toEqual(['default']);
    expect(f?.remediation?.awsAuthYaml).toContain('system:node:{{EC2PrivateDNSName}}');
    expect(r.effects.some((e) => e.summary.includes('removes') && e.summary.includes(NODE_ROLE))).toBe(true);
    // one critical finding for the cause, not a second one for the same role
    expect(r.findings.filter((x) => x.severity === 'critical')).toHaveLength(1);
  });

  it('API_AND_CONFIG_MAP with an EC2_LINUX entry: the deletion is not critical', () => {
    const s = loadScenario('a-karpenter-shares-role-api-and-config-map-with-entry');
    const r = whatIf(s, { kind: 'delete-nodegroup', nodegroupName: 'general' });
    expect(r.findings.filter((f) => f.severity === 'critical')).toEqual([]);
    expect(r.findings.find((f) => f.ruleId === 'nodegroup/deletion-orphans-role')?.severity).toBe('info');
  });

  it('API_AND_CONFIG_MAP without an entry: the deletion is critical', () => {
    const s = loadScenario('a-karpenter-shares-role-api-and-config-map-no-entry');
    const r = whatIf(s, { kind: 'delete-nodegroup', nodegroupName: 'general' });
    expect(r.findings.find((f) => f.ruleId === 'nodegroup/deletion-orphans-role')?.severity).toBe('critical');
    expect(r.findings[0]?.remediation?.awsCli).toContain('--type EC2_LINUX');
  });

  it('another managed node group on the same role: nothing is removed and nothing fires', () => {
    const s = loadScenario('a-two-nodegroups-share-role');
    const r = whatIf(s, { kind: 'delete-nodegroup', nodegroupName: 'general' });
    expect(r.findings).toEqual([]);
    expect(r.effects.some((e) => e.summary.includes('keeps'))).toBe(true);
  });
});

describe('scenario b: the Fargate entry removed by Terraform', () => {
  it('is critical for the profile and names Terraform as the writer of mapRoles', () => {
    const fs = assessSnapshot(loadScenario('b-fargate-entry-removed-by-terraform'));
    const f = fs.find((x) => x.ruleId === 'fargate/pod-execution-role-unauthorized');
    expect(f?.severity).toBe('critical');
    expect(f?.detail).toContain('Terraform');
    expect(f?.blastRadius?.fargateProfiles).toEqual(['fp-default']);
  });
});

describe('scenario c: a YAML slip in mapRoles', () => {
  it('reports the parse failure with its line and every node role as unauthorized', () => {
    const fs = assessSnapshot(loadScenario('c-yaml-slip-in-maproles'));
    const parse = fs.find((x) => x.ruleId === 'aws-auth/parse-failure');
    expect(parse?.severity).toBe('critical');
    expect(parse?.detail).toMatch(/line \d+/);
    expect(ids(fs)).toContain('nodes/role-unauthorized');
  });
});

describe('scenario d: an access entry older than its re-created role', () => {
  it('reports the stale principal', () => {
    const fs = assessSnapshot(loadScenario('d-access-entry-older-than-role'));
    const f = fs.find((x) => x.ruleId === 'access-entry/stale-principal');
    expect(f?.subject).toContain('ci-deployer');
    expect(f?.remediation?.awsCli).toContain('create-access-entry');
  });
});

describe('scenario e: a switch to API mode', () => {
  it('lists the principals without an access entry and leaves out those with one', () => {
    const r = whatIf(loadScenario('e-switch-to-api-mode'), { kind: 'set-auth-mode', mode: 'API' });
    const f = r.findings.find((x) => x.ruleId === 'cluster/auth-mode-drops-principals');
    expect(f).toBeDefined();
    expect(f?.detail).toContain('developers');
    expect(f?.detail).not.toContain('platform-admin');
    expect(f?.remediation?.awsCli).toContain('--kubernetes-groups dev-team');
    expect(r.effects.some((e) => e.summary.includes('cannot be undone'))).toBe(true);
  });

  it('rejects going back from API (one-way) and predicts nothing', () => {
    const s = loadScenario('healthy-api-mode');
    const r = whatIf(s, { kind: 'set-auth-mode', mode: 'API_AND_CONFIG_MAP' });
    expect(r.after.cluster.authenticationMode).toBe('API');
    expect(r.findings.filter((f) => f.ruleId !== 'monitor/source-unavailable')).toEqual([]);
  });
});

describe('scenario f: self-managed nodes on a role with an IAM path', () => {
  const LEGACY = 'arn:aws:iam::111122223333:role/eks/legacy-node';
  const PATHLESS = 'arn:aws:iam::111122223333:role/legacy-node';
  const CLUSTER = 'arn:aws:eks:eu-west-1:111122223333:cluster/prod';
  const line = (f: { severity: string; ruleId: string; subject: string }) =>
    `${f.severity} ${f.ruleId} ${f.subject}`;
  /** Every principal ARN a finding's fix writes (CLI and Terraform). */
  const written = (fs: readonly Finding[]) =>
    fs
      .flatMap((f) => [
        ...(f.remediation?.awsCli ?? '').matchAll(/--principal-arn (\S+)/g),
        ...(f.remediation?.terraform ?? '').matchAll(/principal_arn\s*=\s*"([^"]+)"/g),
      ])
      .map((m) => m[1]);

  it('works today in either mode: nothing above low', () => {
    expect(assessSnapshot(loadScenario('f-path-node-role-config-map')).map(line)).toEqual([
      `low cluster/configmap-only-mode ${CLUSTER}`,
    ]);
    expect(assessSnapshot(loadScenario('f-path-node-role-api-and-config-map')).map(line)).toEqual([]);
  });

  it('API drops the legacy nodes, and every fix creates their entry by the ARN with the path', () => {
    for (const [name, expected] of [
      [
        'f-path-node-role-config-map',
        [
          `critical cluster/auth-mode-drops-principals ${CLUSTER}`,
          `critical nodes/role-unauthorized ${LEGACY}`,
          `critical nodes/role-unauthorized ${NODE_ROLE}`,
        ],
      ],
      [
        'f-path-node-role-api-and-config-map',
        [
          `critical cluster/auth-mode-drops-principals ${CLUSTER}`,
          `critical nodes/role-unauthorized ${LEGACY}`,
        ],
      ],
    ] as const) {
      const r = whatIf(loadScenario(name), { kind: 'set-auth-mode', mode: 'API' });
      expect(r.findings.map(line), name).toEqual(expected);
      const arns = written(r.findings);
      expect(arns, name).toContain(LEGACY);
      expect(arns, name).not.toContain(PATHLESS);
      const drops = r.findings.find((f) => f.ruleId === 'cluster/auth-mode-drops-principals');
      expect(drops?.remediation?.awsCli, name).toContain(`--principal-arn ${LEGACY} --type EC2_LINUX`);
    }
  });

  it('predicts that EKS refuses an access entry for the path-less ARN, and creates the one with the path', () => {
    const s = loadScenario('f-path-node-role-api-and-config-map');
    const entry = (principalArn: string) => ({
      kind: 'create-access-entry' as const,
      entry: { principalArn, type: 'EC2_LINUX' as const, kubernetesGroups: [], accessPolicies: [] },
    });
    const refused = whatIf(s, entry(PATHLESS));
    expect(refused.effects.map((e) => e.summary)).toEqual([
      `EKS rejects the call (InvalidParameterException: the principal ARN is invalid): the role's ARN is ${LEGACY}, IAM path included`,
    ]);
    expect(refused.after.accessEntries).toEqual(s.accessEntries);
    const created = whatIf(s, entry(LEGACY));
    expect(
      created.after.accessEntries.status === 'ok' &&
        created.after.accessEntries.data.map((e) => e.principalArn),
    ).toContain(LEGACY);
  });
});

describe('healthy API mode cluster', () => {
  it('has no finding above low', () => {
    const fs = assessSnapshot(loadScenario('healthy-api-mode'));
    expect(fs.filter((f) => ['critical', 'high', 'medium'].includes(f.severity))).toEqual([]);
  });

  it('diffs to nothing against itself', () => {
    const s = loadScenario('healthy-api-mode');
    expect(diffSnapshots(s, structuredClone(s))).toEqual([]);
  });
});
