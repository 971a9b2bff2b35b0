/**
 * `eks-auth-sentinel watch --remediate on|dry-run` through `runCli` against the sandbox: the same
 * remediation as the functions, over the user's credentials. A node group seen DELETING is the
 * prediction its CloudTrail record makes (API_AND_CONFIG_MAP: the access entry before EKS's
 * aws-auth edit); in CONFIG_MAP the watch's own aws-auth assessment restores what EKS removed.
 */
import { DeleteNodegroupCommand, EKSClient } from '@aws-sdk/client-eks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { perRegion } from '../../shared/adapters/aws-clients.ts';
import { createEksClient } from '../../shared/adapters/eks.ts';
import { createEksAccessEntryWriter } from '../../shared/adapters/eks-access-entry-writer.ts';
import { createEksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createAwsAuthReader, createAwsAuthWriter } from '../../shared/adapters/kubernetes-aws-auth.ts';
import { createAwsAuthWatcher } from '../../shared/adapters/kubernetes-aws-auth-watch.ts';
import { createWatchRemediation } from '../../shared/app/remediate.ts';
import type { LiveIo } from '../../shared/cli/io.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { createFakeIo } from '../support/fake-io.ts';
import { clientOptions, loadScenario, sandboxDeps } from '../support/sandbox-helpers.ts';
import { waitFor } from '../support/sandbox-https.ts';

let sandbox: Sandbox | undefined;
const stops: AbortController[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await sandbox?.close();
  sandbox = undefined;
});

type Line = {
  type: string;
  source?: string;
  actions?: Array<{ kind: string; result: string; dryRun: boolean; principalArn: string }>;
};

function liveIo(s: Sandbox): LiveIo {
  const tokens = createEksTokenProvider({ credentials: s.credentials });
  const writers = perRegion((region) =>
    createEksAccessEntryWriter(createEksClient(region, clientOptions(s))),
  );
  return {
    captureDeps: async () => sandboxDeps(s),
    snapshotStore: () => {
      throw new Error('watch writes no snapshot');
    },
    writeFileAtomic: () => Promise.reject(new Error('watch writes no file')),
    awsAuthWatcher: async () => createAwsAuthWatcher({ tokens, baseDelayMs: 10 }),
    watchRemediation: async () =>
      createWatchRemediation({
        accessEntries: {
          createAccessEntry: (cluster, entry) => writers(cluster.region).createAccessEntry(cluster, entry),
        },
        awsAuthWriter: createAwsAuthWriter({ tokens, baseDelayMs: 10 }),
        awsAuth: createAwsAuthReader({ tokens, baseDelayMs: 10 }),
        clock: { now: () => new Date() },
        maxActionsPerHour: 10,
      }),
  };
}

function watch(s: Sandbox, args: string[]) {
  const fake = createFakeIo({}, { env: {} });
  fake.io.live = liveIo(s);
  const interrupt = new AbortController();
  stops.push(interrupt);
  fake.io.interrupts = () => interrupt.signal;
  const exited = runCli(['watch', '--cluster', 'prod', '--region', 'eu-west-1', ...args], fake.io);
  const lines = (): Line[] =>
    fake
      .out()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line);
  return { exited, lines, interrupt };
}

async function deleteNodegroup(s: Sandbox): Promise<void> {
  const eks = new EKSClient({
    region: 'eu-west-1',
    endpoint: s.env.AWS_ENDPOINT_URL_EKS,
    credentials: s.credentials,
  });
  await eks.send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'general' }));
  eks.destroy();
}

const acted = (lines: Line[]) => lines.flatMap((l) => (l.actions ?? []).map((a) => ({ type: l.type, ...a })));
const notReady = (s: Sandbox) => s.timeline.filter((t) => /Ready=Unknown/.test(t.what));

describe('watch --remediate', () => {
  it('API_AND_CONFIG_MAP, on: the access entry from the DELETING node group, before EKS edits aws-auth; no node NotReady', async () => {
    const s = await startSandbox({
      clusters: [{ snapshot: loadScenario('a-karpenter-shares-role-api-and-config-map-no-entry') }],
      sideEffectDelayMs: 2_500,
      notReadyDelayMs: 2_000,
    });
    sandbox = s;
    const w = watch(s, ['--format', 'json', '--duration', '60', '--interval', '1', '--remediate', 'on']);
    expect(await waitFor(() => s.kube('prod').openWatches === 1, 15_000)).toBe(true);
    await deleteNodegroup(s);
    expect(await waitFor(() => acted(w.lines()).length > 0, 20_000)).toBe(true);
    expect(acted(w.lines())[0]).toMatchObject({
      type: 'prediction',
      kind: 'create-access-entry',
      result: 'done',
      dryRun: false,
    });
    expect(await waitFor(() => s.timeline.some((t) => /EKS removed/.test(t.what)), 20_000)).toBe(true);
    const created = s.timeline.findIndex((t) => /access entry .*prod-node-role.*created/.test(t.what));
    const edited = s.timeline.findIndex((t) => /EKS removed/.test(t.what));
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(edited);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(notReady(s)).toEqual([]);
    w.interrupt.abort();
    expect(await w.exited).toBe(0);
  });

  it('CONFIG_MAP, on: the watch restores what EKS removed; no node NotReady. dry-run writes nothing', async () => {
    for (const mode of ['on', 'dry-run'] as const) {
      const s = await startSandbox({
        clusters: [{ snapshot: loadScenario('a-karpenter-shares-last-nodegroup-role') }],
        sideEffectDelayMs: 1_500,
        notReadyDelayMs: 2_500,
      });
      sandbox = s;
      const w = watch(s, ['--format', 'json', '--duration', '60', '--interval', '1', '--remediate', mode]);
      expect(await waitFor(() => s.kube('prod').openWatches === 1, 15_000)).toBe(true);
      await deleteNodegroup(s);
      expect(
        await waitFor(() => acted(w.lines()).some((a) => a.kind === 'restore-aws-auth-entries'), 20_000),
      ).toBe(true);
      const restore = acted(w.lines()).find((a) => a.kind === 'restore-aws-auth-entries');
      expect(restore).toMatchObject(
        mode === 'on'
          ? { type: 'change', result: 'done' }
          : { type: 'change', result: 'would-do', dryRun: true },
      );
      const patches = s.calls.filter((c) => c.service === 'kube' && c.operation === 'PatchConfigMap');
      expect(patches).toHaveLength(mode === 'on' ? 1 : 0);
      if (mode === 'on') {
        await new Promise((r) => setTimeout(r, 3_000));
        expect(notReady(s)).toEqual([]);
      }
      w.interrupt.abort();
      expect(await w.exited).toBe(0);
      await s.close();
      sandbox = undefined;
    }
  });
});
