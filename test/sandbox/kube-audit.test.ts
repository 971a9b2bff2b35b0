import { gunzipSync } from 'node:zlib';
import {
  DeleteNodegroupCommand,
  DescribeClusterCommand,
  EKSClient,
  UpdateClusterConfigCommand,
} from '@aws-sdk/client-eks';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { CloudWatchLogsSubscriptionEvent } from '../../infra/sandbox/index.ts';
import { type Sandbox, startSandbox, subscriptionPayload } from '../../infra/sandbox/index.ts';
import { waitFor } from '../support/sandbox-https.ts';
import { kubeConfig } from '../support/sandbox-kube.ts';
import { ACCOUNT, baseSnapshot, MAP_ROLES, REGION } from '../support/sandbox-seed.ts';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const NS = 'kube-system';
const NAME = 'aws-auth';

async function start(options: Partial<Parameters<typeof startSandbox>[0]> = {}): Promise<Sandbox> {
  sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot(), logging: ['audit'] }], ...options });
  return sandbox;
}

interface Decoded {
  messageType: string;
  owner: string;
  logGroup: string;
  logStream: string;
  subscriptionFilters: string[];
  logEvents: Array<{ id: string; timestamp: number; message: string }>;
}

/** What a Lambda handler does with the event: base64 → gunzip → JSON. */
function decode(p: CloudWatchLogsSubscriptionEvent): Decoded {
  return JSON.parse(gunzipSync(Buffer.from(p.awslogs.data, 'base64')).toString('utf8')) as Decoded;
}

/** The fields of an audit event the tests read. */
interface AuditJson {
  [field: string]: unknown;
  verb: string;
  level: string;
  requestURI: string;
  userAgent: string;
  auditID: string;
  stageTimestamp: string;
  objectRef: { name: string; resourceVersion?: string };
  responseStatus: { code: number };
  annotations: Record<string, string>;
}

function auditEvents(payloads: CloudWatchLogsSubscriptionEvent[]): AuditJson[] {
  return payloads.flatMap((p) => decode(p).logEvents.map((e) => JSON.parse(e.message) as AuditJson));
}

const eksClient = (s: Sandbox) =>
  new EKSClient({ region: REGION, endpoint: s.env.AWS_ENDPOINT_URL_EKS, credentials: s.credentials });

describe('sandbox EKS: control-plane logging', () => {
  it('DescribeCluster reports logging; UpdateClusterConfig turns audit on after the update', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }], sideEffectDelayMs: 1500 });
    const s = sandbox;
    const eks = eksClient(s);
    const before = await eks.send(new DescribeClusterCommand({ name: 'prod' }));
    expect(before.cluster?.logging).toEqual({
      clusterLogging: [
        { types: ['api', 'audit', 'authenticator', 'controllerManager', 'scheduler'], enabled: false },
      ],
    });
    const { update } = await eks.send(
      new UpdateClusterConfigCommand({
        name: 'prod',
        logging: { clusterLogging: [{ types: ['audit', 'authenticator'], enabled: true }] },
      }),
    );
    expect(update).toMatchObject({
      status: 'InProgress',
      type: 'LoggingUpdate',
      params: [{ type: 'ClusterLogging' }],
    });
    expect(s.cluster('prod').status).toBe('UPDATING');
    expect(s.cluster('prod').logging).toEqual([]);
    expect(await waitFor(() => s.cluster('prod').status === 'ACTIVE', 10_000)).toBe(true);
    const after = await eks.send(new DescribeClusterCommand({ name: 'prod' }));
    expect(after.cluster?.logging?.clusterLogging).toEqual([
      { types: ['audit', 'authenticator'], enabled: true },
      { types: ['api', 'controllerManager', 'scheduler'], enabled: false },
    ]);
    await expect(
      eks.send(
        new UpdateClusterConfigCommand({
          name: 'prod',
          logging: { clusterLogging: [{ types: ['audit'], enabled: true }] },
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
  });

  it('writes no audit event while audit logging is off', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    const api = (await kubeConfig(sandbox, 'prod')).makeApiClient(CoreV1Api);
    await api.patchNamespacedConfigMap({
      name: NAME,
      namespace: NS,
      body: [{ op: 'add', path: '/data/mapUsers', value: '[]\n' }],
    });
    expect(sandbox.audit.events()).toEqual([]);
    expect(sandbox.audit.drain()).toEqual([]);
  });
});

describe('sandbox audit log as a CloudWatch Logs subscription delivers it', () => {
  it('a patch of aws-auth: RequestResponse with both bodies, the IAM identity as EKS sets it, in a Lambda payload', async () => {
    const s = await start();
    const api = (await kubeConfig(s, 'prod')).makeApiClient(CoreV1Api);
    const patch = [{ op: 'add', path: '/data/mapUsers', value: '[]\n' }];
    const patched = await api.patchNamespacedConfigMap({
      name: NAME,
      namespace: NS,
      body: patch,
      fieldManager: 'kubectl-patch',
    });
    const payloads = s.audit.drain('prod');
    expect(payloads).toHaveLength(1);
    expect(Object.keys(payloads[0] ?? {})).toEqual(['awslogs']);
    const d = decode(payloads[0] as CloudWatchLogsSubscriptionEvent);
    expect(d).toMatchObject({
      messageType: 'DATA_MESSAGE',
      owner: ACCOUNT,
      logGroup: '/aws/eks/prod/cluster',
      subscriptionFilters: ['eks-auth-sentinel-aws-auth'],
    });
    expect(d.logStream).toMatch(/^kube-apiserver-audit-[0-9a-f]{32}$/);
    expect(d.logEvents).toHaveLength(1);
    expect(d.logEvents[0]?.id).toMatch(/^\d{56}$/);
    const event = JSON.parse(d.logEvents[0]?.message ?? '') as AuditJson;
    expect(d.logEvents[0]?.timestamp).toBe(Date.parse(event.stageTimestamp));
    expect(event).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      stage: 'ResponseComplete',
      verb: 'patch',
      requestURI: '/api/v1/namespaces/kube-system/configmaps/aws-auth?fieldManager=kubectl-patch',
      user: {
        username: 'kubernetes-admin',
        uid: `aws-iam-authenticator:${ACCOUNT}:AROAEKSAUTHSENTINEL01`,
        groups: ['system:masters', 'system:authenticated'],
        extra: {
          arn: [`arn:aws:sts::${ACCOUNT}:assumed-role/eks-auth-sentinel/eks-auth-sentinel`],
          canonicalArn: [`arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel`],
          sessionName: ['eks-auth-sentinel'],
          principalId: ['AROAEKSAUTHSENTINEL01'],
          accessKeyId: [s.credentials.accessKeyId],
        },
      },
      sourceIPs: ['127.0.0.1'],
      objectRef: { resource: 'configmaps', namespace: NS, name: NAME, apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
      requestObject: patch,
      responseObject: { kind: 'ConfigMap', metadata: { resourceVersion: patched.metadata?.resourceVersion } },
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
    expect(event.userAgent).toBeTruthy();
    expect(event.auditID).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.stageTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(s.audit.drain()).toEqual([]);
  });

  it('levels as EKS policy: update and delete at RequestResponse, create at Metadata without bodies', async () => {
    const s = await start();
    const api = (await kubeConfig(s, 'prod')).makeApiClient(CoreV1Api);
    const cm = await api.readNamespacedConfigMap({ name: NAME, namespace: NS });
    await api.replaceNamespacedConfigMap({
      name: NAME,
      namespace: NS,
      body: { ...cm, data: { mapRoles: MAP_ROLES } },
    });
    await api.deleteNamespacedConfigMap({ name: NAME, namespace: NS });
    await api.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: NAME }, data: { mapRoles: MAP_ROLES } },
    });
    await api.patchNamespacedConfigMap(
      { name: 'aws-auth', namespace: NS, body: { data: { mapUsers: '[]\n' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await api.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'coredns' }, data: {} } });
    await api.patchNamespacedConfigMap(
      { name: 'coredns', namespace: NS, body: { data: { a: 'b' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const events = auditEvents(s.audit.drain());
    expect(
      events.map((e) => [e.verb, e.objectRef.name, e.level, 'requestObject' in e, 'responseObject' in e]),
    ).toEqual([
      ['update', NAME, 'RequestResponse', true, true],
      ['delete', NAME, 'RequestResponse', false, true],
      ['create', NAME, 'Metadata', false, false],
      ['patch', NAME, 'RequestResponse', true, true],
      ['create', 'coredns', 'Metadata', false, false],
      ['patch', 'coredns', 'Metadata', false, false],
    ]);
    expect(events[0]?.objectRef.resourceVersion).toBe(cm.metadata?.resourceVersion);
    expect(events[1]?.responseObject).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: NAME },
    });
    expect(events[2]?.requestURI).toBe('/api/v1/namespaces/kube-system/configmaps');
    expect(events[2]?.responseStatus.code).toBe(201);
  });

  it('audits a denied write (403, decision forbid, no bodies) and a conflict (409, no response object)', async () => {
    const s = await start();
    s.cluster('prod').putAwsAuth({
      mapRoles: `${MAP_ROLES}- rolearn: ${s.principals.outsider}\n  username: reader\n  groups:\n    - eks-auth-sentinel:readers\n`,
    });
    s.audit.drain();
    const outsider = (await kubeConfig(s, 'prod', s.outsiderCredentials)).makeApiClient(CoreV1Api);
    const body = [{ op: 'add', path: '/data/mapUsers', value: '[]\n' }];
    await outsider.patchNamespacedConfigMap({ name: NAME, namespace: NS, body }).catch(() => undefined);
    const admin = (await kubeConfig(s, 'prod')).makeApiClient(CoreV1Api);
    await admin
      .patchNamespacedConfigMap(
        { name: NAME, namespace: NS, body: { metadata: { resourceVersion: '1' }, data: {} } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )
      .catch(() => undefined);
    const [denied, conflict] = auditEvents(s.audit.drain());
    expect(denied).toMatchObject({
      verb: 'patch',
      user: {
        username: 'reader',
        groups: ['eks-auth-sentinel:readers', 'system:authenticated'],
        extra: { canonicalArn: [s.principals.outsider], sessionName: ['sandbox-outsider'] },
      },
      responseStatus: { status: 'Failure', reason: 'Forbidden', code: 403 },
      annotations: { 'authorization.k8s.io/decision': 'forbid' },
    });
    expect('requestObject' in (denied ?? {})).toBe(false);
    expect(conflict).toMatchObject({
      responseStatus: { reason: 'Conflict', code: 409 },
      requestObject: { data: {} },
    });
    expect('responseObject' in (conflict ?? {})).toBe(false);
  });

  it("audits EKS's own aws-auth edit and a helper write as the principal named in `by`", async () => {
    const s = await start();
    await eksClient(s).send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-solo' }));
    s.cluster('prod').putAwsAuth(
      { mapRoles: MAP_ROLES },
      {
        manager: 'Terraform',
        by: {
          arn: `arn:aws:iam::${ACCOUNT}:role/ci-deployer`,
          sessionName: 'gha-1234',
          userAgent: 'HashiCorp/1.0 Terraform/1.9.5',
        },
      },
    );
    const [eks, terraform] = auditEvents(s.audit.drain());
    expect(eks).toMatchObject({
      verb: 'update',
      level: 'RequestResponse',
      user: { username: 'eks:node-manager' },
    });
    expect(terraform).toMatchObject({
      verb: 'update',
      userAgent: 'HashiCorp/1.0 Terraform/1.9.5',
      user: {
        username: `arn:aws:sts::${ACCOUNT}:assumed-role/ci-deployer/gha-1234`,
        extra: {
          arn: [`arn:aws:sts::${ACCOUNT}:assumed-role/ci-deployer/gha-1234`],
          canonicalArn: [`arn:aws:iam::${ACCOUNT}:role/ci-deployer`],
          sessionName: ['gha-1234'],
        },
      },
      responseObject: { data: { mapRoles: MAP_ROLES } },
    });
  });

  it('truncates the next event as the API server truncating backend does', async () => {
    const s = await start();
    s.audit.truncateNext({ cluster: 'prod' });
    s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES, mapUsers: '[]\n' });
    s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES });
    const [cut, whole] = auditEvents(s.audit.drain());
    expect(cut?.annotations['audit.k8s.io/truncated']).toBe('true');
    expect(cut?.level).toBe('RequestResponse');
    expect('requestObject' in (cut ?? {}) || 'responseObject' in (cut ?? {})).toBe(false);
    expect(whole?.annotations['audit.k8s.io/truncated']).toBeUndefined();
    expect(whole?.responseObject).toBeDefined();
  });

  it('stages each reading of an event over the CloudWatch Logs size limit', async () => {
    const s = await start();
    const messages = (): string[] =>
      s.audit.drain().flatMap((p) => decode(p).logEvents.map((e) => e.message));
    const write = (users: string) => s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES, mapUsers: users });
    s.audit.configure({ maxEventBytes: 1500, oversize: 'deliver' });
    write('[]\n');
    const [whole] = messages();
    expect(Buffer.byteLength(whole ?? '')).toBeGreaterThan(1500);
    expect(JSON.parse(whole ?? '').responseObject).toBeDefined();
    s.audit.configure({ oversize: 'cut' });
    write('');
    const [cut] = messages();
    expect(Buffer.byteLength(cut ?? '')).toBe(1500);
    expect(() => JSON.parse(cut ?? '')).toThrow();
    s.audit.configure({ oversize: 'truncate' });
    write('[]\n');
    const [truncated] = messages();
    expect(JSON.parse(truncated ?? '').annotations['audit.k8s.io/truncated']).toBe('true');
    s.audit.configure({ oversize: 'drop' });
    write('');
    expect(messages()).toEqual([]);
    expect(s.audit.events('prod')).toHaveLength(4);
  });

  it('delivers to a subscriber as the write happens, instead of queueing for drain', async () => {
    const s = await start();
    const got: Array<{ cluster: string; payload: CloudWatchLogsSubscriptionEvent }> = [];
    const stop = s.audit.subscribe((payload, cluster) => got.push({ cluster, payload }));
    s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES, mapUsers: '[]\n' });
    expect(await waitFor(() => got.length === 1)).toBe(true);
    expect(got[0]?.cluster).toBe('prod');
    expect(auditEvents([got[0]?.payload as CloudWatchLogsSubscriptionEvent])[0]?.verb).toBe('update');
    expect(s.audit.drain()).toEqual([]);
    stop();
    s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES });
    expect(s.audit.drain()).toHaveLength(1);
  });

  it('builds a payload for any log group (e.g. of a cluster the monitor does not know)', () => {
    const payload = subscriptionPayload({
      owner: ACCOUNT,
      logGroup: '/aws/eks/unknown/cluster',
      logStream: 'kube-apiserver-audit-0123456789abcdef0123456789abcdef',
      subscriptionFilters: ['f'],
      logEvents: [{ id: '1'.repeat(56), timestamp: 1, message: '{}' }],
    });
    expect(decode(payload)).toEqual({
      messageType: 'DATA_MESSAGE',
      owner: ACCOUNT,
      logGroup: '/aws/eks/unknown/cluster',
      logStream: 'kube-apiserver-audit-0123456789abcdef0123456789abcdef',
      subscriptionFilters: ['f'],
      logEvents: [{ id: '1'.repeat(56), timestamp: 1, message: '{}' }],
    });
  });
});
