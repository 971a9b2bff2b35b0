import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { translatePlan, whatIfTerraformPlan } from '../../shared/core/plan/index.ts';
import { REPO_ROOT } from '../support/fake-io.ts';
import { plan, rc } from '../support/terraform-plan.ts';

const scenario = (name: string) =>
  JSON.parse(
    readFileSync(join(REPO_ROOT, `scenarios/workload-identity/${name}.json`), 'utf8'),
  ) as ClusterSnapshot;

const ROLE = 'arn:aws:iam::111122223333:role/payments-api';
const IRSA_ROLE = 'arn:aws:iam::111122223333:role/payments-api-irsa';
const PROVIDER = 'arn:aws:iam::111122223333:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/PROD';
const ASSOCIATION = 'aws_eks_pod_identity_association.api';
const POD_TRUST = JSON.stringify({
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Allow',
      Principal: { Service: 'pods.eks.amazonaws.com' },
      Action: ['sts:AssumeRole', 'sts:TagSession'],
    },
  ],
});
const EC2_TRUST = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});

const association = (over: Record<string, unknown> = {}) => ({
  association_id: 'a-payments0api00001',
  cluster_name: 'prod',
  namespace: 'payments',
  service_account: 'api',
  role_arn: ROLE,
  target_role_arn: null,
  disable_session_tags: false,
  ...over,
});

const role = (name: string, trust: string, over: Record<string, unknown> = {}) => ({
  arn: `arn:aws:iam::111122223333:role/${name}`,
  name,
  path: '/',
  assume_role_policy: trust,
  tags: {},
  ...over,
});

function run(changes: unknown[], snapshots: ClusterSnapshot[]) {
  const r = whatIfTerraformPlan(plan(changes), snapshots);
  const findings = r.clusters.flatMap((c) => c.findings);
  return {
    r,
    findings,
    rules: findings.map((f) => `${f.ruleId} @ ${String(f.evidence.planAddress)}`).sort(),
    effects: r.clusters.flatMap((c) => c.effects.map((e) => e.summary)),
  };
}

/** The Pod Identity cluster before anyone set Pod Identity up: no association, no agent. */
function withoutPodIdentity(): ClusterSnapshot {
  const s = scenario('wi-healthy-pod-identity');
  return {
    ...s,
    podIdentityAssociations: { status: 'ok', data: [] },
    addons: { status: 'ok', data: [{ name: 'vpc-cni', healthIssues: [] }] },
  };
}

describe('whatif --terraform-plan: Pod Identity associations', () => {
  it('reports a target role known only after apply as unknown and simulates nothing of it', () => {
    const { findings, effects } = run(
      [
        rc(
          ASSOCIATION,
          'aws_eks_pod_identity_association',
          ['create'],
          null,
          association({ target_role_arn: null }),
          {
            association_id: true,
            target_role_arn: true,
          },
        ),
      ],
      [scenario('wi-healthy-irsa')],
    );
    expect(findings).toEqual([]);
    expect(effects).toEqual([
      `${ASSOCIATION}: UNKNOWN until apply — target_role_arn known only after apply: the association is not simulated`,
    ]);
  });

  it('takes an in-place update that changes only tags as no step', () => {
    const t = translatePlan(
      plan([
        rc(
          ASSOCIATION,
          'aws_eks_pod_identity_association',
          ['update'],
          association({ tags: {} }),
          association({ tags: { team: 'payments' } }),
        ),
      ]).resourceChanges,
    );
    expect(t.steps).toEqual([]);
    expect(t.unknowns).toEqual([]);
  });

  it('says what breaks between the delete and the create of a replace that keeps the service account', () => {
    const { findings, effects } = run(
      [
        rc(
          ASSOCIATION,
          'aws_eks_pod_identity_association',
          ['delete', 'create'],
          association(),
          association({ association_id: null }),
          { association_id: true },
        ),
      ],
      [scenario('wi-healthy-pod-identity')],
    );
    expect(findings).toEqual([]);
    expect(effects.join('\n')).toContain(
      `${ASSOCIATION}: replaced, deleting first: between the delete and the create, pods of payments/api started then get no Pod Identity credentials`,
    );
  });

  it('says EKS refuses the create of a create_before_destroy replace for the same service account', () => {
    const { effects } = run(
      [
        rc(
          ASSOCIATION,
          'aws_eks_pod_identity_association',
          ['create', 'delete'],
          association(),
          association({ association_id: null }),
          { association_id: true },
        ),
      ],
      [scenario('wi-healthy-pod-identity')],
    );
    expect(effects[0]).toBe(
      `${ASSOCIATION}: payments/api already has an association: EKS answers ResourceInUseException`,
    );
    expect(effects.join('\n')).not.toContain('between the delete and the create');
  });

  it('finds nothing when the plan creates the agent with the first association, and agent-missing without it', () => {
    const agent = rc('aws_eks_addon.agent', 'aws_eks_addon', ['create'], null, {
      cluster_name: 'prod',
      addon_name: 'eks-pod-identity-agent',
      addon_version: 'v1.3.4-eksbuild.1',
    });
    const create = rc(ASSOCIATION, 'aws_eks_pod_identity_association', ['create'], null, association(), {
      association_id: true,
    });
    expect(run([agent, create], [withoutPodIdentity()]).rules).toEqual([]);
    expect(run([create], [withoutPodIdentity()]).rules).toEqual([
      `pod-identity/agent-missing @ ${ASSOCIATION}`,
    ]);
  });
});

describe('whatif --terraform-plan: IAM roles', () => {
  it('takes a trust policy that is only re-formatted as no change', () => {
    const before = role('payments-api', POD_TRUST);
    const after = role('payments-api', JSON.stringify(JSON.parse(POD_TRUST), null, 2), { tags: { a: 'b' } });
    const r = whatIfTerraformPlan(plan([rc('aws_iam_role.api', 'aws_iam_role', ['update'], before, after)]), [
      scenario('wi-healthy-pod-identity'),
    ]);
    expect(r.relevant).toBe(false);
  });

  it('evaluates the trust policy of a re-created role', () => {
    const { rules } = run(
      [
        rc(
          'aws_iam_role.api',
          'aws_iam_role',
          ['delete', 'create'],
          role('payments-api', POD_TRUST),
          { name: 'payments-api', path: '/', assume_role_policy: EC2_TRUST },
          { arn: true, unique_id: true },
        ),
      ],
      [scenario('wi-healthy-pod-identity')],
    );
    expect(rules).toEqual(['pod-identity/role-trust-missing @ aws_iam_role.api']);
  });

  it('names the step that rewrote the trust, not the last step of the plan', () => {
    const { rules } = run(
      [
        rc(
          'aws_iam_role.api',
          'aws_iam_role',
          ['update'],
          role('payments-api', POD_TRUST),
          role('payments-api', EC2_TRUST),
        ),
        rc(
          'aws_eks_addon.agent',
          'aws_eks_addon',
          ['update'],
          { cluster_name: 'prod', addon_name: 'eks-pod-identity-agent', addon_version: 'v1.3.4-eksbuild.1' },
          { cluster_name: 'prod', addon_name: 'eks-pod-identity-agent', addon_version: 'v1.3.5-eksbuild.1' },
        ),
      ],
      [scenario('wi-healthy-pod-identity')],
    );
    expect(rules).toEqual(['pod-identity/role-trust-missing @ aws_iam_role.api']);
  });
});

describe('whatif --terraform-plan: node role permissions', () => {
  const policyArn = 'arn:aws:iam::111122223333:policy/pod-identity-agent';
  const detach = (arn: string) =>
    rc(
      'aws_iam_role_policy_attachment.node',
      'aws_iam_role_policy_attachment',
      ['delete'],
      {
        role: 'prod-node-role',
        policy_arn: arn,
      },
      null,
    );
  const grant = JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: 'eks-auth:Assume*', Resource: '*' }],
  });

  it('says it cannot tell whether another policy still allows the call when a granting policy is detached', () => {
    const { findings } = run(
      [
        detach(policyArn),
        rc(
          'aws_iam_policy.agent',
          'aws_iam_policy',
          ['update'],
          { arn: policyArn, policy: grant, name: 'pod-identity-agent' },
          { arn: policyArn, policy: grant, name: 'pod-identity-agent', description: 'x' },
        ),
      ],
      [scenario('wi-healthy-pod-identity')],
    );
    expect(findings.map((f) => f.ruleId)).toEqual(['pod-identity/node-role-cannot-assume']);
    expect(findings[0]?.evidence.verdict).toBe('cannot tell');
    expect(findings[0]?.title).toContain(
      'cannot tell from the snapshot whether another of its policies still allows it',
    );
  });

  it('notes a detached policy whose document the plan does not hold, and ignores AWS policies that do not grant the call', () => {
    const unknownDoc = run([detach(policyArn)], [scenario('wi-healthy-pod-identity')]);
    expect(unknownDoc.findings).toEqual([]);
    expect(unknownDoc.r.notes.join('\n')).toContain(
      `aws_iam_role_policy_attachment.node: ${policyArn} is detached from role prod-node-role: whether it allowed eks-auth:AssumeRoleForPodIdentity cannot be told from the plan`,
    );
    const cni = whatIfTerraformPlan(plan([detach('arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy')]), [
      scenario('wi-healthy-pod-identity'),
    ]);
    expect(cni.relevant).toBe(false);
  });

  it('takes the delete of an inline policy that grants the call like a detach', () => {
    const { rules } = run(
      [
        rc(
          'aws_iam_role_policy.agent',
          'aws_iam_role_policy',
          ['delete'],
          {
            role: 'prod-node-role',
            name: 'agent',
            policy: grant,
          },
          null,
        ),
      ],
      [scenario('wi-healthy-pod-identity')],
    );
    expect(rules).toEqual(['pod-identity/node-role-cannot-assume @ aws_iam_role_policy.agent']);
  });
});

describe('whatif --terraform-plan: OIDC provider and agent add-on replaced', () => {
  const provider = (url: string) => ({ arn: PROVIDER, url, client_id_list: ['sts.amazonaws.com'] });

  it('reports irsa/oidc-provider-missing between the delete and the create of a same-URL replace, and for good otherwise', () => {
    const same = run(
      [
        rc(
          'aws_iam_openid_connect_provider.eks',
          'aws_iam_openid_connect_provider',
          ['delete', 'create'],
          provider('oidc.eks.eu-west-1.amazonaws.com/id/PROD'),
          { url: 'https://oidc.eks.eu-west-1.amazonaws.com/id/PROD', client_id_list: ['sts.amazonaws.com'] },
          { arn: true, thumbprint_list: true },
        ),
      ],
      [scenario('wi-healthy-irsa')],
    );
    expect(same.findings.map((f) => [f.ruleId, f.evidence.planWindow])).toEqual([
      ['irsa/oidc-provider-missing', 'between-delete-and-create'],
    ]);
    const moved = run(
      [
        rc(
          'aws_iam_openid_connect_provider.eks',
          'aws_iam_openid_connect_provider',
          ['delete', 'create'],
          provider('oidc.eks.eu-west-1.amazonaws.com/id/PROD'),
          { url: 'https://oidc.eks.eu-west-1.amazonaws.com/id/GREEN' },
          { arn: true },
        ),
      ],
      [scenario('wi-healthy-irsa')],
    );
    expect(moved.findings.map((f) => [f.ruleId, f.evidence.planWindow])).toEqual([
      ['irsa/oidc-provider-missing', undefined],
    ]);
  });

  it('reports pod-identity/agent-missing between the delete and the create of the agent', () => {
    const agent = {
      cluster_name: 'prod',
      addon_name: 'eks-pod-identity-agent',
      addon_version: 'v1.3.4-eksbuild.1',
    };
    const { findings } = run(
      [rc('aws_eks_addon.agent', 'aws_eks_addon', ['delete', 'create'], agent, agent, { arn: true })],
      [scenario('wi-healthy-pod-identity')],
    );
    expect(findings.map((f) => [f.ruleId, f.evidence.planWindow])).toEqual([
      ['pod-identity/agent-missing', 'between-delete-and-create'],
    ]);
  });
});

describe('whatif --terraform-plan: several clusters', () => {
  it('puts an EKS change on the cluster its cluster_name names and an IAM change on every cluster', () => {
    const prod = scenario('wi-healthy-pod-identity');
    const staging: ClusterSnapshot = { ...structuredClone(prod), clusterName: 'staging' };
    const { r } = run(
      [
        rc(
          'aws_eks_addon.staging_agent',
          'aws_eks_addon',
          ['delete'],
          { cluster_name: 'staging', addon_name: 'eks-pod-identity-agent' },
          null,
        ),
        rc(
          'aws_iam_role.api',
          'aws_iam_role',
          ['update'],
          role('payments-api', POD_TRUST),
          role('payments-api', EC2_TRUST),
        ),
      ],
      [prod, staging],
    );
    const byCluster = Object.fromEntries(
      r.clusters.map((c) => [c.cluster.name, c.findings.map((f) => f.ruleId).sort()]),
    );
    expect(byCluster).toEqual({
      prod: ['pod-identity/role-trust-missing'],
      staging: ['pod-identity/agent-missing', 'pod-identity/role-trust-missing'],
    });
  });

  it('deletes the IRSA role and the Pod Identity role together: each path names its role', () => {
    const { rules } = run(
      [
        rc('aws_iam_role.api', 'aws_iam_role', ['delete'], role('payments-api', POD_TRUST), null),
        rc('aws_iam_role.irsa', 'aws_iam_role', ['delete'], role('payments-api-irsa', EC2_TRUST), null),
      ],
      [scenario('wi-workload-identity-irsa-and-pod-identity')],
    );
    expect(rules).toEqual([
      'irsa/role-not-found @ aws_iam_role.irsa',
      'pod-identity/role-not-found @ aws_iam_role.api',
    ]);
    expect(IRSA_ROLE).toContain('payments-api-irsa');
  });
});
