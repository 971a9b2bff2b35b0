/**
 * Issue 8 case 7: sustained throttling at the start of a capture, retried through within the
 * throttling budget; the deadline stops the retries with a typed error naming the operation, and
 * a source stopped there makes a partial snapshot that says why. IAM (GetRole, GetInstanceProfile,
 * …) follows the same deadline as EKS, EC2 and Kubernetes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { DeadlineExceededError } from '../../shared/adapters/aws-clients.ts';
import type { LiveDepsOptions } from '../../shared/adapters/live.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { type OutgoingRequests, watchOutgoingRequests } from '../support/outgoing-requests.ts';
import { callsOf, loadScenario, sandboxDeps } from '../support/sandbox-helpers.ts';

const REGION = 'eu-west-1';
const target = { region: REGION, clusterName: 'prod' };
/** Two SDK attempts per round, short waits between rounds: the storm outlasts the SDK's own retries. */
const FAST: LiveDepsOptions = { maxAttempts: 2, throttleBaseDelayMs: 20, throttleMaxDelayMs: 200 };
const THROTTLED = { service: 'eks', status: 429, code: 'ThrottlingException', message: 'Rate exceeded' };

/**
 * The deadline of the tests where only one call is throttled and every other source must be read
 * by then: 1.5 s was too short at load 14 (a source other than the throttled one met it).
 */
const PARTIAL_DEADLINE_MS = 4_000;

/**
 * Nothing keeps retrying in the background once the deadline has won: no request is sent (seen
 * from the client) from the capture's return until 300 ms later. Not the sandbox's count: it
 * records a call when it replies, in this same event loop, so a request written just before the
 * deadline's timer fired is recorded after the capture returned (CI, stop 21: a 14th GetRole).
 */
async function expectNothingSentAfter(outgoing: OutgoingRequests, returnedAt: number): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
  expect(outgoing.sentAfter(returnedAt)).toEqual([]);
}

describe('captureSnapshot under a storm of ThrottlingExceptions', () => {
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

  it('retries through 12 consecutive throttled replies (six times the SDK attempts) and reads every source', async () => {
    const mark = sandbox.calls.length;
    sandbox.faults.inject({ ...THROTTLED, times: 12 });
    // `standard`: the adaptive limiter would space these 12 replies ~2 s apart (it drops to its
    // 0.5 calls/s floor while throttled) — right in production, 20 s of waiting in a test.
    const snapshot = await captureSnapshot(sandboxDeps(sandbox, { ...FAST, retryMode: 'standard' }), target);
    const eks = sandbox.calls.slice(mark).filter((c) => c.service === 'eks');
    expect(eks.slice(0, 12).every((c) => c.status === 429 && c.operation === 'DescribeCluster')).toBe(true);
    for (const source of [snapshot.awsAuth, snapshot.accessEntries, snapshot.nodegroups, snapshot.compute]) {
      expect(source.status).toBe('ok');
    }
    expect(snapshot.accessEntries.status === 'ok' && snapshot.accessEntries.data.length).toBeGreaterThan(0);
  });

  it('takes a deadline in fractional milliseconds (a share of the remaining time) without a RangeError', async () => {
    const deps = sandboxDeps(sandbox, FAST).withDeadline(Date.now() + 30_000.5);
    const snapshot = await captureSnapshot(deps, target);
    expect(snapshot.accessEntries.status).toBe('ok');
    expect(snapshot.awsAuth.status).toBe('ok');
  });

  it('stops at the deadline (epoch ms) with a typed error naming the operation and how long it was throttled', async () => {
    sandbox.faults.inject({ ...THROTTLED, operation: 'DescribeCluster' });
    // `standard`: the adaptive limiter's ~2 s spacing can hold the first round inside the SDK past
    // the deadline; the error is then `timeout` ("deadline reached"), the throttling unseen.
    const deps = sandboxDeps(sandbox, { ...FAST, retryMode: 'standard' }).withDeadline(Date.now() + 1_500);
    const error = await captureSnapshot(deps, target).catch((e: unknown) => e);
    const returnedAt = performance.now();
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error).toMatchObject({ code: 'throttled', operation: 'DescribeCluster', cluster: 'prod' });
    expect((error as Error).message).toMatch(
      /^DescribeCluster for cluster prod: throttled for \d+ s, deadline reached$/,
    );
    expect(callsOf(sandbox, 'eks', 'DescribeCluster').length).toBeGreaterThan(0);
    await expectNothingSentAfter(outgoing, returnedAt);
  });

  it('with an AbortSignal deadline, gives a partial snapshot: the source stopped there is an error that says why', async () => {
    sandbox.faults.inject({ ...THROTTLED, operation: 'ListAccessEntries' });
    // `standard`: under `adaptive` the throttled ListAccessEntries slows the whole EKS client
    // (one rate limiter), and the node group reads could meet the deadline too.
    const deps = sandboxDeps(sandbox, { ...FAST, retryMode: 'standard' }).withDeadline(
      AbortSignal.timeout(PARTIAL_DEADLINE_MS),
    );
    const snapshot = await captureSnapshot(deps, target);
    expect(snapshot.accessEntries).toEqual({
      status: 'error',
      error: expect.stringMatching(
        /^ListAccessEntries for cluster prod: throttled for \d+ s, deadline reached$/,
      ),
    });
    expect(snapshot.awsAuth.status).toBe('ok');
    expect(snapshot.nodegroups.status).toBe('ok');
    expect(snapshot.compute.status).toBe('ok');
  });

  it('IAM stops at the same deadline: a throttled GetRole leaves iamRoles an error that says why, the rest is read', async () => {
    // IAM throttles with HTTP 400 `Throttling` (the query protocol), not 429.
    sandbox.faults.inject({ service: 'iam', operation: 'GetRole', status: 400, code: 'Throttling' });
    const deps = sandboxDeps(sandbox, { ...FAST, retryMode: 'standard' }).withDeadline(
      AbortSignal.timeout(PARTIAL_DEADLINE_MS),
    );
    const snapshot = await captureSnapshot(deps, target);
    const returnedAt = performance.now();
    expect(snapshot.iamRoles).toEqual({
      status: 'error',
      // "throttled for N s" when the deadline came between rounds, not inside the SDK's own attempts.
      error: expect.stringMatching(/^GetRole \([\w+=,.@-]+\): (throttled for \d+ s, )?deadline reached$/),
    });
    for (const source of [snapshot.awsAuth, snapshot.accessEntries, snapshot.nodegroups, snapshot.compute]) {
      expect(source.status).toBe('ok');
    }
    expect(callsOf(sandbox, 'iam', 'GetRole').length).toBeGreaterThan(0);
    await expectNothingSentAfter(outgoing, returnedAt);
  });

  it('the client-side watch sees an SDK request sent after a mark (what a background retry would be)', async () => {
    const mark = performance.now();
    await sandboxDeps(sandbox).eks(REGION).describeCluster('prod');
    expect(outgoing.sentAfter(mark)).toEqual([
      expect.objectContaining({ method: 'GET', host: new URL(sandbox.env.AWS_ENDPOINT_URL_EKS ?? '').host }),
    ]);
  });

  it('the IAM reader of one invocation keeps the instance-profile cache of the others', async () => {
    const live = sandboxDeps(sandbox);
    await captureSnapshot(live.withDeadline(Date.now() + 30_000), target);
    const mark = callsOf(sandbox, 'iam', 'GetInstanceProfile').length;
    expect(mark).toBeGreaterThan(0);
    const again = await captureSnapshot(live.withDeadline(Date.now() + 30_000), target);
    expect(again.compute.status).toBe('ok');
    expect(callsOf(sandbox, 'iam', 'GetInstanceProfile').length).toBe(mark);
  });

  it('without a deadline, still gives up on a throttled call after the throttling budget', async () => {
    sandbox.faults.inject({ ...THROTTLED, operation: 'ListNodegroups' });
    const snapshot = await captureSnapshot(
      sandboxDeps(sandbox, { ...FAST, throttleBudgetMs: 1_000 }),
      target,
    );
    expect(snapshot.nodegroups).toEqual({
      status: 'error',
      error: expect.stringMatching(
        /ListNodegroups for cluster prod failed with ThrottlingException.*throttled after all retries/,
      ),
    });
    expect(snapshot.accessEntries.status).toBe('ok');
  });
});
