/**
 * An EKS Auto Mode custom NodeClass role needs an `EC2` access entry with AmazonEKSAutoNodePolicy,
 * which EKS creates only for the built-in node pools' role (docs/eks-auth-semantics.md
 * #eks-owned-access-entries): `nodes/role-unauthorized` finds a class role without it, and its
 * fix (AWS CLI and Terraform, through the quoting layers) creates what is missing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { atLeast, type ClusterSnapshot } from '../../../shared/core/model.ts';
import { assessSnapshot } from '../../../shared/core/predict/engine.ts';
import { formatSnapshotErrors, parseSnapshotJson } from '../../../shared/core/snapshot/snapshot-schema.ts';

const dir = new URL('../../../scenarios/eks-principals/', import.meta.url);
function load(name: string): ClusterSnapshot {
  const result = parseSnapshotJson(readFileSync(new URL(`${name}.json`, dir), 'utf8'), name);
  if (!result.ok) throw new Error(formatSnapshotErrors(name, result));
  return result.snapshot;
}

const GPU_ROLE = 'arn:aws:iam::111122223333:role/prod-gpu-node-role';
const POLICY = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy';

function gpuFindings(s: ClusterSnapshot) {
  return assessSnapshot(s).filter((f) => atLeast(f.severity, 'low'));
}

describe('Auto Mode custom NodeClass role', () => {
  it('without an access entry: nodes/role-unauthorized (high, no node yet) names the class', () => {
    const findings = gpuFindings(load('ep-auto-mode-custom-nodeclass-no-entry'));
    expect(findings.map((f) => [f.ruleId, f.severity, f.subject])).toEqual([
      ['nodes/role-unauthorized', 'high', GPU_ROLE],
    ]);
    expect(findings[0]?.blastRadius?.nodeClasses).toEqual(['gpu']);
  });

  it('the fix creates the EC2 entry and associates AmazonEKSAutoNodePolicy, in the AWS CLI and Terraform', () => {
    const [f] = gpuFindings(load('ep-auto-mode-custom-nodeclass-no-entry'));
    expect(f?.remediation?.awsCli?.split('\n')).toEqual([
      'aws eks create-access-entry --cluster-name prod --region eu-west-1 \\',
      `  --principal-arn ${GPU_ROLE} --type EC2`,
      'aws eks associate-access-policy --cluster-name prod --region eu-west-1 \\',
      `  --principal-arn ${GPU_ROLE} --policy-arn ${POLICY} --access-scope type=cluster`,
    ]);
    const tf = f?.remediation?.terraform ?? '';
    expect(tf).toContain('resource "aws_eks_access_entry" "prod_gpu_node_role" {');
    expect(tf).toContain('resource "aws_eks_access_policy_association" "prod_gpu_node_role__auto_node" {');
    expect(tf).toContain('principal_arn = aws_eks_access_entry.prod_gpu_node_role.principal_arn');
    expect(tf).toContain(`policy_arn    = "${POLICY}"`);
    expect(tf).toMatch(/access_scope \{\n\s+type = "cluster"\n\s+\}/);
  });

  it('with an EC2 entry but no AmazonEKSAutoNodePolicy: still unauthorized, and the fix only associates', () => {
    const s = load('ep-auto-mode-custom-nodeclass-no-entry');
    if (s.accessEntries.status !== 'ok') throw new Error('entries');
    s.accessEntries.data.push({
      principalArn: GPU_ROLE,
      type: 'EC2',
      kubernetesGroups: ['system:nodes'],
      accessPolicies: [],
      createdAt: '2026-11-10T09:05:00Z',
    });
    const [f, ...rest] = gpuFindings(s);
    expect(rest).toEqual([]);
    expect([f?.ruleId, f?.subject]).toEqual(['nodes/role-unauthorized', GPU_ROLE]);
    expect(f?.detail).toContain('no AmazonEKSAutoNodePolicy association');
    expect(f?.remediation?.awsCli).not.toContain('create-access-entry');
    expect(f?.remediation?.awsCli).toContain('associate-access-policy');
  });

  it('with the entry and the policy: nothing at or above low', () => {
    const s = load('ep-auto-mode-custom-nodeclass-no-entry');
    if (s.accessEntries.status !== 'ok') throw new Error('entries');
    s.accessEntries.data.push({
      principalArn: GPU_ROLE,
      type: 'EC2',
      kubernetesGroups: ['system:nodes'],
      accessPolicies: [{ policyArn: POLICY, accessScope: { type: 'cluster' } }],
      createdAt: '2026-11-10T09:05:00Z',
    });
    expect(gpuFindings(s)).toEqual([]);
  });

  it('an unreadable NodeClass list is reported, never taken as "no classes"', () => {
    const s = load('ep-auto-mode-custom-nodeclass-no-entry');
    s.autoModeNodeClasses = { status: 'error', error: 'kubernetes: 403 list nodeclasses.eks.amazonaws.com' };
    const findings = assessSnapshot(s);
    expect(findings.filter((f) => f.subject === GPU_ROLE)).toEqual([]);
    expect(findings.map((f) => f.ruleId)).toContain('monitor/source-unavailable');
  });
});
