import { describe, expect, it } from 'vitest';
import { assessWithWhatIfs } from '../../shared/app/commands/report-command.ts';
import type { ClusterSnapshot, ComputeNode } from '../../shared/core/model.ts';
import { whatIfTerraformPlan } from '../../shared/core/plan/index.ts';
import { deletionChanges } from '../../shared/core/predict/change.ts';
import { buildDependencyGraph } from '../../shared/core/render/dependency-graph.ts';
import { renderHtmlReport } from '../../shared/core/render/html-report.ts';
import { INJECTIONS } from '../hostile/strings.ts';
import { loadScenario } from '../support/snapshot-builder.ts';
import { plan, rc } from '../support/terraform-plan.ts';

const ACCOUNT = '111122223333';
const role = (name: string) => `arn:aws:iam::${ACCOUNT}:role/${name}`;

function page(snapshot: ClusterSnapshot): string {
  const assessed = assessWithWhatIfs(snapshot, deletionChanges(snapshot));
  return renderHtmlReport({
    title: 'EKS authentication report',
    tool: { name: 'eks-auth-sentinel', version: '0.0.0-test' },
    clusters: [{ snapshot, ...assessed }],
  });
}

/** A 1,000-node cluster: 20 managed node groups of 40 nodes, 200 Karpenter nodes; half the roles unmapped. */
function bigCluster(): ClusterSnapshot {
  const s = loadScenario('a-karpenter-shares-last-nodegroup-role');
  const groups = Array.from({ length: 20 }, (_, i) => ({ name: `ng-${i}`, roleArn: role(`node-role-${i}`) }));
  const nodes: ComputeNode[] = groups.flatMap((g, i) =>
    Array.from({ length: 40 }, (_, j) => ({
      kind: 'managed' as const,
      id: `i-0${String(i).padStart(3, '0')}${String(j).padStart(12, '0')}`,
      nodeName: `ip-10-${i}-${j}-1.eu-west-1.compute.internal`,
      roleArn: g.roleArn,
      nodegroup: g.name,
      ready: 'True' as const,
    })),
  );
  for (let j = 0; j < 200; j++) {
    nodes.push({
      kind: 'karpenter',
      id: `i-0999${String(j).padStart(12, '0')}`,
      nodeName: `ip-10-200-${j}-1.eu-west-1.compute.internal`,
      roleArn: role('karpenter-node'),
      nodeClass: 'default',
      nodePool: 'general',
    });
  }
  s.nodegroups = {
    status: 'ok',
    data: groups.map((g) => ({
      name: g.name,
      status: 'ACTIVE',
      nodeRole: g.roleArn,
      desiredSize: 40,
      healthIssues: [],
    })),
  };
  s.karpenterNodeClasses = { status: 'ok', data: [{ name: 'default', roleArn: role('karpenter-node') }] };
  s.compute = { status: 'ok', data: nodes };
  const mapped = [...groups.filter((_, i) => i % 2 === 0).map((g) => g.roleArn), role('karpenter-node')];
  if (s.awsAuth.status !== 'ok') throw new Error('fixture');
  s.awsAuth.data.data = {
    mapRoles: mapped
      .map(
        (arn) =>
          `- rolearn: ${arn}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: [system:bootstrappers, system:nodes]\n`,
      )
      .join(''),
  };
  s.iamRoles = {
    status: 'ok',
    data: [...groups.map((g) => g.roleArn), role('karpenter-node')].map((arn) => ({
      arn,
      state: 'exists' as const,
      createDate: '2025-01-01T00:00:00Z',
    })),
  };
  return s;
}

describe('renderHtmlReport', () => {
  it('stays under 2 MB for a 1,000-node cluster with its findings and what-ifs (a size, not a timing)', () => {
    const s = bigCluster();
    expect(s.compute.status === 'ok' && s.compute.data.length).toBe(1000);
    const html = page(s);
    const bytes = Buffer.byteLength(html, 'utf8');
    expect(html.match(/<article class="finding critical"/g)?.length ?? 0).toBeGreaterThanOrEqual(10);
    expect(bytes).toBeLessThan(2 * 1024 * 1024);
  });

  it('is self-contained: no script, no external reference, a CSP that forbids loading anything', () => {
    const html = page(loadScenario('b-fargate-entry-removed-by-terraform'));
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\((?!#)/i);
    expect(html.match(/https?:\/\/[^"\s<]*/g) ?? []).toEqual(['http://www.w3.org/2000/svg']);
  });

  it('escapes every attacker-written string: no markup from aws-auth reaches the page', () => {
    const s = loadScenario('a-karpenter-shares-last-nodegroup-role');
    if (s.awsAuth.status !== 'ok' || s.compute.status !== 'ok') throw new Error('fixture');
    const evil = '<script>alert(1)</script>"><img src=x onerror=alert(1)>';
    s.awsAuth.data.data.mapRoles += `- rolearn: ${role('x')}\n  username: '${evil.replaceAll("'", "''")}'\n  groups: ['${INJECTIONS[1]}']\n`;
    const first = s.compute.data[0];
    if (first) first.nodeName = evil;
    const html = page(s);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('renderHtmlReport: plan addresses', () => {
  it('shows the plan address of a finding from a Terraform plan, HTML-escaped, and none where there is none', () => {
    const snapshot = loadScenario('a-karpenter-shares-last-nodegroup-role');
    // A for_each key is any string the configuration gives: attacker-influenced text.
    const address = 'module.eks.aws_eks_node_group.this["<img src=x onerror=alert(1)>\'"]';
    const result = whatIfTerraformPlan(
      plan([
        rc(
          address,
          'aws_eks_node_group',
          ['delete'],
          { cluster_name: 'prod', node_group_name: 'general', node_role_arn: role('prod-node-role') },
          null,
        ),
      ]),
      [snapshot],
    );
    const findings = result.clusters.flatMap((c) => c.findings);
    expect(findings.length).toBeGreaterThan(0);
    const html = renderHtmlReport({
      title: 'EKS authentication report',
      tool: { name: 'eks-auth-sentinel' },
      clusters: [
        {
          snapshot,
          findings: [],
          whatIf: [{ label: 'terraform plan', effects: [], findings }],
        },
      ],
    });
    expect(html).not.toContain('<img');
    const shown =
      '<dt>plan address</dt><dd><code class="plan-address">module.eks.aws_eks_node_group.this[&quot;&lt;img src=x onerror=alert(1)&gt;&#39;&quot;]</code></dd>';
    expect(html.split(shown).length - 1).toBe(findings.length);
    expect(page(snapshot)).not.toContain('<dt>plan address</dt>');
  });
});

describe('buildDependencyGraph', () => {
  it('has one node per principal and compute group, and marks the unauthorized Fargate path of incident b broken', () => {
    const s = loadScenario('b-fargate-entry-removed-by-terraform');
    const assessed = assessWithWhatIfs(s, deletionChanges(s));
    const graph = buildDependencyGraph(
      s,
      assessed.findings,
      assessed.whatIf.flatMap((w) => w.findings),
    );
    const byKind = (k: string) =>
      graph.nodes
        .filter((n) => n.kind === k)
        .map((n) => n.label)
        .sort();
    expect(byKind('principal')).toEqual([
      role('platform-admin'),
      role('prod-fargate-pod-execution'),
      role('prod-node-role'),
    ]);
    expect(byKind('compute')).toEqual(['fp-default', 'general']);
    const fargate = graph.nodes.find((n) => n.label === 'fp-default');
    expect(fargate?.state).toBe('broken');
    expect(graph.nodes.find((n) => n.id === `auth:none:${role('prod-fargate-pod-execution')}`)).toMatchObject(
      { label: 'nothing', state: 'broken' },
    );
    expect(graph.nodes.find((n) => n.label === 'general')?.state).not.toBe('broken');
  });
});
