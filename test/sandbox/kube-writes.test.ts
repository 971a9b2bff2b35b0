import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { rbacFromManifests, type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { waitFor } from '../support/sandbox-https.ts';
import { kubeConfig, statusOf } from '../support/sandbox-kube.ts';
import { baseSnapshot, FARGATE_ROLE, MAP_ROLES } from '../support/sandbox-seed.ts';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const NS = 'kube-system';
const NAME = 'aws-auth';

async function start(options: Partial<Parameters<typeof startSandbox>[0]> = {}): Promise<Sandbox> {
  sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }], ...options });
  return sandbox;
}

async function core(s: Sandbox, credentials = s.credentials): Promise<CoreV1Api> {
  return (await kubeConfig(s, 'prod', credentials)).makeApiClient(CoreV1Api);
}

function withoutFargate(): string {
  return MAP_ROLES.split('- rolearn: ')
    .filter((e) => e !== '' && !e.includes('fargate'))
    .map((e) => `- rolearn: ${e}`)
    .join('');
}

function writes(s: Sandbox): Array<[string, number]> {
  return s.calls
    .filter((c) => c.service === 'kube' && /ConfigMap$/.test(c.operation) && c.operation !== 'GetConfigMap')
    .map((c) => [c.operation, c.status]);
}

describe('sandbox Kubernetes API: ConfigMap writes', () => {
  it('replaces aws-auth with PUT, bumps the resourceVersion, and answers a stale one 409 Conflict', async () => {
    const s = await start();
    const api = await core(s);
    const cm = await api.readNamespacedConfigMap({ name: NAME, namespace: NS });
    const rv = cm.metadata?.resourceVersion ?? '';
    const put = await api.replaceNamespacedConfigMap({
      name: NAME,
      namespace: NS,
      body: { ...cm, data: { ...cm.data, mapUsers: '[]\n' } },
      fieldManager: 'kubectl-edit',
    });
    expect(Number(put.metadata?.resourceVersion)).toBeGreaterThan(Number(rv));
    expect(s.cluster('prod').awsAuth?.data.mapUsers).toBe('[]\n');
    expect(put.metadata?.managedFields?.map((f) => f.manager)).toEqual(['Terraform', 'kubectl-edit']);
    const stale = await api
      .replaceNamespacedConfigMap({ name: NAME, namespace: NS, body: { ...cm, data: {} } })
      .catch((e: unknown) => e);
    expect((stale as { code?: number }).code).toBe(409);
    expect(statusOf(stale)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Operation cannot be fulfilled on configmaps "aws-auth": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'aws-auth', kind: 'configmaps' },
      code: 409,
    });
    expect(s.cluster('prod').awsAuth?.data.mapRoles).toBe(MAP_ROLES);
    expect(writes(s)).toEqual([
      ['ReplaceConfigMap', 200],
      ['ReplaceConfigMap', 409],
    ]);
  });

  it('patches with JSON Patch (a failed test op is 422 and changes nothing), merge and strategic merge', async () => {
    const s = await start();
    const api = await core(s);
    const rv = s.cluster('prod').awsAuth?.resourceVersion;
    const failedTest = await api
      .patchNamespacedConfigMap({
        name: NAME,
        namespace: NS,
        body: [
          { op: 'test', path: '/metadata/resourceVersion', value: '1' },
          { op: 'replace', path: '/data/mapRoles', value: '' },
        ],
      })
      .catch((e: unknown) => e);
    expect((failedTest as { code?: number }).code).toBe(422);
    expect(statusOf(failedTest)).toMatchObject({ reason: 'Invalid', code: 422 });
    expect(s.cluster('prod').awsAuth?.resourceVersion).toBe(rv);

    const jp = await api.patchNamespacedConfigMap({
      name: NAME,
      namespace: NS,
      body: [
        { op: 'test', path: '/metadata/resourceVersion', value: rv },
        { op: 'add', path: '/data/mapUsers', value: '[]\n' },
      ],
    });
    expect(jp.data?.mapUsers).toBe('[]\n');

    const merge = await api.patchNamespacedConfigMap(
      { name: NAME, namespace: NS, body: { data: { mapUsers: null, mapAccounts: '[]\n' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(merge.data).toEqual({ mapRoles: MAP_ROLES, mapAccounts: '[]\n' });

    const strategic = await api.patchNamespacedConfigMap(
      { name: NAME, namespace: NS, body: { data: { mapAccounts: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(strategic.data).toEqual({ mapRoles: MAP_ROLES });

    // A resourceVersion in a merge patch is a precondition.
    const stale = await api
      .patchNamespacedConfigMap(
        { name: NAME, namespace: NS, body: { metadata: { resourceVersion: rv }, data: { mapRoles: '' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )
      .catch((e: unknown) => e);
    expect((stale as { code?: number }).code).toBe(409);
    expect(s.cluster('prod').awsAuth?.data.mapRoles).toBe(MAP_ROLES);
    const rvs = s.calls.filter((c) => c.operation === 'PatchConfigMap').map((c) => c.status);
    expect(rvs).toEqual([422, 200, 200, 200, 409]);
  });

  it('a patch that removes a mapping unmaps the nodes that used it', async () => {
    const s = await start({ notReadyDelayMs: 30 });
    const api = await core(s);
    await api.patchNamespacedConfigMap(
      { name: NAME, namespace: NS, body: { data: { mapRoles: withoutFargate() } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const fargate = s.cluster('prod').nodes.find((n) => n.roleArn === FARGATE_ROLE);
    expect(await waitFor(() => fargate?.ready === 'Unknown')).toBe(true);
  });

  it('creates with POST (409 AlreadyExists when present) and deletes (404 when absent, preconditions)', async () => {
    const s = await start();
    const api = await core(s);
    const exists = await api
      .createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: NAME }, data: {} } })
      .catch((e: unknown) => e);
    expect(statusOf(exists)).toMatchObject({
      message: 'configmaps "aws-auth" already exists',
      reason: 'AlreadyExists',
      details: { name: NAME, kind: 'configmaps' },
      code: 409,
    });
    const uid = s.cluster('prod').awsAuth?.uid;
    const stale = await api
      .deleteNamespacedConfigMap({
        name: NAME,
        namespace: NS,
        body: { preconditions: { resourceVersion: '1' } },
      })
      .catch((e: unknown) => e);
    expect(statusOf(stale)).toMatchObject({ reason: 'Conflict', code: 409 });
    expect(String(statusOf(stale).message)).toContain(
      'Precondition failed: ResourceVersion in precondition: 1',
    );
    const deleted = await api.deleteNamespacedConfigMap({ name: NAME, namespace: NS });
    expect(deleted).toMatchObject({ status: 'Success', details: { name: NAME, kind: 'configmaps', uid } });
    expect(s.cluster('prod').awsAuth).toBeUndefined();
    const again = await api.deleteNamespacedConfigMap({ name: NAME, namespace: NS }).catch((e: unknown) => e);
    expect(statusOf(again)).toMatchObject({
      reason: 'NotFound',
      code: 404,
      message: 'configmaps "aws-auth" not found',
    });
    const created = await api.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: NAME }, data: { mapRoles: MAP_ROLES } },
      fieldManager: 'remediator',
    });
    expect(created.metadata?.uid).not.toBe(uid);
    expect(s.cluster('prod').awsAuth?.data.mapRoles).toBe(MAP_ROLES);
    expect(writes(s)).toEqual([
      ['CreateConfigMap', 409],
      ['DeleteConfigMap', 409],
      ['DeleteConfigMap', 200],
      ['DeleteConfigMap', 404],
      ['CreateConfigMap', 201],
    ]);
  });

  it('keeps the resourceVersion monotonic across API writes, EKS-side edits and helper writes', async () => {
    const s = await start();
    const api = await core(s);
    const cluster = s.cluster('prod');
    const seen = [Number(cluster.awsAuth?.resourceVersion)];
    await api.patchNamespacedConfigMap({
      name: NAME,
      namespace: NS,
      body: [{ op: 'add', path: '/data/mapUsers', value: '[]\n' }],
    });
    seen.push(Number(cluster.awsAuth?.resourceVersion));
    cluster.putAwsAuth({ mapRoles: MAP_ROLES });
    seen.push(Number(cluster.awsAuth?.resourceVersion));
    const read = await api.readNamespacedConfigMap({ name: NAME, namespace: NS });
    expect(read.metadata?.resourceVersion).toBe(String(seen[2]));
    expect(seen[1]).toBeGreaterThan(seen[0] as number);
    expect(seen[2]).toBeGreaterThan(seen[1] as number);
    expect(Number(s.kube('prod').resourceVersion)).toBeGreaterThanOrEqual(seen[2] as number);
  });

  it('refuses a write the principal has no RBAC for, with the API server message, and allows a granted one', async () => {
    const s = await start();
    const cluster = s.cluster('prod');
    cluster.putAwsAuth({
      mapRoles: `${MAP_ROLES}- rolearn: ${s.principals.outsider}\n  username: remediator\n  groups:\n    - eks-auth-sentinel:readers\n`,
    });
    const api = await core(s, s.outsiderCredentials);
    const body = [{ op: 'add', path: '/data/mapUsers', value: '[]\n' }];
    const denied = await api
      .patchNamespacedConfigMap({ name: NAME, namespace: NS, body })
      .catch((e: unknown) => e);
    expect(statusOf(denied)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'configmaps "aws-auth" is forbidden: User "remediator" cannot patch resource "configmaps" in API group "" in the namespace "kube-system"',
      reason: 'Forbidden',
      details: { name: 'aws-auth', kind: 'configmaps' },
      code: 403,
    });
    expect(cluster.awsAuth?.data.mapUsers).toBeUndefined();
    cluster.rbac.push({
      name: 'aws-auth-remediation',
      subjects: [{ kind: 'Group', name: 'eks-auth-sentinel:readers' }],
      namespace: NS,
      verbs: ['get', 'update', 'patch'],
      resources: ['configmaps'],
      resourceNames: [NAME],
    });
    const patched = await api.patchNamespacedConfigMap({ name: NAME, namespace: NS, body });
    expect(patched.data?.mapUsers).toBe('[]\n');
    // resourceNames never cover a create or delete outside the grant's verbs
    const del = await api.deleteNamespacedConfigMap({ name: NAME, namespace: NS }).catch((e: unknown) => e);
    expect(statusOf(del)).toMatchObject({ code: 403 });
    const other = await api
      .patchNamespacedConfigMap({ name: 'coredns', namespace: NS, body })
      .catch((e: unknown) => e);
    expect(String(statusOf(other).message)).toBe(
      'configmaps "coredns" is forbidden: User "remediator" cannot patch resource "configmaps" in API group "" in the namespace "kube-system"',
    );
  });

  it('answers 415 for an unknown patch type and 400 for a name that does not match the URL', async () => {
    const s = await start();
    const api = await core(s);
    const cm = await api.readNamespacedConfigMap({ name: NAME, namespace: NS });
    const renamed = await api
      .replaceNamespacedConfigMap({
        name: NAME,
        namespace: NS,
        body: { ...cm, metadata: { ...cm.metadata, name: 'x' } },
      })
      .catch((e: unknown) => e);
    expect(statusOf(renamed)).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'the name of the object (x) does not match the name on the URL (aws-auth)',
    });
    const apply = await api
      .patchNamespacedConfigMap(
        { name: NAME, namespace: NS, body: { data: {} } },
        setHeaderOptions('Content-Type', 'application/xml'),
      )
      .catch((e: unknown) => e);
    expect(statusOf(apply)).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
  });

  it('applies RBAC manifests: a Role limited to aws-auth lets its group patch it and nothing else', async () => {
    const s = await start();
    const cluster = s.cluster('prod');
    cluster.putAwsAuth({
      mapRoles: `${MAP_ROLES}- rolearn: ${s.principals.outsider}\n  username: remediator\n  groups:\n    - eks-auth-sentinel:remediators\n`,
    });
    cluster.rbac.push(
      ...rbacFromManifests(`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: aws-auth-remediation, namespace: kube-system }
rules:
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: [aws-auth]
    verbs: [get, update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: aws-auth-remediation, namespace: kube-system }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: aws-auth-remediation }
subjects:
  - { kind: Group, name: "eks-auth-sentinel:remediators", apiGroup: rbac.authorization.k8s.io }
`),
    );
    const api = await core(s, s.outsiderCredentials);
    const cm = await api.readNamespacedConfigMap({ name: NAME, namespace: NS });
    const put = await api.replaceNamespacedConfigMap({
      name: NAME,
      namespace: NS,
      body: { ...cm, data: { ...cm.data, mapUsers: '[]\n' } },
    });
    expect(put.data?.mapUsers).toBe('[]\n');
    const list = await api.listNamespacedConfigMap({ namespace: NS }).catch((e: unknown) => e);
    expect((list as { code?: number }).code).toBe(403);
    const create = await api
      .createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: NAME }, data: {} } })
      .catch((e: unknown) => e);
    expect(String(statusOf(create).message)).toBe(
      'configmaps is forbidden: User "remediator" cannot create resource "configmaps" in API group "" in the namespace "kube-system"',
    );
  });
});
