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
  ])('logging %j → auditLogging %s, and monitor/realtime-unavailable only when off', async (logging, on) => {
    const s = await startSandbox({
      clusters: [{ snapshot: baseSnapshot('CONFIG_MAP'), logging: [...logging] }],
    });
    try {
      const snapshot = await captureSnapshot(sandboxDeps(s), { region: REGION, clusterName: 'prod' });
      expect(snapshot.cluster.auditLogging).toBe(on);
      const coverage = assessSnapshot(snapshot).filter((f) => f.ruleId === 'monitor/realtime-unavailable');
      expect(coverage.length).toBe(on ? 0 : 1);
      if (!on) expect(coverage[0]?.title).toContain('audit log');
    } finally {
      await s.close();
    }
  });
});
