/**
 * The remediate use case over in-memory ports: the hourly cap, a conflict that never settles, a
 * write that throws (alerted as failed, never rethrown), a duplicate trigger, and dry-run.
 */
import { describe, expect, it } from 'vitest';
import { memoryLedger, type RemediateDeps, remediate } from '../../shared/app/remediate.ts';
import type { AwsAuthConfigMap, ClusterId, Finding } from '../../shared/core/model.ts';
import { planAwsAuthRemoval, planNodegroupDeletion } from '../../shared/core/remediation/index.ts';
import type { KubeClusterRef, WriteOutcome } from '../../shared/ports.ts';
import { buildSnapshot, karpenterNodes, managedNodes, NODE_ROLE } from '../support/snapshot-builder.ts';

const KEY: ClusterId = { accountId: '111122223333', region: 'eu-west-1', clusterName: 'prod' };
const REF: KubeClusterRef = { ...KEY, endpoint: 'https://127.0.0.1:1', certificateAuthorityData: 'x' };

function fakes(
  over: Partial<RemediateDeps> = {},
  awsAuth: AwsAuthConfigMap = { data: { mapRoles: '' }, resourceVersion: '7', managedFields: [] },
) {
  const delivered: Finding[] = [];
  const writes: string[] = [];
  const deps: RemediateDeps = {
    mode: 'on',
    maxActionsPerHour: 1,
    accessEntries: {
      async createAccessEntry(_c, e) {
        writes.push(`create ${e.principalArn}`);
        return { status: 'done' };
      },
    },
    awsAuthWriter: {
      async patchMapRoles(_c, change): Promise<WriteOutcome> {
        writes.push(`patch @${change.resourceVersion}`);
        return { status: 'done' };
      },
    },
    awsAuth: { awsAuth: async () => ({ found: true, value: structuredClone(awsAuth) }) },
    ledger: memoryLedger(),
    deliver: async (_k, findings) => {
      delivered.push(...findings);
      return { sent: findings.length, failed: 0, pending: 0 };
    },
    clock: { now: () => new Date('2026-12-02T10:00:00Z') },
    ...over,
  };
  return { deps, delivered, writes };
}

const stateIn = (mode: 'CONFIG_MAP' | 'API_AND_CONFIG_MAP') =>
  buildSnapshot({ mode, compute: [...managedNodes(2), ...karpenterNodes(3)] });
const trigger = (id: string, s = stateIn('API_AND_CONFIG_MAP')) => ({
  cluster: KEY,
  ref: REF,
  before: s,
  trigger: 'event:DeleteNodegroup' as const,
  triggerId: id,
});

describe('remediate', () => {
  it('acts once per trigger, and no more than the hourly cap per cluster', async () => {
    const { deps, writes, delivered } = fakes();
    const s = stateIn('API_AND_CONFIG_MAP');
    const plan = planNodegroupDeletion(s, { nodegroupName: 'general' });
    expect((await remediate(deps, trigger('e1', s), plan)).outcomes.map((o) => o.result)).toEqual(['done']);
    expect(await remediate(deps, trigger('e1', s), plan)).toMatchObject({ outcomes: [], duplicates: 1 });
    const capped = await remediate(deps, trigger('e2', s), plan);
    expect(capped.outcomes.map((o) => o.result)).toEqual(['failed']);
    expect(capped.outcomes[0]?.detail).toMatch(/limit of 1 actions per cluster per hour/);
    expect(writes).toEqual([`create ${NODE_ROLE}`]);
    expect(delivered.map((f) => f.evidence.result)).toEqual(['done', 'failed']);
  });

  it('dry-run writes nothing, takes no slot, and alerts "would do" with the call', async () => {
    const { deps, writes, delivered } = fakes({ mode: 'dry-run' });
    const s = stateIn('API_AND_CONFIG_MAP');
    const plan = planNodegroupDeletion(s, { nodegroupName: 'general' });
    const report = await remediate(deps, trigger('e1', s), plan);
    expect(report.outcomes.map((o) => o.result)).toEqual(['would-do']);
    expect(writes).toEqual([]);
    expect(delivered[0]?.remediation?.awsCli).toContain('--type EC2_LINUX');
    expect(await deps.ledger.takeSlot(KEY, '2026-12-02T10:00:00.000Z', 1)).toBe(true);
  });

  it('a write that throws is an alerted failure, never an exception', async () => {
    const { deps, delivered } = fakes({
      accessEntries: {
        createAccessEntry: () => Promise.reject(new Error('socket hang up')),
      },
    });
    const s = stateIn('API_AND_CONFIG_MAP');
    const report = await remediate(
      deps,
      trigger('e1', s),
      planNodegroupDeletion(s, { nodegroupName: 'general' }),
    );
    expect(report.outcomes.map((o) => [o.result, o.detail])).toEqual([
      ['failed', expect.stringContaining('socket hang up')],
    ]);
    expect(delivered[0]?.severity).toBe('critical');
  });

  it('a conflict that keeps coming back ends as `conflict` after its retries, with nothing overwritten', async () => {
    const s = stateIn('CONFIG_MAP');
    const { deps, writes } = fakes({
      maxActionsPerHour: 5,
      awsAuthWriter: {
        async patchMapRoles(_c, change) {
          writes.push(`patch @${change.resourceVersion}`);
          return { status: 'conflict', detail: '409' };
        },
      },
    });
    const current: AwsAuthConfigMap = { data: { mapRoles: '' }, resourceVersion: '7', managedFields: [] };
    const report = await remediate(
      deps,
      { ...trigger('rv7', s), trigger: 'schedule' },
      planAwsAuthRemoval(s, current),
      current,
    );
    expect(report.outcomes.map((o) => o.result)).toEqual(['conflict']);
    expect(writes).toEqual(['patch @7', 'patch @7', 'patch @7']);
  });
});
