/**
 * `eks-auth-sentinel watch` through `runCli` against the sandbox, with the real adapters (EKS over
 * HTTP, the aws-auth watch over node:https): the NDJSON it prints for aws-auth edits made through
 * the Kubernetes API, after the server closes the watch, after a `410 Gone`, and for a node group
 * deletion (the prediction, before EKS's own aws-auth edit).
 */
import { DeleteNodegroupCommand, EKSClient } from '@aws-sdk/client-eks';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createEksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createAwsAuthWatcher } from '../../shared/adapters/kubernetes-aws-auth-watch.ts';
import type { LiveIo } from '../../shared/cli/io.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { createFakeIo } from '../support/fake-io.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';
import { waitFor } from '../support/sandbox-https.ts';
import { kubeConfig } from '../support/sandbox-kube.ts';
import { baseSnapshot, MAP_ROLES, REGION, SOLO_ROLE } from '../support/sandbox-seed.ts';

let sandbox: Sandbox | undefined;
const stops: AbortController[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await sandbox?.close();
  sandbox = undefined;
});

const WITHOUT_SOLO = MAP_ROLES.split(/\n(?=- )/)
  .filter((entry) => !entry.includes(SOLO_ROLE))
  .join('\n');

type Line = {
  type: string;
  source?: string;
  summary?: string;
  actor?: Record<string, string>;
  removed?: string[];
  added?: string[];
  findings: Array<{ notice?: string; ruleId: string; severity: string; subject: string; title: string }>;
  actions?: unknown[];
  reason?: string;
  text?: string;
  error?: string;
};

function liveIo(s: Sandbox): LiveIo {
  return {
    captureDeps: async () => sandboxDeps(s),
    snapshotStore: () => {
      throw new Error('watch writes no snapshot');
    },
    writeFileAtomic: () => Promise.reject(new Error('watch writes no file')),
    awsAuthWatcher: async () =>
      createAwsAuthWatcher({
        tokens: createEksTokenProvider({ credentials: s.credentials }),
        baseDelayMs: 10,
      }),
  };
}

/** Starts `watch` in this process; its stdout as parsed lines, and a way to stop it as SIGINT does. */
function watch(s: Sandbox, args: string[]) {
  const fake = createFakeIo({}, { env: {} });
  fake.io.live = liveIo(s);
  const interrupt = new AbortController();
  stops.push(interrupt);
  fake.io.interrupts = () => interrupt.signal;
  const exited = runCli(['watch', '--cluster', 'prod', '--region', REGION, ...args], fake.io);
  const lines = (): Line[] =>
    fake
      .out()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line);
  const changes = () => lines().filter((l) => l.type === 'change' || l.type === 'prediction');
  return { exited, lines, changes, interrupt, err: () => fake.err(), out: () => fake.out() };
}

async function patchMapRoles(s: Sandbox, mapRoles: string, fieldManager: string): Promise<void> {
  const api = (await kubeConfig(s, 'prod')).makeApiClient(CoreV1Api);
  await api.patchNamespacedConfigMap({
    name: 'aws-auth',
    namespace: 'kube-system',
    body: [{ op: 'replace', path: '/data/mapRoles', value: mapRoles }],
    fieldManager,
  });
}

const rules = (l: Line | undefined, notice: string) =>
  (l?.findings ?? []).filter((f) => f.notice === notice).map((f) => f.ruleId);

describe('watch --format json', () => {
  it('prints ready, then each aws-auth edit: live, after the server closed the watch, and after 410 Gone', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    const w = watch(s, ['--format', 'json', '--duration', '60', '--interval', '1']);
    expect(await waitFor(() => s.kube('prod').openWatches === 1, 15_000)).toBe(true);
    const [ready] = w.lines();
    expect(ready?.type).toBe('ready');
    expect(ready?.findings.map((f) => f.ruleId)).not.toContain('nodes/role-unauthorized');

    // 1. An edit through the Kubernetes API drops the solo node role.
    await patchMapRoles(s, WITHOUT_SOLO, 'kubectl-edit');
    expect(await waitFor(() => w.changes().length === 1, 15_000)).toBe(true);
    const removed = w.changes()[0];
    expect(removed).toMatchObject({
      type: 'change',
      source: 'aws-auth',
      removed: [SOLO_ROLE],
      added: [],
      actions: [],
      actor: { source: 'managedFields', manager: 'kubectl-edit' },
    });
    expect(rules(removed, 'opened')).toEqual(
      expect.arrayContaining(['aws-auth/entry-removed', 'nodes/role-unauthorized']),
    );
    expect(removed?.findings.find((f) => f.ruleId === 'aws-auth/entry-removed')?.subject).toBe(SOLO_ROLE);

    // 2. The server closes the watch; the next edit is still seen.
    s.kube('prod').closeWatches();
    await patchMapRoles(s, MAP_ROLES, 'terraform');
    expect(await waitFor(() => w.changes().length === 2, 15_000)).toBe(true);
    const restored = w.changes()[1];
    expect(restored).toMatchObject({ source: 'aws-auth', removed: [], added: [SOLO_ROLE] });
    expect(rules(restored, 'resolved')).toContain('nodes/role-unauthorized');

    // 3. Closed, written and compacted before the watch can resume: 410 Gone, then a re-list.
    expect(await waitFor(() => s.kube('prod').openWatches === 1, 15_000)).toBe(true);
    s.kube('prod').closeWatches();
    s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'helm' });
    s.kube('prod').compact();
    expect(await waitFor(() => w.changes().length === 3, 15_000)).toBe(true);
    const relisted = w.changes()[2];
    expect(relisted).toMatchObject({ source: 'aws-auth', removed: [SOLO_ROLE], actor: { manager: 'helm' } });
    expect(relisted?.summary).toContain('re-list after 410 Gone');
    expect(rules(relisted, 'opened')).toContain('nodes/role-unauthorized');

    // 4. And after the re-list, an edit through the API again.
    expect(await waitFor(() => s.kube('prod').openWatches === 1, 15_000)).toBe(true);
    await patchMapRoles(s, MAP_ROLES, 'terraform');
    expect(await waitFor(() => w.changes().length === 4, 15_000)).toBe(true);
    expect(w.changes()[3]).toMatchObject({ source: 'aws-auth', added: [SOLO_ROLE] });

    // SIGINT: the end line, exit 0, no watch left open.
    w.interrupt.abort();
    expect(await w.exited).toBe(0);
    expect(w.lines().at(-1)).toMatchObject({ type: 'end', reason: 'signal' });
    expect(s.kube('prod').openWatches).toBe(0);
    expect(w.err()).toBe('');
  });

  it('predicts a node group deletion from its DELETING status, before EKS edits aws-auth', async () => {
    const s = await startSandbox({
      clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }],
      // Well above one --interval and its reads, even on a loaded machine.
      sideEffectDelayMs: 4_000,
    });
    sandbox = s;
    const w = watch(s, ['--format', 'json', '--duration', '60', '--interval', '1']);
    expect(await waitFor(() => s.kube('prod').openWatches === 1, 15_000)).toBe(true);
    const eks = new EKSClient({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_EKS,
      credentials: s.credentials,
    });
    await eks.send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-solo' }));
    expect(await waitFor(() => w.changes().some((l) => l.source === 'aws-auth'), 20_000)).toBe(true);
    const changes = w.changes();
    const prediction = changes.findIndex((l) => l.type === 'prediction');
    const edit = changes.findIndex((l) => l.source === 'aws-auth');
    expect(prediction).toBeGreaterThanOrEqual(0);
    expect(prediction).toBeLessThan(edit);
    expect(changes[prediction]).toMatchObject({
      source: 'nodegroups',
      summary: 'node group ng-solo DELETING',
    });
    expect(rules(changes[prediction], 'opened')).toContain('nodegroup/deletion-orphans-role');
    expect(changes[edit]?.removed).toEqual([SOLO_ROLE]);
    w.interrupt.abort();
    expect(await w.exited).toBe(0);
  });

  it('ends at --duration with exit 0, and says that remediation is not available in this build', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    const w = watch(s, ['--format', 'json', '--duration', '1', '--remediate', 'dry-run']);
    expect(await w.exited).toBe(0);
    expect(w.lines().map((l) => l.type)).toEqual(['ready', 'note', 'end']);
    expect(w.lines()[1]?.text).toContain('remediation is not available');
    expect(w.lines()[2]?.reason).toBe('duration');
    expect(s.kube('prod').openWatches).toBe(0);
  });

  it('says once that a polled source cannot be read, not on every poll, and never reports it empty', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    s.faults.inject({
      service: 'eks',
      operation: 'ListNodegroups',
      status: 403,
      code: 'AccessDeniedException',
    });
    const w = watch(s, ['--format', 'json', '--duration', '4', '--interval', '1']);
    expect(await w.exited).toBe(0);
    const lines = w.lines();
    expect(lines[0]?.findings.map((f) => f.ruleId)).toContain('monitor/source-unavailable');
    const unreadable = lines.filter((l) => l.type === 'unreadable');
    expect(unreadable).toHaveLength(1);
    expect(unreadable[0]).toMatchObject({ source: 'nodegroups' });
    expect(w.changes()).toEqual([]);
  });

  it('exits 2 with one line when the cluster cannot be read at the start', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    s.faults.inject({
      service: 'eks',
      operation: 'DescribeCluster',
      status: 403,
      code: 'AccessDeniedException',
    });
    const w = watch(s, ['--format', 'json', '--duration', '5']);
    expect(await w.exited).toBe(2);
    expect(w.out()).toBe('');
    expect(w.err()).toMatch(/^eks-auth-sentinel: .*prod.*could not be read/);
  });
});

describe('watch --format text', () => {
  it('prints one readable line per event', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    const fake = createFakeIo({}, { env: {} });
    fake.io.live = liveIo(s);
    const interrupt = new AbortController();
    stops.push(interrupt);
    fake.io.interrupts = () => interrupt.signal;
    const exited = runCli(['watch', '--cluster', 'prod', '--region', REGION, '--duration', '60'], fake.io);
    expect(await waitFor(() => s.kube('prod').openWatches === 1, 15_000)).toBe(true);
    await patchMapRoles(s, WITHOUT_SOLO, 'kubectl-edit');
    expect(await waitFor(() => fake.out().split('\n').length >= 3, 15_000)).toBe(true);
    interrupt.abort();
    expect(await exited).toBe(0);
    const lines = fake.out().trimEnd().split('\n');
    expect(lines[0]).toMatch(
      / ready eu-west-1\/prod \(CONFIG_MAP, aws-auth resourceVersion \d+\): \d+ findings?, remediation off$/,
    );
    expect(lines[1]).toMatch(/ change aws-auth: aws-auth written at resourceVersion \d+ by kubectl-edit/);
    expect(lines[1]).toContain('; opened HIGH aws-auth/entry-removed: ');
    expect(lines.at(-1)).toMatch(/ end \(signal\): 1 change\(s\) seen$/);
  });
});
