/**
 * The blast radius as every renderer states it (render/blast-radius.ts): the headline counts what
 * is actually at risk — service accounts and their namespaces for workload identity, nodes and
 * Fargate profiles otherwise — and no line names a kind of which there is none.
 */
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../shared/core/alerts/lifecycle.ts';
import type { BlastRadius, Finding } from '../../shared/core/model.ts';
import { compareClusters } from '../../shared/core/parity/compare.ts';
import { assessSnapshot } from '../../shared/core/predict/engine.ts';
import { buildDependencyGraph } from '../../shared/core/render/dependency-graph.ts';
import { renderHtmlReport } from '../../shared/core/render/html-report.ts';
import { renderMarkdown, renderText } from '../../shared/core/render/index.ts';
import { renderSlackNotice } from '../../shared/core/render/slack.ts';
import { renderSnsMessage } from '../../shared/core/render/sns.ts';
import { createBlastRadius, createFinding } from '../support/findings.ts';
import { loadScenario } from '../support/snapshot-builder.ts';

const SERVICE_ACCOUNTS: BlastRadius = {
  nodegroups: [],
  fargateProfiles: [],
  nodeClasses: [],
  nodeCount: 0,
  firstNodes: [],
  timeToImpact: 'new pods get no AWS credentials at once',
  serviceAccounts: ['payments/api'],
  namespaces: ['payments'],
};

const EMPTY: BlastRadius = {
  nodegroups: [],
  fargateProfiles: [],
  nodeClasses: [],
  nodeCount: 0,
  firstNodes: [],
  timeToImpact: 'new nodes at once',
};

function workload(blastRadius: BlastRadius = SERVICE_ACCOUNTS): Finding {
  return createFinding({
    ruleId: 'pod-identity/role-not-found',
    severity: 'high',
    subject: 'arn:aws:iam::111122223333:role/payments-api',
    title: 'IAM role payments-api does not exist',
    blastRadius,
    remediation: undefined,
  });
}

function slackText(f: Finding): string {
  const notice: Notice = { kind: 'opened', finding: f, at: '2026-12-01T12:00:00.000Z' };
  return JSON.stringify(renderSlackNotice(notice));
}

function snsEmail(f: Finding): string {
  const notice: Notice = { kind: 'opened', finding: f, at: '2026-12-01T12:00:00.000Z' };
  return (JSON.parse(renderSnsMessage([notice]).message) as { email: string }).email;
}

function html(f: Finding): string {
  return renderHtmlReport({
    title: 'EKS authentication report',
    tool: { name: 'eks-auth-sentinel' },
    clusters: [
      { snapshot: loadScenario('workload-identity/wi-healthy-pod-identity'), findings: [f], whatIf: [] },
    ],
  });
}

/** Every renderer's text for one finding, by name. */
const RENDERERS: Array<[string, (f: Finding) => string]> = [
  ['slack', slackText],
  ['sns e-mail', snsEmail],
  ['markdown', (f) => renderMarkdown([f])],
  ['text', (f) => renderText([f])],
  ['html', html],
];

describe('blast radius headline', () => {
  it.each(RENDERERS)('%s counts service accounts and names their namespace, not "0 nodes"', (_, render) => {
    const out = render(workload());
    expect(out).toMatch(/1 service account \(namespace (`|<code>)?payments/);
    expect(out).toContain('payments/api');
    expect(out).not.toMatch(/0 nodes|Nodes: 0|nodes\s+0\b|<dt>nodes<\/dt><dd>0/);
    expect(out).not.toMatch(/Node groups: —|node groups\s+—|Fargate profiles: —|Fargate profiles\s+—/);
  });

  it.each(RENDERERS)('%s counts the nodes of a node finding and names no service account', (_, render) => {
    const out = render(createFinding({ blastRadius: createBlastRadius({ nodeCount: 12 }) }));
    expect(out).toMatch(/12 nodes/);
    expect(out).not.toMatch(/service account/i);
    expect(out).not.toMatch(/Fargate profile/);
  });

  it.each(RENDERERS)('%s says plainly when nothing is at risk, without a time to impact', (_, render) => {
    const out = render(createFinding({ blastRadius: EMPTY }));
    expect(out).toContain('nothing found at risk in the snapshot');
    expect(out).not.toContain('new nodes at once');
    expect(out).not.toMatch(/0 nodes/);
  });

  it.each(RENDERERS)('%s counts the namespaces when there are several', (_, render) => {
    const out = render(
      workload({
        ...SERVICE_ACCOUNTS,
        serviceAccounts: ['a/x', 'b/x', 'c/x', 'd/x'],
        namespaces: ['a', 'b', 'c', 'd'],
      }),
    );
    expect(out).toMatch(/4 service accounts \(namespaces (`|<code>)?a/);
    expect(out).toContain('and 1 more');
  });

  it.each(RENDERERS)(
    '%s shows the nodes of a workload-identity finding as where it breaks, not as who loses access',
    (_, render) => {
      const out = render(
        workload({
          ...SERVICE_ACCOUNTS,
          nodegroups: ['general'],
          nodeCount: 3,
          firstNodes: ['ip-10-0-1-1', 'ip-10-0-1-2'],
        }),
      );
      expect(out).toMatch(/1 service account \(namespace/);
      expect(out).toMatch(/[Ww]here it breaks/);
      expect(out).toMatch(/pods on node groups (`|<code>)?general/);
      expect(out).toContain('3 nodes');
      expect(out).not.toMatch(/Who loses access\* — 3 nodes|Blast radius — 3 nodes/);
    },
  );

  it('HTML escapes a namespace name in the headline', () => {
    const out = html(
      workload({ ...SERVICE_ACCOUNTS, namespaces: ['<img src=x>'], serviceAccounts: ['<img src=x>/a'] }),
    );
    expect(out).not.toContain('<img src=x>');
    expect(out).toContain('&lt;img src=x&gt;');
  });
});

describe('workload-identity findings on the dependency graph', () => {
  it('do not mark the node role or node group broken when only pods lose credentials', () => {
    const s = loadScenario('workload-identity/wi-pod-identity-node-role-cannot-assume');
    const findings = assessSnapshot(s);
    expect(findings.map((f) => f.ruleId)).toContain('pod-identity/node-role-cannot-assume');
    const graph = buildDependencyGraph(s, findings, []);
    expect(graph.nodes.find((n) => n.label === 'general')?.state).toBe('ok');
    expect(graph.nodes.filter((n) => n.state === 'broken')).toEqual([]);
  });
});

describe('findings where nobody loses credentials', () => {
  it.each([
    [
      'workload-identity/wi-workload-identity-irsa-and-pod-identity',
      'workload-identity/irsa-and-pod-identity',
    ],
    ['workload-identity/wi-pod-identity-service-account-missing', 'pod-identity/service-account-missing'],
  ])('%s: %s has no blast radius ("no AWS credentials" would be untrue)', (scenario, ruleId) => {
    const f = assessSnapshot(loadScenario(scenario)).find((x) => x.ruleId === ruleId);
    expect(f).toBeDefined();
    expect(f?.blastRadius).toBeUndefined();
    expect(renderMarkdown(f ? [f] : [])).not.toContain('no AWS credentials');
  });
});

describe('parity/workload-identity-missing', () => {
  it('times the impact at the cut-over, not at a credential refresh of pods that do not run there yet', () => {
    const f = compareClusters(
      loadScenario('workload-identity/wi-blue'),
      loadScenario('workload-identity/wi-green'),
    ).findings.find((x) => x.ruleId === 'parity/workload-identity-missing');
    expect(f?.blastRadius?.timeToImpact).toBe('its pods get no AWS credentials as soon as they run on green');
    expect(renderMarkdown(f ? [f] : [])).toContain('1 service account (namespace `payments`)');
  });
});
