/**
 * The aws-auth watch adapter against the sandbox's Kubernetes watch: every write is seen, in
 * order, across a server close, a token refresh and `410 Gone` (ERROR event and HTTP 410), and an
 * abort leaves no request open.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createEksTokenProvider, type EksTokenProvider } from '../../shared/adapters/kube-token.ts';
import {
  type AwsAuthWatcherOptions,
  createAwsAuthWatcher,
} from '../../shared/adapters/kubernetes-aws-auth-watch.ts';
import { KubernetesApiError } from '../../shared/errors.ts';
import type { AwsAuthWatchEvent, AwsAuthWatchRestart, KubeClusterRef } from '../../shared/ports.ts';
import { watchOutgoingRequests } from '../support/outgoing-requests.ts';
import { waitFor } from '../support/sandbox-https.ts';
import { kubeConfig } from '../support/sandbox-kube.ts';
import { ACCOUNT, baseSnapshot, MAP_ROLES, REGION, SOLO_ROLE } from '../support/sandbox-seed.ts';

let sandbox: Sandbox | undefined;
const controllers: AbortController[] = [];
afterEach(async () => {
  for (const c of controllers.splice(0)) c.abort();
  await sandbox?.close();
  sandbox = undefined;
});

const WITHOUT_SOLO = MAP_ROLES.split(/\n(?=- )/)
  .filter((entry) => !entry.includes(SOLO_ROLE))
  .join('\n');

function refOf(s: Sandbox): KubeClusterRef {
  return {
    accountId: ACCOUNT,
    region: REGION,
    clusterName: 'prod',
    endpoint: s.cluster('prod').endpoint,
    certificateAuthorityData: Buffer.from(s.caPem).toString('base64'),
  };
}

function countingTokens(s: Sandbox): EksTokenProvider & { calls: number } {
  const inner = createEksTokenProvider({ credentials: s.credentials });
  const counted = {
    calls: 0,
    token: (cluster: string, region: string) => {
      counted.calls += 1;
      return inner.token(cluster, region);
    },
  };
  return counted;
}

/** Starts a watch from aws-auth's resourceVersion; collects events and restarts until it ends. */
async function follow(s: Sandbox, options: Partial<AwsAuthWatcherOptions> = {}, from?: string) {
  const tokens = countingTokens(s);
  const watcher = createAwsAuthWatcher({ tokens, baseDelayMs: 10, ...options });
  const controller = new AbortController();
  controllers.push(controller);
  const events: AwsAuthWatchEvent[] = [];
  const restarts: AwsAuthWatchRestart[] = [];
  const ended = (async () => {
    for await (const e of watcher.watch(refOf(s), {
      signal: controller.signal,
      ...(from === undefined ? { from: s.cluster('prod').awsAuth?.resourceVersion ?? '' } : { from }),
      onRestart: (r) => restarts.push(r.reason),
    }))
      events.push(e);
    return 'returned' as const;
  })();
  ended.catch(() => undefined);
  expect(await waitFor(() => s.kube('prod').openWatches === 1)).toBe(true);
  return { events, restarts, ended, controller, tokens };
}

const mapRolesOf = (e: AwsAuthWatchEvent | undefined) =>
  e?.awsAuth.ok && e.awsAuth.value.found ? e.awsAuth.value.value.data.mapRoles : undefined;

describe('watching kube-system/aws-auth', () => {
  it('yields each write with its resourceVersion: update, delete, re-create', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    const w = await follow(s);
    s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'kubectl-edit' });
    const edited = s.cluster('prod').awsAuth?.resourceVersion;
    s.cluster('prod').deleteAwsAuth();
    const deletedAt = s.kube('prod').resourceVersion;
    s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES });
    expect(await waitFor(() => w.events.length === 3)).toBe(true);
    expect(w.events.map((e) => [e.type, e.via])).toEqual([
      ['MODIFIED', 'watch'],
      ['DELETED', 'watch'],
      ['ADDED', 'watch'],
    ]);
    expect(w.events[0]?.resourceVersion).toBe(edited);
    expect(mapRolesOf(w.events[0])).toBe(WITHOUT_SOLO);
    const first = w.events[0]?.awsAuth;
    expect(first?.ok && first.value.found && first.value.value.managedFields[0]?.manager).toBe(
      'kubectl-edit',
    );
    expect(w.events[1]).toMatchObject({
      resourceVersion: deletedAt,
      awsAuth: { ok: true, value: { found: false } },
    });
    expect(w.events[2]?.resourceVersion).toBe(s.cluster('prod').awsAuth?.resourceVersion);
  });

  it('watches again from the last resourceVersion when the server closes the stream, and misses no write', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    const w = await follow(s);
    s.kube('prod').closeWatches();
    // Written while no watch is open: the next watch, from the last resourceVersion, replays it.
    s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO });
    expect(await waitFor(() => w.events.length === 1)).toBe(true);
    expect(w.events[0]).toMatchObject({ type: 'MODIFIED', via: 'watch' });
    expect(w.restarts).toContain('closed');
    expect(await waitFor(() => s.kube('prod').openWatches === 1)).toBe(true);
    s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES });
    expect(await waitFor(() => w.events.length === 2)).toBe(true);
    expect(mapRolesOf(w.events[1])).toBe(MAP_ROLES);
  });

  it('re-lists after 410 Gone (an ERROR event) and reports the write it could no longer replay', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    const w = await follow(s);
    // All in one turn of the event loop: the write and the compaction happen before the client
    // can watch again, so its resume point is gone.
    s.kube('prod').closeWatches();
    s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO });
    s.kube('prod').compact();
    expect(await waitFor(() => w.events.length === 1)).toBe(true);
    expect(w.events[0]).toMatchObject({ type: 'MODIFIED', via: 'relist' });
    expect(w.events[0]?.resourceVersion).toBe(s.cluster('prod').awsAuth?.resourceVersion);
    expect(mapRolesOf(w.events[0])).toBe(WITHOUT_SOLO);
    expect(w.restarts).toEqual(['closed', 'gone']);
    // And goes on from the list's resourceVersion.
    expect(await waitFor(() => s.kube('prod').openWatches === 1)).toBe(true);
    s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES });
    expect(await waitFor(() => w.events.length === 2)).toBe(true);
    expect(w.events[1]).toMatchObject({ type: 'MODIFIED', via: 'watch' });
  });

  it('re-lists after an HTTP 410, and reports nothing when aws-auth did not change', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    const w = await follow(s);
    s.faults.inject({ service: 'kube', operation: 'WatchConfigMaps', status: 410, times: 1 });
    s.kube('prod').closeWatches();
    expect(await waitFor(() => w.restarts.includes('gone'))).toBe(true);
    expect(await waitFor(() => s.kube('prod').openWatches === 1)).toBe(true);
    expect(w.events).toEqual([]);
    s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO });
    expect(await waitFor(() => w.events.length === 1)).toBe(true);
  });

  it('reports a deletion a re-list finds', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    const w = await follow(s);
    s.kube('prod').closeWatches();
    s.cluster('prod').deleteAwsAuth();
    s.kube('prod').compact();
    expect(await waitFor(() => w.events.length === 1)).toBe(true);
    expect(w.events[0]).toMatchObject({
      type: 'DELETED',
      via: 'relist',
      awsAuth: { value: { found: false } },
    });
  });

  it('resumes from the bookmark: writes to other ConfigMaps move the resume point, so a compaction is no 410', async () => {
    const s = await startSandbox({
      clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }],
      kubeWatch: { bookmarkIntervalMs: 30 },
    });
    sandbox = s;
    const w = await follow(s);
    const api = (await kubeConfig(s, 'prod')).makeApiClient(CoreV1Api);
    await api.createNamespacedConfigMap({
      namespace: 'kube-system',
      body: { metadata: { name: 'coredns' }, data: {} },
    });
    const after = s.kube('prod').resourceVersion;
    // The next bookmark carries the other ConfigMap's resourceVersion (no event: not aws-auth).
    await new Promise((r) => setTimeout(r, 150));
    s.kube('prod').closeWatches();
    s.kube('prod').compact();
    expect(await waitFor(() => w.restarts.length === 1 && s.kube('prod').openWatches === 1)).toBe(true);
    expect(w.restarts).toEqual(['closed']);
    expect(w.events).toEqual([]);
    expect(s.calls.filter((c) => c.operation === 'ListConfigMaps')).toEqual([]);
    // Compacted past aws-auth's own resourceVersion: only the bookmark kept the watch from a 410.
    expect(Number(after)).toBeGreaterThan(Number(s.cluster('prod').awsAuth?.resourceVersion));
  });

  it('opens a new connection with a token asked afresh before the token is due, missing no write', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    const w = await follow(s, { tokenRefreshMs: 150 });
    expect(await waitFor(() => w.restarts.filter((r) => r === 'token-refresh').length >= 2)).toBe(true);
    expect(w.tokens.calls).toBeGreaterThanOrEqual(3);
    s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO });
    expect(await waitFor(() => w.events.length === 1)).toBe(true);
    expect(w.restarts.every((r) => r === 'token-refresh')).toBe(true);
  });

  it('stops on abort with no request left open and none sent after', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    const outgoing = watchOutgoingRequests();
    try {
      const w = await follow(s);
      w.controller.abort();
      expect(await w.ended).toBe('returned');
      const at = performance.now();
      expect(outgoing.openAt(at)).toEqual([]);
      expect(await waitFor(() => s.kube('prod').openWatches === 0)).toBe(true);
      s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO });
      await new Promise((r) => setTimeout(r, 200));
      expect(outgoing.sentAfter(at)).toEqual([]);
      expect(w.events).toEqual([]);
    } finally {
      outgoing.stop();
    }
  });

  it('ends with an error naming the verb and the RBAC it needs on 403, instead of retrying', async () => {
    const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    sandbox = s;
    s.faults.inject({ service: 'kube', operation: 'WatchConfigMaps', status: 403 });
    const watcher = createAwsAuthWatcher({ tokens: countingTokens(s), baseDelayMs: 10 });
    const controller = new AbortController();
    controllers.push(controller);
    const run = async () => {
      for await (const _ of watcher.watch(refOf(s), { signal: controller.signal, from: '1' })) {
        // no event expected
      }
    };
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesApiError);
    expect((error as KubernetesApiError).message).toMatch(
      /watch configmap kube-system\/aws-auth.*forbidden \(403\).*'watch'/,
    );
  });
});
