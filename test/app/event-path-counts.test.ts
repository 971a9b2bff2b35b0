/**
 * The event path does each piece of work once: one `DeleteNodegroup` event parses each aws-auth
 * text it read once, never the text the simulation wrote (the simulation hands over the mappings
 * it wrote), and runs the state rules once per state. Counted with probes: the parser wrapped
 * through the module mock, and a state rule appended to the monitor's rules that records the state
 * it ran on.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClusterSnapshot } from '../../shared/core/model.ts';

const probe = vi.hoisted(() => ({
  parses: [] as Array<Record<string, string>>,
  states: [] as ClusterSnapshot[],
}));

vi.mock('../../shared/core/aws-auth/parse.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/core/aws-auth/parse.ts')>();
  return {
    ...actual,
    parseAwsAuth: (data: Record<string, string>) => {
      probe.parses.push(data);
      return actual.parseAwsAuth(data);
    },
  };
});

vi.mock('../../shared/core/rules/monitor-rules.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/core/rules/monitor-rules.ts')>();
  const counter = {
    id: 'test/state-probe',
    severity: 'low',
    kinds: ['state'],
    title: 'probe',
    evaluate: (ctx: { current: { snapshot: ClusterSnapshot } }) => {
      probe.states.push(ctx.current.snapshot);
      return [];
    },
  };
  return { ...actual, MONITOR_RULES: [...actual.MONITOR_RULES, counter] };
});

const { handleEksEvent } = await import('../../shared/app/handle-eks-event.ts');
const { runSnapshot } = await import('../../shared/app/run-snapshot.ts');
const { createHarness, KEY, loadRecord, MONITOR } = await import('../support/app-harness.ts');
const { loadScenario } = await import('../support/snapshot-builder.ts');

async function storedHarness() {
  const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
  await runSnapshot(
    {
      capture: h.cluster.deps,
      snapshots: h.snapshots,
      deliver: h.deliver,
      queue: h.queue,
      clock: h.cluster.clock,
      monitorPrincipalArn: MONITOR,
      followUp: { delaySeconds: 60, maxAttempts: 3 },
      idempotency: h.idempotency,
      idempotencyTtlSeconds: 86_400,
    },
    { ...KEY, reason: 'schedule' },
  );
  return h;
}

function eventDeps(h: Awaited<ReturnType<typeof storedHarness>>) {
  return {
    eks: h.cluster.deps.eks,
    kube: h.cluster.deps.kube,
    snapshots: h.snapshots,
    idempotency: h.idempotency,
    deliver: h.deliver,
    queue: h.queue,
    clock: h.cluster.clock,
    monitorPrincipalArn: MONITOR,
    followUpDelaySeconds: 60,
    idempotencyTtlSeconds: 86_400,
    kubeRefs: new Map(),
  };
}

/** How many distinct `data` contents among the parsed records. */
const distinct = (parses: Array<Record<string, string>>) =>
  new Set(parses.map((d) => JSON.stringify(Object.entries(d)))).size;

describe('the event path does each piece of work once', () => {
  beforeEach(() => {
    probe.parses.length = 0;
    probe.states.length = 0;
  });

  it('a DeleteNodegroup event parses the aws-auth it read once and runs the state rules once per state', async () => {
    const h = await storedHarness();
    probe.parses.length = 0;
    probe.states.length = 0;
    const result = await handleEksEvent(eventDeps(h), loadRecord('delete-nodegroup'));
    expect(result.outcome).toBe('alerted');
    // One aws-auth text read: the stored one, read again unchanged. The one the deletion leaves
    // (EKS removes the role's mapping) is written by the simulation and not parsed back.
    expect(probe.parses).toHaveLength(1);
    expect(probe.parses[0]?.mapRoles).toContain('prod-node-role');
    // Three states: before (the stored snapshot, its sources read again unchanged), after the
    // deletion, and now (before without the deleted nodes). Each is evaluated once (before: 4
    // runs of the state rules, the stored state and the state before apart).
    expect(new Set(probe.states).size).toBe(probe.states.length);
    expect(probe.states).toHaveLength(3);
  });

  it('when EKS already edited aws-auth before the fresh read, each of the two texts read is parsed once', async () => {
    const h = await storedHarness();
    const awsAuth = h.cluster.state.awsAuth;
    if (awsAuth.status !== 'ok') throw new Error('aws-auth');
    awsAuth.data.data.mapRoles = (awsAuth.data.data.mapRoles ?? '')
      .split(/\n(?=- )/)
      .filter((e) => !e.includes('prod-node-role'))
      .join('\n');
    probe.parses.length = 0;
    probe.states.length = 0;
    const result = await handleEksEvent(eventDeps(h), loadRecord('delete-nodegroup'));
    expect(result.outcome).toBe('alerted');
    // stored and fresh (already without the node role): each parsed once; the simulated one not at all
    expect(distinct(probe.parses)).toBe(2);
    expect(probe.parses).toHaveLength(2);
    // the stored state differs from the state before now: four states, each evaluated once
    expect(new Set(probe.states).size).toBe(probe.states.length);
    expect(probe.states).toHaveLength(4);
  });
});
