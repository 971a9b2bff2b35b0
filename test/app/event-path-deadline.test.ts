/**
 * No read of the event path outlives its deadline: onEksEvent's readers (the same wiring the
 * function uses) against the sandbox, with the calls that would refresh aws-auth and the access
 * entries never answered. The invocation gives them up at the reads' deadline, alerts from the
 * stored versions, and — seen from the client — leaves no request open and sends none after it
 * returned. In Lambda a request left open resumes in the next invocation of the same environment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventReaders } from '../../functions/wiring/event.ts';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import type { SandboxFault } from '../../infra/sandbox/types.ts';
import { systemClock } from '../../shared/adapters/live.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { DELIVERY_RESERVE_MS, handleEksEvent } from '../../shared/app/handle-eks-event.ts';
import { kubeClusterRef } from '../../shared/app/read-sources.ts';
import { clusterIdKey, type Finding } from '../../shared/core/model.ts';
import { KEY, loadRecord, MONITOR } from '../support/app-harness.ts';
import {
  createFakeIdempotencyStore,
  createFakeSnapshotStore,
  createFakeWorkQueue,
} from '../support/monitor.ts';
import { type OutgoingRequests, watchOutgoingRequests } from '../support/outgoing-requests.ts';
import { callsOf, clientOptions, loadScenario, sandboxDeps } from '../support/sandbox-helpers.ts';

/**
 * What the invocation has left; its reads get all but the delivery reserve, at most a third of
 * it: 3 s here, below the aws-auth reader's request timeout (5 s), so only the deadline can cut.
 */
const REMAINING_MS = 4_500;
const READS_MS = REMAINING_MS - Math.min(DELIVERY_RESERVE_MS, REMAINING_MS / 3);
const WATCH_AFTER_MS = 1_000;

const hang = (service: string, operation: string): SandboxFault => ({
  service,
  operation,
  status: 0,
  hang: true,
});

describe('the event path cuts its reads at the deadline', () => {
  let sandbox: Sandbox;
  let outgoing: OutgoingRequests;
  beforeAll(async () => {
    // API_AND_CONFIG_MAP: both aws-auth and the access entries are read fresh. EKS's own aws-auth
    // edit far away: the test is about the reads, not the side effect.
    sandbox = await startSandbox({
      clusters: [{ snapshot: loadScenario('a-karpenter-shares-role-api-and-config-map-with-entry') }],
      sideEffectDelayMs: 600_000,
    });
    outgoing = watchOutgoingRequests();
  });
  afterAll(async () => {
    outgoing.stop();
    await sandbox.close();
  });

  it('aws-auth and ListAccessEntries never answered: alerted from the stored versions, no request left open', async () => {
    const snapshots = createFakeSnapshotStore();
    const capture = sandboxDeps(sandbox);
    await snapshots.put(await captureSnapshot(capture, KEY));
    // A warm environment: the endpoint and CA are remembered, so aws-auth is read in the first round.
    const kubeRefs = new Map([
      [
        clusterIdKey(KEY),
        kubeClusterRef(await capture.eks(KEY.region).describeCluster(KEY.clusterName), KEY),
      ],
    ]);
    sandbox.faults.inject(hang('eks', 'ListAccessEntries'));
    sandbox.faults.inject(hang('kube', 'GetConfigMap'));
    const delivered: Finding[][] = [];
    const deps = {
      ...createEventReaders(clientOptions(sandbox)),
      snapshots,
      idempotency: createFakeIdempotencyStore(systemClock),
      deliver: async (_key: unknown, findings: readonly Finding[]) => {
        delivered.push([...findings]);
        return { sent: findings.length, failed: 0, pending: 0 };
      },
      queue: createFakeWorkQueue(),
      clock: systemClock,
      monitorPrincipalArn: MONITOR,
      followUpDelaySeconds: 60,
      idempotencyTtlSeconds: 86_400,
      kubeRefs,
    };

    const startedAt = performance.now();
    const result = await handleEksEvent(deps, loadRecord('delete-nodegroup'), { remainingMs: REMAINING_MS });
    const returnedAt = performance.now();

    expect(callsOf(sandbox, 'eks', 'ListAccessEntries').some((c) => c.status === 0)).toBe(true);
    expect(callsOf(sandbox, 'kube', 'GetConfigMap').some((c) => c.status === 0)).toBe(true);
    expect(result).toMatchObject({ outcome: 'alerted', basis: 'stored-snapshot' });
    expect(result.outcome === 'alerted' ? [...result.staleSources].sort() : []).toEqual([
      'accessEntries',
      'awsAuth',
    ]);
    expect(delivered).toHaveLength(1);
    // Returned at the reads' deadline, not at a request timeout (5 s) or a budget (15–20 s).
    expect(returnedAt - startedAt).toBeLessThan(READS_MS + 2_000);
    await new Promise((r) => setTimeout(r, WATCH_AFTER_MS));
    // Closed soon after the return (an abort's `close` event comes a tick later, later under
    // load), and long before the aws-auth reader's own request timeout (5 s from the start).
    expect(outgoing.openAt(performance.now())).toEqual([]);
    expect(outgoing.sentAfter(returnedAt)).toEqual([]);
  });
});
