import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { type TerraformPlan, validatePlan, whatIfTerraformPlan } from '../../shared/core/plan/index.ts';
import { REPO_ROOT } from '../support/fake-io.ts';

// Each run simulates whole plans: a fiftieth of the usual count (CI: 200; PROPERTY_RUNS=200: 20).
const RUNS = Math.max(20, Math.floor(Number(process.env.PROPERTY_RUNS ?? 10_000) / 50));

const load = (path: string): unknown => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8'));
const SNAPSHOTS = [
  'a-karpenter-shares-last-nodegroup-role',
  'b-fargate-entry-removed-by-terraform',
  'healthy-api-mode',
  'e-switch-to-api-mode',
  'workload-identity/wi-healthy-pod-identity',
  'workload-identity/wi-workload-identity-irsa-and-pod-identity',
].map((n) => load(`scenarios/${n}.json`) as ClusterSnapshot);
const PLANS = [
  'a-delete-nodegroup-general',
  'a-replace-nodegroup-general',
  'b-fargate-profile-created-terraform-owns-aws-auth',
  'c-yaml-slip-in-aws-auth',
  'd-node-role-re-created',
  'd-node-access-entry-replaced',
  'e-auth-mode-to-api',
  'no-auth-relevant-change',
  'wi-association-role-changed',
  'wi-role-trust-rewritten-without-tag-session',
  'wi-roles-deleted',
  'wi-worker-node-policy-detached',
  'wi-oidc-provider-deleted',
  'wi-pod-identity-agent-deleted',
].map((n) => load(`test/fixtures/terraform-plan/${n}.json`) as { resource_changes: unknown[] });

function typed(doc: unknown): TerraformPlan {
  const v = validatePlan(doc);
  if (!v.ok) throw new Error(v.error);
  return v.plan;
}

/** What a reader of the result sees: rule, severity, subject, plan address and window. */
function summary(plan: TerraformPlan, snapshot: ClusterSnapshot): string[] {
  const r = whatIfTerraformPlan(plan, [snapshot]);
  return r.clusters
    .flatMap((c) => c.findings)
    .map(
      (f) =>
        `${f.severity} ${f.ruleId} ${f.subject} ${String(f.evidence.planAddress)} ${String(f.evidence.planWindow ?? '')}`,
    )
    .sort();
}

const NODE = 'arn:aws:iam::111122223333:role/prod-node-role';
const FARGATE = 'arn:aws:iam::111122223333:role/prod-fargate-pod-execution';

/** Creates and updates whose every auth-relevant `after` value is unknown at plan time. */
const unknownChange = fc.oneof(
  fc.record({
    type: fc.constant('aws_eks_node_group'),
    after: fc.constant({ cluster_name: 'prod' }),
    unknown: fc.constant({ node_group_name: true, node_role_arn: true }),
  }),
  fc.record({
    type: fc.constant('aws_eks_fargate_profile'),
    after: fc.constant({ cluster_name: 'prod', fargate_profile_name: 'x' }),
    unknown: fc.constant({ pod_execution_role_arn: true }),
  }),
  fc.record({
    type: fc.constant('aws_eks_access_entry'),
    after: fc.constant({ cluster_name: 'prod' }),
    unknown: fc.constant({ principal_arn: true, type: true }),
  }),
  fc.record({
    type: fc.constant('kubernetes_config_map_v1'),
    after: fc.constant({ metadata: [{ name: 'aws-auth', namespace: 'kube-system' }] }),
    unknown: fc.constant({ data: true }),
  }),
  fc.record({
    type: fc.constant('kubernetes_config_map_v1_data'),
    after: fc.constant({
      metadata: [{ name: 'aws-auth', namespace: 'kube-system' }],
      data: { mapRoles: '' },
    }),
    unknown: fc.constant({ data: { mapRoles: true } }),
  }),
  fc.record({
    type: fc.constant('aws_eks_pod_identity_association'),
    after: fc.constant({ cluster_name: 'prod', namespace: 'payments', service_account: 'api' }),
    unknown: fc.constant({ role_arn: true, association_id: true }),
  }),
  fc.record({
    type: fc.constant('aws_eks_access_policy_association'),
    after: fc.constant({ cluster_name: 'prod', principal_arn: NODE }),
    unknown: fc.constant({ policy_arn: true }),
  }),
);

describe('whatIfTerraformPlan (properties)', () => {
  it('gives the same findings whatever the order of resource_changes', () => {
    fc.assert(
      fc.property(
        fc.subarray(PLANS, { minLength: 1 }),
        fc.constantFrom(...SNAPSHOTS),
        fc.infiniteStream(fc.integer()),
        (docs, snapshot, keys) => {
          // one plan holding the changes of several fixtures (addresses kept apart by a prefix)
          const changes = docs.flatMap((d, i) =>
            d.resource_changes.map((c) => {
              const copy = structuredClone(c) as { address: string };
              copy.address = `module.p${i}.${copy.address}`;
              return copy;
            }),
          );
          const order = changes.map((c) => ({ c, k: keys.next().value as number }));
          const shuffled = [...order].sort((x, y) => x.k - y.k).map((x) => x.c);
          const a = typed({ format_version: '1.2', resource_changes: changes });
          const b = typed({ format_version: '1.2', resource_changes: shuffled });
          expect(summary(b, snapshot)).toEqual(summary(a, snapshot));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('never turns a value unknown at plan time into a finding: only unknowns are reported', () => {
    fc.assert(
      fc.property(
        fc.array(unknownChange, { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...SNAPSHOTS),
        (changes, snapshot) => {
          const doc = {
            format_version: '1.2',
            resource_changes: changes.map((c, i) => ({
              address: `${c.type}.u${i}`,
              mode: 'managed',
              type: c.type,
              name: `u${i}`,
              change: { actions: ['create'], before: null, after: c.after, after_unknown: c.unknown },
            })),
          };
          const r = whatIfTerraformPlan(typed(doc), [snapshot]);
          expect(r.relevant).toBe(true);
          const findings = r.clusters.flatMap((c) => c.findings);
          expect(findings).toEqual([]);
          const unknowns = r.clusters
            .flatMap((c) => c.effects)
            .filter((e) => e.summary.includes('UNKNOWN until apply'));
          expect(unknowns.length).toBe(changes.length);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('never throws on a valid plan of random EKS changes', () => {
    const names = fc.constantFrom('general', 'spare', 'fp-default', 'missing');
    const roles = fc.constantFrom(NODE, FARGATE, 'arn:aws:iam::111122223333:role/other');
    const change = fc.record({
      type: fc.constantFrom(
        'aws_eks_node_group',
        'aws_eks_fargate_profile',
        'aws_eks_access_entry',
        'aws_eks_pod_identity_association',
        'aws_eks_addon',
        'aws_iam_role',
        'aws_iam_role_policy_attachment',
        'aws_iam_openid_connect_provider',
      ),
      actions: fc.constantFrom<string[]>(
        ['delete'],
        ['create'],
        ['update'],
        ['delete', 'create'],
        ['create', 'delete'],
      ),
      name: names,
      role: roles,
    });
    fc.assert(
      fc.property(fc.array(change, { maxLength: 8 }), fc.constantFrom(...SNAPSHOTS), (changes, snapshot) => {
        const value = (c: (typeof changes)[number]) => ({
          cluster_name: 'prod',
          node_group_name: c.name,
          node_role_arn: c.role,
          fargate_profile_name: c.name,
          pod_execution_role_arn: c.role,
          principal_arn: c.role,
          type: 'EC2_LINUX',
          association_id: `a-${c.name}`,
          namespace: 'payments',
          service_account: c.name,
          role_arn: c.role,
          addon_name: c.name === 'missing' ? 'eks-pod-identity-agent' : c.name,
          arn: c.role,
          name: c.name,
          assume_role_policy: c.name === 'spare' ? '{"Statement":[' : '{"Statement":[]}',
          role: 'prod-node-role',
          policy_arn: 'arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy',
          url: `oidc.eks.eu-west-1.amazonaws.com/id/${c.name}`,
        });
        const doc = {
          format_version: '1.2',
          resource_changes: changes.map((c, i) => ({
            address: `${c.type}.r${i}`,
            mode: 'managed',
            type: c.type,
            name: `r${i}`,
            change: {
              actions: c.actions,
              before: c.actions.includes('delete') || c.actions[0] === 'update' ? value(c) : null,
              after: c.actions.includes('create') || c.actions[0] === 'update' ? value(c) : null,
              after_unknown: {},
            },
          })),
        };
        const r = whatIfTerraformPlan(typed(doc), [snapshot]);
        for (const f of r.clusters.flatMap((c) => c.findings))
          expect(typeof f.evidence.planAddress).toBe('string');
      }),
      { numRuns: RUNS },
    );
  });
});
