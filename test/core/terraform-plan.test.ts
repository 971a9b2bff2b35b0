import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import {
  type ResourceChange,
  translatePlan,
  validatePlan,
  whatIfTerraformPlan,
} from '../../shared/core/plan/index.ts';
import { REPO_ROOT } from '../support/fake-io.ts';
import { plan, rc } from '../support/terraform-plan.ts';

const load = (path: string): unknown => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8'));
const scenario = (name: string) => load(`scenarios/${name}.json`) as ClusterSnapshot;

const NODE = 'arn:aws:iam::111122223333:role/prod-node-role';
const ADMIN = 'arn:aws:iam::111122223333:role/platform-admin';

describe('validatePlan', () => {
  it('accepts the format_version of Terraform 1.x and OpenTofu (major 1)', () => {
    for (const version of ['0.2', '1.0', '1.2', '1.9']) {
      const v = validatePlan({ format_version: version, resource_changes: [] });
      expect(v.ok).toBe(version.startsWith('1.'));
    }
  });

  it('rejects an errored plan and an unknown major version, naming the field', () => {
    expect(validatePlan({ format_version: '1.2', errored: true, resource_changes: [] })).toMatchObject({
      ok: false,
      path: '$.errored',
    });
    expect(validatePlan({ format_version: '2.0', resource_changes: [] })).toMatchObject({
      ok: false,
      path: '$.format_version',
    });
  });

  it('names the JSON path of a resource change without its change block', () => {
    const v = validatePlan({
      format_version: '1.2',
      resource_changes: [{ address: 'x.y', mode: 'managed', type: 'x', name: 'y' }],
    });
    expect(v).toMatchObject({ ok: false, path: '$.resource_changes[0].change' });
  });
});

describe('translatePlan', () => {
  it('orders the steps as EKS and Kubernetes apply them: mode, roles, creates, aws-auth, deletes', () => {
    const t = translatePlan(
      plan([
        rc(
          'aws_eks_node_group.old',
          'aws_eks_node_group',
          ['delete'],
          { cluster_name: 'prod', node_group_name: 'old', node_role_arn: NODE },
          null,
        ),
        rc(
          'kubernetes_config_map_v1.aws_auth',
          'kubernetes_config_map_v1',
          ['update'],
          { metadata: [{ name: 'aws-auth', namespace: 'kube-system' }], data: {} },
          { metadata: [{ name: 'aws-auth', namespace: 'kube-system' }], data: { mapRoles: '' } },
        ),
        rc('aws_eks_fargate_profile.new', 'aws_eks_fargate_profile', ['create'], null, {
          cluster_name: 'prod',
          fargate_profile_name: 'new',
          pod_execution_role_arn: NODE,
        }),
        rc(
          'aws_iam_role.r',
          'aws_iam_role',
          ['delete', 'create'],
          { arn: ADMIN, name: 'platform-admin', path: '/' },
          { name: 'platform-admin', path: '/' },
          { arn: true },
        ),
        rc(
          'aws_eks_cluster.prod',
          'aws_eks_cluster',
          ['update'],
          { name: 'prod', access_config: [{ authentication_mode: 'CONFIG_MAP' }] },
          { name: 'prod', access_config: [{ authentication_mode: 'API_AND_CONFIG_MAP' }] },
        ),
      ]).resourceChanges,
    );
    expect(t.steps.map((s) => s.address)).toEqual([
      'aws_eks_cluster.prod',
      'aws_iam_role.r',
      'aws_eks_fargate_profile.new',
      'kubernetes_config_map_v1.aws_auth',
      'aws_eks_node_group.old',
    ]);
    // the new role's ARN is built from the same account, path and name, not guessed
    expect(t.steps[1]?.action).toEqual({
      kind: 'role-replaced',
      oldArn: ADMIN,
      newArn: ADMIN,
      deleted: false,
    });
  });

  it('keeps the halves of a replace next to each other, in the plan’s order', () => {
    const ng = { cluster_name: 'prod', node_group_name: 'g', node_role_arn: NODE };
    for (const [actions, halves] of [
      [
        ['delete', 'create'],
        ['delete', 'create'],
      ],
      [
        ['create', 'delete'],
        ['create', 'delete'],
      ],
    ] as const) {
      const t = translatePlan(
        plan([rc('aws_eks_node_group.g', 'aws_eks_node_group', [...actions], ng, ng)]).resourceChanges,
      );
      expect(t.steps.map((s) => s.half)).toEqual(halves);
    }
  });

  it('destroys a policy association before its access entry, as Terraform does (whatever the addresses)', () => {
    const POLICY = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy';
    const changes = [
      rc(
        'aws_eks_access_entry.admin',
        'aws_eks_access_entry',
        ['delete'],
        {
          cluster_name: 'prod',
          principal_arn: ADMIN,
          type: 'STANDARD',
        },
        null,
      ),
      rc(
        'aws_eks_access_policy_association.admin',
        'aws_eks_access_policy_association',
        ['delete'],
        {
          cluster_name: 'prod',
          principal_arn: ADMIN,
          policy_arn: POLICY,
        },
        null,
      ),
    ];
    for (const order of [changes, [...changes].reverse()]) {
      const t = translatePlan(plan(order).resourceChanges);
      expect(t.steps.map((s) => (s.action.kind === 'change' ? s.action.change.kind : s.action.kind))).toEqual(
        ['disassociate-access-policy', 'delete-access-entry'],
      );
    }
    // Simulated: the association goes first, so no "EKS answers ResourceNotFoundException" effect.
    const [cluster] = whatIfTerraformPlan(plan(changes), [scenario('healthy-api-mode')]).clusters;
    const effects = cluster?.effects.map((e) => e.summary) ?? [];
    expect(effects).toHaveLength(2);
    expect(effects.join('\n')).not.toContain('ResourceNotFoundException');
  });

  it('reports an after_unknown value as unknown and simulates nothing from it', () => {
    const t = translatePlan(
      plan([
        rc(
          'aws_eks_access_entry.x',
          'aws_eks_access_entry',
          ['create'],
          null,
          { cluster_name: 'prod', type: 'EC2_LINUX' },
          { principal_arn: true },
        ),
        rc(
          'kubernetes_config_map_v1_data.aws_auth',
          'kubernetes_config_map_v1_data',
          ['update'],
          { metadata: [{ name: 'aws-auth', namespace: 'kube-system' }], data: { mapRoles: '' } },
          { metadata: [{ name: 'aws-auth', namespace: 'kube-system' }], data: {} },
          { data: true },
        ),
      ]).resourceChanges,
    );
    expect(t.steps).toEqual([]);
    expect(t.unknowns.map((u) => u.address)).toEqual([
      'aws_eks_access_entry.x',
      'kubernetes_config_map_v1_data.aws_auth',
    ]);
  });

  it('ignores ConfigMaps other than kube-system/aws-auth (the namespace defaults to "default")', () => {
    const t = translatePlan(
      plan([
        rc(
          'kubernetes_config_map_v1.a',
          'kubernetes_config_map_v1',
          ['update'],
          { metadata: [{ name: 'aws-auth' }], data: {} },
          { metadata: [{ name: 'aws-auth' }], data: { mapRoles: '' } },
        ),
      ]).resourceChanges,
    );
    expect(t.steps).toEqual([]);
  });
});

describe('whatIfTerraformPlan', () => {
  it('finds nothing relevant in a plan of only no-op, read and unrelated changes', () => {
    const v = validatePlan(load('test/fixtures/terraform-plan/no-auth-relevant-change.json'));
    if (!v.ok) throw new Error(v.error);
    expect(whatIfTerraformPlan(v.plan, [scenario('healthy-api-mode')]).relevant).toBe(false);
  });

  it('keeps a node group replace that creates first silent: the other managed node group keeps the role', () => {
    const ng = { cluster_name: 'prod', node_group_name: 'general', node_role_arn: NODE };
    const r = whatIfTerraformPlan(
      plan([
        rc('aws_eks_node_group.g', 'aws_eks_node_group', ['create', 'delete'], ng, {
          ...ng,
          node_group_name: 'general-2',
        }),
      ]),
      [scenario('a-karpenter-shares-last-nodegroup-role')],
    );
    expect(r.clusters[0]?.findings.filter((f) => f.severity === 'critical')).toEqual([]);
  });

  it('matches changes to clusters by cluster_name and lists those without a snapshot', () => {
    const ng = (cluster: string) => ({
      cluster_name: cluster,
      node_group_name: 'general',
      node_role_arn: NODE,
    });
    const r = whatIfTerraformPlan(
      plan([
        rc('aws_eks_node_group.prod', 'aws_eks_node_group', ['delete'], ng('prod'), null),
        rc('aws_eks_node_group.staging', 'aws_eks_node_group', ['delete'], ng('staging'), null),
      ]),
      [scenario('a-karpenter-shares-last-nodegroup-role')],
    );
    expect(r.clusters.map((c) => c.cluster.name)).toEqual(['prod']);
    expect(r.clusters[0]?.findings[0]?.evidence.planAddress).toBe('aws_eks_node_group.prod');
    expect(r.unmatched).toEqual([{ cluster: 'staging', addresses: ['aws_eks_node_group.staging'] }]);
  });

  it('predicts EKS refusing an access entry for the path-less ARN of a role with a path', () => {
    const LEGACY = 'arn:aws:iam::111122223333:role/eks/legacy-node';
    const entry = (principal: string) =>
      plan([
        rc('aws_eks_access_entry.legacy', 'aws_eks_access_entry', ['create'], null, {
          cluster_name: 'prod',
          principal_arn: principal,
          type: 'EC2_LINUX',
        }),
      ]);
    const s = scenario('f-path-node-role-api-and-config-map');
    const [guessed] = whatIfTerraformPlan(entry('arn:aws:iam::111122223333:role/legacy-node'), [s]).clusters;
    expect(guessed?.effects.map((e) => e.summary)).toContainEqual(
      expect.stringContaining(
        `EKS rejects the call (InvalidParameterException: the principal ARN is invalid): the role's ARN is ${LEGACY}`,
      ),
    );
    const [real] = whatIfTerraformPlan(entry(LEGACY), [s]).clusters;
    expect(real?.effects.map((e) => e.summary).join('\n')).not.toContain('EKS rejects');
  });

  it('names the EKS-added Fargate entry that the plan’s aws-auth drops', () => {
    const v = validatePlan(
      load('test/fixtures/terraform-plan/b-fargate-profile-created-terraform-owns-aws-auth.json'),
    );
    if (!v.ok) throw new Error(v.error);
    const [c] = whatIfTerraformPlan(v.plan, [scenario('b-fargate-entry-removed-by-terraform')]).clusters;
    const dropped = c?.effects.find((e) =>
      e.summary.includes('EKS added this entry for Fargate profile batch'),
    );
    expect(dropped?.summary).toMatch(
      /^kubernetes_config_map_v1_data\.aws_auth: aws-auth mapRoles: .*prod-fargate-batch/,
    );
  });

  it('deleting aws-auth through Terraform unmaps every node', () => {
    const meta = [{ name: 'aws-auth', namespace: 'kube-system' }];
    const r = whatIfTerraformPlan(
      plan([
        rc(
          'kubernetes_config_map.aws_auth',
          'kubernetes_config_map',
          ['delete'],
          { metadata: meta, data: {} },
          null,
        ),
      ]),
      [scenario('a-karpenter-shares-last-nodegroup-role')],
    );
    expect(r.clusters[0]?.findings.map((f) => `${f.severity} ${f.ruleId}`)).toContain(
      'critical nodes/role-unauthorized',
    );
  });

  it('does not depend on the resource change objects it reads (no mutation)', () => {
    const v = validatePlan(load('test/fixtures/terraform-plan/d-node-role-re-created.json'));
    if (!v.ok) throw new Error(v.error);
    const copy: ResourceChange[] = structuredClone(v.plan.resourceChanges);
    const snap = scenario('healthy-api-mode');
    const before = structuredClone(snap);
    whatIfTerraformPlan(v.plan, [snap]);
    expect(v.plan.resourceChanges).toEqual(copy);
    expect(snap).toEqual(before);
  });
});
