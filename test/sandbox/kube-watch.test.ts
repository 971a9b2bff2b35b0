import { DeleteNodegroupCommand, EKSClient } from '@aws-sdk/client-eks';
import { CoreV1Api, type KubeConfig, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { eksToken, httpsGet, waitFor } from '../support/sandbox-https.ts';
import { kubeConfig } from '../support/sandbox-kube.ts';
import { baseSnapshot, MAP_ROLES, REGION, SOLO_ROLE } from '../support/sandbox-seed.ts';

let sandbox: Sandbox | undefined;
const aborts: AbortController[] = [];
afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await sandbox?.close();
  sandbox = undefined;
});

const NS = 'kube-system';
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
const ONLY_AWS_AUTH = 'metadata.name=aws-auth';

async function start(options: Partial<Parameters<typeof startSandbox>[0]> = {}): Promise<Sandbox> {
  sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }], ...options });
  return sandbox;
}

interface Seen {
  events: Array<{ type: string; object: Record<string, unknown> }>;
  done: Promise<unknown>;
}

/** Starts a watch with the real client-node `Watch`; collects its events until `done`. */
async function watch(kc: KubeConfig, query: Record<string, string | number | boolean>): Promise<Seen> {
  const events: Seen['events'] = [];
  let finish: (err: unknown) => void = () => {};
  const done = new Promise<unknown>((resolve) => {
    finish = resolve;
  });
  const controller = await new Watch(kc).watch(
    CONFIGMAPS,
    query,
    (type, object) => events.push({ type, object: object as Record<string, unknown> }),
    (err) => finish(err ?? 'closed'),
  );
  aborts.push(controller);
  return { events, done };
}

const rvOf = (o: Record<string, unknown>): string =>
  String((o.metadata as Record<string, unknown> | undefined)?.resourceVersion);

describe('sandbox Kubernetes API: watch on ConfigMaps', () => {
  it("delivers a MODIFIED event to client-node's Watch after a patch made with CoreV1Api", async () => {
    const s = await start();
    const kc = await kubeConfig(s, 'prod');
    const from = s.cluster('prod').awsAuth?.resourceVersion ?? '';
    const seen = await watch(kc, { fieldSelector: ONLY_AWS_AUTH, resourceVersion: from });
    expect(await waitFor(() => s.kube('prod').openWatches === 1)).toBe(true);
    const patched = await kc.makeApiClient(CoreV1Api).patchNamespacedConfigMap({
      name: 'aws-auth',
      namespace: NS,
      body: [{ op: 'add', path: '/data/mapUsers', value: '[]\n' }],
    });
    expect(await waitFor(() => seen.events.length === 1)).toBe(true);
    expect(seen.events[0]?.type).toBe('MODIFIED');
    expect(rvOf(seen.events[0]?.object ?? {})).toBe(patched.metadata?.resourceVersion);
    expect(seen.events[0]?.object.data).toMatchObject({ mapUsers: '[]\n' });
    expect(s.calls.some((c) => c.operation === 'WatchConfigMaps' && c.status === 200)).toBe(true);
  });

  it('starts with ADDED for the current object without a resourceVersion, and filters by field selector', async () => {
    const s = await start();
    const kc = await kubeConfig(s, 'prod');
    const api = kc.makeApiClient(CoreV1Api);
    const seen = await watch(kc, { fieldSelector: ONLY_AWS_AUTH });
    expect(await waitFor(() => seen.events.length === 1)).toBe(true);
    expect(seen.events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'aws-auth' } } });
    await api.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'coredns' }, data: {} } });
    await api.deleteNamespacedConfigMap({ name: 'aws-auth', namespace: NS });
    expect(await waitFor(() => seen.events.length === 2)).toBe(true);
    const deleted = seen.events[1];
    expect(deleted?.type).toBe('DELETED');
    expect(Number(rvOf(deleted?.object ?? {}))).toBeGreaterThan(Number(rvOf(seen.events[0]?.object ?? {})));
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
  });

  it("sees EKS's own aws-auth edit (DeleteNodegroup) as a MODIFIED event", async () => {
    const s = await start();
    const kc = await kubeConfig(s, 'prod');
    const seen = await watch(kc, {
      fieldSelector: ONLY_AWS_AUTH,
      resourceVersion: s.kube('prod').resourceVersion,
    });
    expect(await waitFor(() => s.kube('prod').openWatches === 1)).toBe(true);
    const eks = new EKSClient({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_EKS,
      credentials: s.credentials,
    });
    await eks.send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-solo' }));
    expect(await waitFor(() => seen.events.length === 1)).toBe(true);
    const data = seen.events[0]?.object.data as Record<string, string> | undefined;
    expect(seen.events[0]?.type).toBe('MODIFIED');
    expect(data?.mapRoles).toBeDefined();
    expect(data?.mapRoles).not.toContain(SOLO_ROLE);
  });

  it('sends BOOKMARK events at the configured interval when the client allows them', async () => {
    const s = await start({ kubeWatch: { bookmarkIntervalMs: 40 } });
    const kc = await kubeConfig(s, 'prod');
    const rv = s.kube('prod').resourceVersion;
    const seen = await watch(kc, {
      fieldSelector: ONLY_AWS_AUTH,
      resourceVersion: rv,
      allowWatchBookmarks: true,
    });
    const plain = await watch(kc, { fieldSelector: ONLY_AWS_AUTH, resourceVersion: rv });
    expect(await waitFor(() => seen.events.length >= 2)).toBe(true);
    expect(seen.events[0]).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: rv } },
    });
    expect(plain.events).toEqual([]);
  });

  it('ends the stream at timeoutSeconds and at the sandbox maximum', async () => {
    const s = await start({ kubeWatch: { maxTimeoutSeconds: 1 } });
    const kc = await kubeConfig(s, 'prod');
    const t0 = Date.now();
    const seen = await watch(kc, {
      fieldSelector: ONLY_AWS_AUTH,
      resourceVersion: s.kube('prod').resourceVersion,
      timeoutSeconds: 60,
    });
    expect(await seen.done).toBe('closed');
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(3000);
    expect(s.kube('prod').openWatches).toBe(0);
  });

  it('closes every open watch from the server side on closeWatches()', async () => {
    const s = await start();
    const kc = await kubeConfig(s, 'prod');
    const a = await watch(kc, {
      fieldSelector: ONLY_AWS_AUTH,
      resourceVersion: s.kube('prod').resourceVersion,
    });
    const b = await watch(kc, {});
    expect(await waitFor(() => s.kube('prod').openWatches === 2)).toBe(true);
    s.kube('prod').closeWatches();
    expect(await a.done).toBe('closed');
    expect(await b.done).toBe('closed');
    expect(s.kube('prod').openWatches).toBe(0);
  });

  it('forgets a watch the client ends', async () => {
    const s = await start();
    const kc = await kubeConfig(s, 'prod');
    await watch(kc, { fieldSelector: ONLY_AWS_AUTH, resourceVersion: s.kube('prod').resourceVersion });
    expect(await waitFor(() => s.kube('prod').openWatches === 1)).toBe(true);
    for (const a of aborts.splice(0)) a.abort();
    expect(await waitFor(() => s.kube('prod').openWatches === 0)).toBe(true);
  });

  it('answers a watch from a compacted resourceVersion with an ERROR event: Status 410 Expired', async () => {
    const s = await start();
    const kc = await kubeConfig(s, 'prod');
    const old = s.kube('prod').resourceVersion;
    s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES, mapUsers: '[]\n' });
    // before compaction the history still reaches back
    const before = await watch(kc, { fieldSelector: ONLY_AWS_AUTH, resourceVersion: old });
    expect(await waitFor(() => before.events.length === 1)).toBe(true);
    expect(before.events[0]?.type).toBe('MODIFIED');
    s.kube('prod').compact();
    const seen = await watch(kc, { fieldSelector: ONLY_AWS_AUTH, resourceVersion: old });
    expect(await seen.done).toBe('closed');
    expect(seen.events).toEqual([
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${old} (${s.kube('prod').resourceVersion})`,
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
    // a watch from the current resourceVersion is fine
    const fresh = await watch(kc, {
      fieldSelector: ONLY_AWS_AUTH,
      resourceVersion: s.kube('prod').resourceVersion,
    });
    s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES });
    expect(await waitFor(() => fresh.events.length === 1)).toBe(true);
  });

  it('keeps historyLimit events: older resourceVersions expire on their own', async () => {
    const s = await start({ kubeWatch: { historyLimit: 2 } });
    const kc = await kubeConfig(s, 'prod');
    const old = s.kube('prod').resourceVersion;
    for (const users of ['[]\n', '- userarn: x\n', ''])
      s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES, mapUsers: users });
    const seen = await watch(kc, { fieldSelector: ONLY_AWS_AUTH, resourceVersion: old });
    expect(await seen.done).toBe('closed');
    expect(seen.events[0]?.object).toMatchObject({ reason: 'Expired', code: 410 });
  });

  it('lists ConfigMaps with the list resourceVersion to watch from; a continue token dies at compaction (410)', async () => {
    const s = await start();
    const token = await eksToken('prod', s.credentials);
    const base = `${s.cluster('prod').endpoint}${CONFIGMAPS}`;
    const kc = await kubeConfig(s, 'prod');
    await kc
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'coredns' }, data: {} } });
    const list = await httpsGet(`${base}?fieldSelector=${encodeURIComponent(ONLY_AWS_AUTH)}`, s.caPem, token);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      kind: 'ConfigMapList',
      metadata: { resourceVersion: s.kube('prod').resourceVersion },
    });
    expect((list.body.items as unknown[]).length).toBe(1);
    const page = await httpsGet(`${base}?limit=1`, s.caPem, token);
    const cont = (page.body.metadata as { continue?: string }).continue ?? '';
    expect(cont).not.toBe('');
    s.kube('prod').compact();
    const expired = await httpsGet(`${base}?limit=1&continue=${encodeURIComponent(cont)}`, s.caPem, token);
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    const bad = await httpsGet(`${base}?fieldSelector=spec.x%3Dy`, s.caPem, token);
    expect(bad.body).toMatchObject({ code: 400, message: 'field label not supported: spec.x' });
  });

  it('refuses a watch to a principal without the watch verb (403)', async () => {
    const s = await start();
    s.cluster('prod').putAwsAuth({
      mapRoles: `${MAP_ROLES}- rolearn: ${s.principals.outsider}\n  username: nobody\n  groups:\n    - viewers\n`,
    });
    const kc = await kubeConfig(s, 'prod', s.outsiderCredentials);
    const seen = await watch(kc, { fieldSelector: ONLY_AWS_AUTH });
    expect(await seen.done).toMatchObject({ statusCode: 403 });
  });
});
