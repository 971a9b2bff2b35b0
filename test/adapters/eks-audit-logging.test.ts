/** DescribeCluster `logging` → `ClusterInfo.auditLogging`, over the real EKS client and the sandbox. */
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../infra/sandbox/index.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { assessSnapshot } from '../../shared/core/predict/index.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';
import { baseSnapshot, REGION } from '../support/sandbox-seed.ts';

describe('auditLogging', () => {
  it.each([
    [['audit'] as const, true],
    [['api'] as const, false],
  ])(
    'logging %j → auditLogging %s, and monitor/realtime-unavailable says why attribution is off',
    async (logging, on) => {
      const s = await startSandbox({
        clusters: [{ snapshot: baseSnapshot('CONFIG_MAP'), logging: [...logging] }],
      });
      try {
        const snapshot = await captureSnapshot(sandboxDeps(s), { region: REGION, clusterName: 'prod' });
        expect(snapshot.cluster.auditLogging).toBe(on);
        const coverage = assessSnapshot(snapshot).filter((f) => f.ruleId === 'monitor/realtime-unavailable');
        // On but with no subscription filter: attribution is still off, for that reason.
        expect(coverage.length).toBe(1);
        expect(coverage[0]?.title).toContain(on ? 'no subscription filter' : 'audit log');
      } finally {
        await s.close();
      }
    },
  );
});

describe('auditSubscription', () => {
  it('with the audit log on: the filters of /aws/eks/<cluster>/cluster; none is a coverage finding, one is not', async () => {
    const s = await startSandbox({
      clusters: [{ snapshot: baseSnapshot('CONFIG_MAP'), logging: ['audit'] }],
    });
    try {
      const none = await captureSnapshot(sandboxDeps(s), { region: REGION, clusterName: 'prod' });
      expect(none.auditSubscription).toEqual({ status: 'ok', data: { filterNames: [] } });
      const coverage = (snapshot: typeof none) =>
        assessSnapshot(snapshot).filter((f) => f.ruleId === 'monitor/realtime-unavailable');
      expect(coverage(none)[0]?.title).toContain('no subscription filter');
      s.logSubscriptions.set('/aws/eks/prod/cluster', [
        {
          filterName: 'eks-auth-sentinel-aws-auth',
          filterPattern: '"configmaps" "aws-auth" "kube-system"',
          destinationArn: 'arn:aws:lambda:eu-west-1:111122223333:function:onAuditEvent',
        },
      ]);
      const one = await captureSnapshot(sandboxDeps(s), { region: REGION, clusterName: 'prod' });
      expect(one.auditSubscription).toEqual({
        status: 'ok',
        data: { filterNames: ['eks-auth-sentinel-aws-auth'] },
      });
      expect(coverage(one)).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
