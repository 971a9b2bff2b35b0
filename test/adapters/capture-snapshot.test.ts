import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTls } from '../../infra/sandbox/certs.ts';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { captureSnapshot, captureSnapshots } from '../../shared/app/capture-snapshot.ts';
import { listClusters } from '../../shared/app/list-clusters.ts';
import type { ClusterSnapshot, ComputeNode } from '../../shared/core/model.ts';
import { validateSnapshot } from '../../shared/core/snapshot/snapshot-schema.ts';
import { CollectionError } from '../../shared/errors.ts';
import type { CaptureDeps } from '../../shared/ports.ts';
import { callsOf, loadScenario, sandboxDeps } from '../support/sandbox-helpers.ts';

const REGION = 'eu-west-1';
const ACCT = '111122223333';
const NODE_ROLE = `arn:aws:iam::${ACCT}:role/prod-node-role`;
const target = (clusterName = 'prod') => ({ region: REGION, clusterName });

const computeKey = (c: ComputeNode) =>
  [
    c.kind,
    c.id,
    c.nodeName ?? '',
    c.roleArn ?? '',
    c.nodegroup ?? '',
    c.nodePool ?? '',
    c.nodeClass ?? '',
    c.ready ?? '',
  ].join('|');

/** The fields of a snapshot the rules depend on, in a comparable form. */
function essentials(s: ClusterSnapshot) {
  const data = <T>(src: { status: string; data?: T } | undefined) =>
    src?.status === 'ok' ? src.data : src?.status;
  return {
    identity: [s.accountId, s.region, s.clusterName, s.clusterArn],
    mode: s.cluster.authenticationMode,
    awsAuthData: s.awsAuth.status === 'ok' ? s.awsAuth.data.data : s.awsAuth.status,
    awsAuthManagers:
      s.awsAuth.status === 'ok'
        ? s.awsAuth.data.managedFields.map((f) => [f.manager, f.operation, f.dataKeys])
        : [],
    accessEntries:
      s.accessEntries.status === 'ok'
        ? s.accessEntries.data
            .map((e) => [
              e.principalArn,
              e.type,
              e.kubernetesGroups,
              e.accessPolicies.map((p) => p.policyArn),
            ])
            .sort()
        : s.accessEntries.status,
    nodegroups:
      s.nodegroups.status === 'ok'
        ? s.nodegroups.data.map((n) => [n.name, n.status, n.nodeRole])
        : s.nodegroups.status,
    fargate:
      s.fargateProfiles.status === 'ok'
        ? s.fargateProfiles.data.map((p) => [p.name, p.podExecutionRoleArn])
        : s.fargateProfiles.status,
    compute: s.compute.status === 'ok' ? s.compute.data.map(computeKey).sort() : s.compute.status,
    nodeClasses: data(s.karpenterNodeClasses),
    iamRoles:
      s.iamRoles.status === 'ok'
        ? [...s.iamRoles.data]
            .sort((a, b) => a.arn.localeCompare(b.arn))
            .map((r) => [
              r.arn,
              r.state,
              r.roleId,
              r.createDate === undefined ? undefined : Date.parse(r.createDate),
            ])
        : s.iamRoles.status,
  };
}

describe('captureSnapshot against the sandbox (scenario a)', () => {
  let sandbox: Sandbox;
  let deps: CaptureDeps;
  const seed = loadScenario('a-karpenter-shares-last-nodegroup-role');
  beforeAll(async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: seed }] });
  });
  afterAll(async () => sandbox.close());
  beforeEach(() => {
    sandbox.faults.clear();
    deps = sandboxDeps(sandbox);
  });

  it('captures what the sandbox was seeded with: roles, mode, node kinds and counts', async () => {
    const mark = sandbox.calls.length;
    const snapshot = await captureSnapshot(deps, target());
    const calls: Record<string, number> = {};
    for (const c of sandbox.calls.slice(mark))
      calls[`${c.service}:${c.operation}`] = (calls[`${c.service}:${c.operation}`] ?? 0) + 1;
    // The whole cost of one capture of this cluster (CONFIG_MAP: no access-entry calls).
    expect(calls).toEqual({
      'eks:DescribeCluster': 1,
      'eks:ListNodegroups': 1,
      'eks:DescribeNodegroup': 1,
      'eks:ListFargateProfiles': 1,
      'ec2:DescribeInstances': 3,
      'iam:GetInstanceProfile': 1,
      'iam:GetRole': 2,
      'kube:GetConfigMap': 1,
      'kube:ListNodes': 1,
      'kube:ListEC2NodeClasses': 1,
      // Auto Mode node classes: one list (none seeded here).
      'kube:ListNodeClasses': 1,
      // Workload identity: one list each; nothing to describe, no association → no SimulatePrincipalPolicy.
      'eks:ListPodIdentityAssociations': 1,
      'eks:ListAddons': 1,
      'iam:ListOpenIDConnectProviders': 1,
      'kube:ListServiceAccounts': 1,
      // CA rotation: one list; no CA seeded, nothing to describe.
      'eks:ListCertificateAuthorities': 1,
    });
    expect(validateSnapshot(JSON.parse(JSON.stringify(snapshot)))).toMatchObject({ ok: true });
    expect(essentials(snapshot)).toEqual(essentials(seed));
    expect(snapshot.accessEntries).toEqual({ status: 'absent', reason: expect.stringMatching(/CONFIG_MAP/) });
    if (snapshot.compute.status !== 'ok') throw new Error(snapshot.compute.status);
    const kinds = snapshot.compute.data.map((c) => c.kind);
    expect(kinds.filter((k) => k === 'managed')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'karpenter')).toHaveLength(3);
    expect(new Set(snapshot.compute.data.map((c) => c.roleArn))).toEqual(new Set([NODE_ROLE]));
  });

  it('keeps every other source when one EKS source fails persistently (5xx)', async () => {
    sandbox.faults.inject({
      service: 'eks',
      operation: 'ListNodegroups',
      status: 500,
      code: 'ServerException',
    });
    const snapshot = await captureSnapshot(deps, target());
    expect(validateSnapshot(JSON.parse(JSON.stringify(snapshot)))).toMatchObject({ ok: true });
    expect(snapshot.nodegroups).toEqual({
      status: 'error',
      error: expect.stringMatching(/ListNodegroups for cluster prod/),
    });
    expect(snapshot.awsAuth.status).toBe('ok');
    expect(snapshot.compute.status).toBe('ok');
    expect(snapshot.iamRoles.status).toBe('ok');
    expect(snapshot.karpenterNodeClasses?.status).toBe('ok');
  });

  it('restarts the node list once when its continue token has expired (410)', async () => {
    sandbox.faults.inject({
      service: 'kube',
      operation: 'ListNodes',
      status: 410,
      code: 'Expired',
      times: 1,
    });
    const snapshot = await captureSnapshot(deps, target());
    expect(snapshot.compute.status === 'ok' && snapshot.compute.data.every((c) => c.ready === 'True')).toBe(
      true,
    );
  });

  it('retries a throttled Kubernetes list and still reads Ready', async () => {
    sandbox.faults.inject({ service: 'kube', operation: 'ListNodes', status: 429, times: 2 });
    const snapshot = await captureSnapshot(deps, target());
    expect(snapshot.compute.status === 'ok' && snapshot.compute.data.every((c) => c.ready === 'True')).toBe(
      true,
    );
  });

  it('with Kubernetes answering 401, reports aws-auth as an error (never empty) and compute from EC2 with Ready unknown', async () => {
    const outsider = sandboxDeps(sandbox, { credentials: { ...sandbox.outsiderCredentials } });
    const snapshot = await captureSnapshot(outsider, target());
    expect(snapshot.awsAuth.status).toBe('error');
    expect(snapshot.awsAuth.status === 'error' && snapshot.awsAuth.error).toMatch(/401 Unauthorized/);
    expect(JSON.stringify(snapshot)).not.toMatch(/k8s-aws-v1\.|X-Amz-Signature=[0-9a-f]/);
    expect(snapshot.karpenterNodeClasses?.status).toBe('error');
    expect(snapshot.compute.status).toBe('ok');
    if (snapshot.compute.status === 'ok') {
      expect(snapshot.compute.data).toHaveLength(5);
      expect(snapshot.compute.data.every((c) => c.ready === undefined && c.roleArn === NODE_ROLE)).toBe(true);
    }
  });

  it('refuses an API server whose certificate does not match the CA from DescribeCluster (no request sent)', async () => {
    const otherCa = Buffer.from(createTls().caPem).toString('base64');
    const eks = deps.eks(REGION);
    const wrongCa: CaptureDeps = {
      ...deps,
      eks: () => ({
        ...eks,
        region: REGION,
        describeCluster: async (name) => ({
          ...(await eks.describeCluster(name)),
          certificateAuthorityData: otherCa,
        }),
      }),
    };
    const before = callsOf(sandbox, 'kube').length;
    const snapshot = await captureSnapshot(wrongCa, target());
    expect(snapshot.awsAuth).toEqual({
      status: 'error',
      error: expect.stringMatching(/certificate does not verify/),
    });
    expect(snapshot.karpenterNodeClasses?.status).toBe('error');
    expect(callsOf(sandbox, 'kube').length).toBe(before);
  });

  it('fails with a typed error, and no snapshot, when DescribeCluster fails', async () => {
    sandbox.faults.inject({
      service: 'eks',
      operation: 'DescribeCluster',
      status: 403,
      code: 'AccessDeniedException',
    });
    const error = await captureSnapshot(deps, target()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CollectionError);
    expect(error).toMatchObject({ code: 'forbidden', operation: 'DescribeCluster' });
    expect((error as Error).message).toContain('eks:DescribeCluster');
  });
});

describe('captureSnapshot of an API-mode cluster', () => {
  it('reports a missing aws-auth as absent, and a 403 on nodes with the missing RBAC permission', async () => {
    const seed = structuredClone(loadScenario('healthy-api-mode'));
    const sandbox = await startSandbox({ clusters: [{ snapshot: seed }] });
    try {
      const full = await captureSnapshot(sandboxDeps(sandbox), target());
      expect(full.awsAuth).toEqual({ status: 'absent', reason: expect.stringMatching(/404/) });
      expect(full.karpenterNodeClasses).toEqual({
        status: 'absent',
        reason: expect.stringMatching(/Karpenter is not installed/),
      });
      expect(full.accessEntries.status).toBe('ok');

      // The monitor given only AmazonEKSViewPolicy on kube-system (trap 16 of
      // docs/eks-auth-semantics.md#traps): aws-auth yes, nodes no.
      sandbox.cluster('prod').accessEntries.push({
        principalArn: sandbox.principals.outsider,
        type: 'STANDARD',
        username: 'viewer',
        kubernetesGroups: [],
        accessEntryArn: `arn:aws:eks:${REGION}:${ACCT}:access-entry/prod/role/${ACCT}/sandbox-outsider/x`,
        createdAt: '2026-01-01T00:00:00Z',
        modifiedAt: '2026-01-01T00:00:00Z',
        tags: {},
        accessPolicies: [
          {
            policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy',
            accessScope: { type: 'namespace', namespaces: ['kube-system'] },
            associatedAt: '2026-01-01T00:00:00Z',
            modifiedAt: '2026-01-01T00:00:00Z',
          },
        ],
      });
      const viewer = await captureSnapshot(
        sandboxDeps(sandbox, { credentials: { ...sandbox.outsiderCredentials } }),
        target(),
      );
      expect(viewer.awsAuth.status).toBe('absent');
      expect(viewer.compute.status).toBe('ok');
      expect(viewer.karpenterNodeClasses?.status).toMatch(/error|absent/);
      const forbidden = sandbox.calls
        .filter((c) => c.service === 'kube' && c.status === 403)
        .map((c) => c.operation);
      expect(forbidden).toContain('ListNodes');
      const nodesError = await sandboxDeps(sandbox, { credentials: { ...sandbox.outsiderCredentials } })
        .kube.nodes({
          accountId: ACCT,
          clusterName: 'prod',
          region: REGION,
          endpoint: sandbox.cluster('prod').endpoint,
          certificateAuthorityData: Buffer.from(sandbox.caPem).toString('base64'),
        })
        .catch((e: unknown) => e);
      expect(nodesError).toMatchObject({
        name: 'KubernetesApiError',
        code: 'forbidden',
        verb: 'list',
        resource: 'nodes',
      });
      expect((nodesError as Error).message).toMatch(/needs RBAC 'list' on 'nodes' \(cluster-scoped\)/);
    } finally {
      await sandbox.close();
    }
  });
});

describe('captureSnapshot of several clusters', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({
      latencyMs: 30,
      clusters: [
        { snapshot: loadScenario('a-karpenter-shares-last-nodegroup-role'), name: 'alpha' },
        { snapshot: loadScenario('b-fargate-entry-removed-by-terraform'), name: 'bravo' },
        { snapshot: loadScenario('healthy-api-mode'), name: 'charlie' },
      ],
    });
  });
  afterAll(async () => sandbox.close());
  beforeEach(() => sandbox.faults.clear());

  it('lists the clusters of every Region', async () => {
    const listing = await listClusters(sandboxDeps(sandbox), [REGION, 'us-east-1']);
    expect(listing.errors).toEqual([]);
    expect(listing.clusters.map((c) => c.clusterName).sort()).toEqual(['alpha', 'bravo', 'charlie']);
  });

  it('completes the other clusters when one fails', async () => {
    sandbox.faults.inject({
      service: 'eks',
      operation: 'DescribeCluster',
      cluster: 'bravo',
      status: 403,
      code: 'AccessDeniedException',
    });
    const outcomes = await captureSnapshots(sandboxDeps(sandbox), ['alpha', 'bravo', 'charlie'].map(target));
    expect(outcomes.map((o) => [o.target.clusterName, o.ok])).toEqual([
      ['alpha', true],
      ['bravo', false],
      ['charlie', true],
    ]);
    const bravo = outcomes[1];
    expect(bravo?.ok === false && bravo.error).toMatchObject({ code: 'forbidden', cluster: 'bravo' });
  });

  it('gives a Fargate node the pod execution role of its profile', async () => {
    const snapshot = await captureSnapshot(sandboxDeps(sandbox), target('bravo'));
    if (snapshot.compute.status !== 'ok' || snapshot.fargateProfiles.status !== 'ok')
      throw new Error('not ok');
    const fargate = snapshot.compute.data.filter((c) => c.kind === 'fargate');
    expect(fargate).toHaveLength(2);
    const role = snapshot.fargateProfiles.data[0]?.podExecutionRoleArn;
    expect(fargate.every((c) => c.roleArn === role && c.fargateProfile === 'fp-default')).toBe(true);
  });

  it('throws not-found, and no snapshot, for a cluster deleted mid-run', async () => {
    const deps = sandboxDeps(sandbox);
    const run = captureSnapshot(deps, target('alpha'));
    // Delete the cluster once DescribeCluster has answered and the other reads are in flight.
    const start = sandbox.calls.length;
    while (
      !sandbox.calls.slice(start).some((c) => c.operation === 'DescribeCluster' && c.cluster === 'alpha')
    ) {
      await new Promise((r) => setTimeout(r, 5));
    }
    sandbox.cluster('alpha').remove();
    const error = await run.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AwsApiError', code: 'not-found', cluster: 'alpha' });
  });
});

describe('captureSnapshot of a large cluster', () => {
  it('pages nodes beyond 500 and joins every one to its instance', async () => {
    const seed = structuredClone(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    if (seed.compute.status !== 'ok') throw new Error('seed compute');
    for (let i = 0; i < 520; i++) {
      seed.compute.data.push({
        kind: 'karpenter',
        id: `i-${(0x100000000000 + i).toString(16).padStart(17, '0')}`,
        nodeName: `ip-10-1-${Math.floor(i / 250)}-${i % 250}.eu-west-1.compute.internal`,
        roleArn: NODE_ROLE,
        nodePool: 'default',
        nodeClass: 'default',
        os: 'linux',
        ready: 'True',
      });
    }
    const sandbox = await startSandbox({ clusters: [{ snapshot: seed }] });
    try {
      const snapshot = await captureSnapshot(sandboxDeps(sandbox), target());
      if (snapshot.compute.status !== 'ok') throw new Error(snapshot.compute.status);
      expect(snapshot.compute.data).toHaveLength(525);
      expect(snapshot.compute.data.every((c) => c.nodeName !== undefined && c.ready === 'True')).toBe(true);
      expect(callsOf(sandbox, 'kube', 'ListNodes')).toHaveLength(2);
      expect(callsOf(sandbox, 'iam', 'GetInstanceProfile')).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });
});

describe('captureSnapshot: IAM resolution', () => {
  it("reads a role once whatever spellings name it, and keeps IAM's ARN and path", async () => {
    // aws-auth maps role/legacy-node (as it must); the instance profile names role/eks/legacy-node
    const sandbox = await startSandbox({
      clusters: [{ snapshot: loadScenario('f-path-node-role-config-map') }],
    });
    try {
      const mark = sandbox.calls.length;
      const snapshot = await captureSnapshot(sandboxDeps(sandbox), target());
      const getRole = sandbox.calls
        .slice(mark)
        .filter((c) => c.service === 'iam' && c.operation === 'GetRole');
      expect(getRole).toHaveLength(3);
      if (snapshot.iamRoles.status !== 'ok') throw new Error(snapshot.iamRoles.status);
      expect(snapshot.iamRoles.data.map((r) => [r.arn, r.state, r.path])).toEqual([
        [`arn:aws:iam::${ACCT}:role/eks/legacy-node`, 'exists', '/eks/'],
        [`arn:aws:iam::${ACCT}:role/platform-admin`, 'exists', '/'],
        [NODE_ROLE, 'exists', '/'],
      ]);
      expect(validateSnapshot(JSON.parse(JSON.stringify(snapshot)))).toMatchObject({ ok: true });
    } finally {
      await sandbox.close();
    }
  });

  it('resolves a node class by instance profile and reports a deleted role as missing', async () => {
    const seed = structuredClone(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    if (seed.karpenterNodeClasses?.status !== 'ok') throw new Error('seed node classes');
    seed.karpenterNodeClasses.data.push({
      name: 'private',
      instanceProfile: 'prod-node-role-instance-profile',
    });
    const sandbox = await startSandbox({ clusters: [{ snapshot: seed }] });
    try {
      const admin = sandbox.iamRoles.get('platform-admin');
      if (admin === undefined) throw new Error('no platform-admin role in the sandbox');
      admin.state = 'missing';
      const snapshot = await captureSnapshot(sandboxDeps(sandbox), target());
      expect(snapshot.karpenterNodeClasses).toEqual({
        status: 'ok',
        data: expect.arrayContaining([
          { name: 'default', role: 'prod-node-role', roleArn: NODE_ROLE },
          { name: 'private', instanceProfile: 'prod-node-role-instance-profile', roleArn: NODE_ROLE },
        ]),
      });
      expect(snapshot.iamRoles.status === 'ok' && snapshot.iamRoles.data).toContainEqual({
        arn: `arn:aws:iam::${ACCT}:role/platform-admin`,
        state: 'missing',
      });
    } finally {
      await sandbox.close();
    }
  });
});
