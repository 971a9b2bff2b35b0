import { describe, expect, it } from 'vitest';
import {
  assessWithWhatIfs,
  buildReport,
  type ClusterReport,
} from '../../shared/app/commands/report-command.ts';
import { ReportRequestError } from '../../shared/app/errors.ts';
import { deletionChanges } from '../../shared/core/predict/change.ts';
import { renderReportMarkdown } from '../../shared/core/render/index.ts';
import { MONITOR } from '../support/app-harness.ts';
import { createFakeCluster } from '../support/fake-cluster.ts';
import { createFakeSnapshotStore } from '../support/monitor.ts';
import { loadScenario } from '../support/snapshot-builder.ts';

const settings = {
  accountId: '111122223333',
  regions: ['eu-west-1'],
  monitorPrincipalArn: MONITOR,
  concurrency: 2,
};

describe('renderReportMarkdown', () => {
  it('puts the current state of every cluster before any what-if', () => {
    const clusters: ClusterReport[] = [
      'a-karpenter-shares-last-nodegroup-role',
      'c-yaml-slip-in-maproles',
    ].map((name) => {
      const s = loadScenario(name);
      return {
        cluster: name,
        region: s.region,
        source: 'stored',
        capturedAt: s.capturedAt,
        ...assessWithWhatIfs(s, deletionChanges(s)),
      };
    });
    const md = renderReportMarkdown(clusters);
    const parseFailure = md.indexOf('aws-auth/parse-failure');
    const firstWhatIf = md.indexOf('What if: ');
    expect(parseFailure).toBeGreaterThan(-1);
    expect(firstWhatIf).toBeGreaterThan(parseFailure);
    expect(md).toContain(
      'What if: delete node group general (eu-west-1/a-karpenter-shares-last-nodegroup-role)',
    );
  });
});

describe('buildReport', () => {
  it('answers who loses access if each node group is deleted, as JSON with Markdown inside', async () => {
    const cluster = createFakeCluster(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const report = await buildReport(
      { capture: cluster.deps, snapshots: createFakeSnapshotStore() },
      { cluster: 'prod', region: 'eu-west-1' },
      settings,
      new Date('2026-11-29T12:00:00Z'),
    );
    expect(report.clusters).toHaveLength(1);
    const [c] = report.clusters;
    expect(c?.whatIf.map((w) => w.label)).toEqual(['delete node group general']);
    expect(c?.whatIf[0]?.findings.map((f) => f.ruleId)).toContain('nodegroup/deletion-orphans-role');
    expect(report.markdown).toContain('What if: delete node group general');
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('adds the self-contained HTML page on format html, and only then', async () => {
    const cluster = createFakeCluster(loadScenario('b-fargate-entry-removed-by-terraform'));
    const deps = { capture: cluster.deps, snapshots: createFakeSnapshotStore() };
    const request = { cluster: 'prod', region: 'eu-west-1' };
    const plain = await buildReport(deps, request, settings, new Date());
    expect(plain).not.toHaveProperty('html');
    const report = await buildReport(deps, { ...request, format: 'html' }, settings, new Date());
    expect(report.html).toMatch(/^<!DOCTYPE html>/);
    expect(report.html).toContain('fargate/pod-execution-role-unauthorized');
    expect(report.html).toContain('data-kind="principal"');
    expect(report.markdown).toBe(plain.markdown);
  });

  it('finds the cluster in the configured Regions when no Region is given; unknown names are an error', async () => {
    const cluster = createFakeCluster(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const deps = { capture: cluster.deps, snapshots: createFakeSnapshotStore() };
    const all = await buildReport(deps, {}, settings, new Date());
    expect(all.clusters.map((c) => c.cluster)).toEqual(['prod']);
    await expect(buildReport(deps, { cluster: 'nope' }, settings, new Date())).rejects.toBeInstanceOf(
      ReportRequestError,
    );
  });

  it('reports from the stored snapshot on request, and says when there is none', async () => {
    const cluster = createFakeCluster(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const snapshots = createFakeSnapshotStore();
    const deps = { capture: cluster.deps, snapshots };
    const none = await buildReport(
      deps,
      { cluster: 'prod', region: 'eu-west-1', source: 'stored' },
      settings,
      new Date(),
    );
    expect(none.clusters[0]?.error).toBe('no stored snapshot yet');
    await snapshots.put(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const stored = await buildReport(
      deps,
      { cluster: 'prod', region: 'eu-west-1', source: 'stored' },
      settings,
      new Date(),
    );
    expect(stored.clusters[0]?.source).toBe('stored');
    expect(cluster.calls).not.toContain('eks:DescribeCluster');
  });
});
