/**
 * No reader outlives its deadline: for each source of a capture, one call that never gets a reply
 * (an endpoint that stopped answering) is cut at the invocation's deadline. The capture returns
 * soon after it with that source an error naming the deadline, every other source read, and —
 * seen from the client — no request still open at return and none sent in the second after it.
 * In Lambda a call left open would resume in the next invocation of the same environment.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import type { SandboxFault } from '../../infra/sandbox/types.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { type OutgoingRequests, watchOutgoingRequests } from '../support/outgoing-requests.ts';
import { callsOf, loadScenario, sandboxDeps } from '../support/sandbox-helpers.ts';

const REGION = 'eu-west-1';
const target = { region: REGION, clusterName: 'prod' };
/** Long enough for every source but the hung one at load 8; far below the per-request timeouts. */
const DEADLINE_MS = 3_000;
/** How long after return the client is watched for a late request. */
const WATCH_AFTER_MS = 1_000;

const hang = (service: string, operation: string): SandboxFault => ({
  service,
  operation,
  status: 0,
  hang: true,
});

/**
 * Three captures, each with every listed call hung at once: one deadline has to cut them all.
 * GetRole and ListNodes apart: GetRole is sent only for roles the other sources name once they
 * are read, and with EC2 unread compute would be an error whatever the node list did.
 */
const CASES = [
  {
    name: 'ListAccessEntries, ListNodegroups, DescribeInstances and the aws-auth GET',
    faults: [
      hang('eks', 'ListAccessEntries'),
      hang('eks', 'ListNodegroups'),
      hang('ec2', 'DescribeInstances'),
      hang('kube', 'GetConfigMap'),
    ],
    failed: ['accessEntries', 'nodegroups', 'compute', 'awsAuth'] as const,
  },
  { name: 'GetRole', faults: [hang('iam', 'GetRole')], failed: ['iamRoles'] as const },
  { name: 'the Kubernetes node list', faults: [hang('kube', 'ListNodes')], failed: [] as const },
];

describe('every reader stops at the deadline when a call never gets a reply', () => {
  let sandbox: Sandbox;
  let outgoing: OutgoingRequests;
  beforeAll(async () => {
    sandbox = await startSandbox({
      clusters: [{ snapshot: loadScenario('a-karpenter-shares-role-api-and-config-map-with-entry') }],
    });
    outgoing = watchOutgoingRequests();
  });
  afterAll(async () => {
    outgoing.stop();
    await sandbox.close();
  });
  beforeEach(() => sandbox.faults.clear());

  it.each(CASES)(
    '$name never answered: each source stops at the deadline, no call left open',
    async ({ faults, failed }) => {
      for (const f of faults) sandbox.faults.inject(f);
      const deps = sandboxDeps(sandbox, {
        retryMode: 'standard',
        kube: { baseDelayMs: 20, budgetMs: 60_000, requestTimeoutMs: 60_000 },
      }).withDeadline(AbortSignal.timeout(DEADLINE_MS));
      const startedAt = performance.now();
      const snapshot: ClusterSnapshot = await captureSnapshot(deps, target);
      const returnedAt = performance.now();

      for (const f of faults) {
        expect(
          callsOf(sandbox, f.service, f.operation).some((c) => c.status === 0),
          f.operation,
        ).toBe(true);
      }
      for (const source of failed) {
        const hung = snapshot[source] as { status: string; error?: string };
        expect(hung, source).toMatchObject({
          status: 'error',
          error: expect.stringMatching(/deadline reached/),
        });
      }
      if (faults.some((f) => f.operation === 'ListNodes')) {
        // Nodes unread: compute is the EC2 instances, Ready unknown (capture-snapshot.ts).
        const nodes = snapshot.compute.status === 'ok' ? snapshot.compute.data : [];
        expect(nodes.length).toBeGreaterThan(0);
        expect(nodes.filter((n) => n.ready !== undefined)).toEqual([]);
      }
      // Returned at the deadline, not at a per-request timeout (60 s here).
      expect(returnedAt - startedAt).toBeLessThan(DEADLINE_MS + 2_000);
      await new Promise((r) => setTimeout(r, WATCH_AFTER_MS));
      // Closed (aborted) within 100 ms of the return: the abort's `close` event comes a tick later.
      expect(outgoing.openAt(returnedAt + 100)).toEqual([]);
      expect(outgoing.sentAfter(returnedAt)).toEqual([]);
    },
  );
});
