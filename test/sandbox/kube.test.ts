import { DeleteNodegroupCommand, EKSClient } from '@aws-sdk/client-eks';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { eksToken, httpsGet, waitFor } from '../support/sandbox-https.ts';
import { baseSnapshot, MAP_ROLES, REGION } from '../support/sandbox-seed.ts';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const AWS_AUTH = '/api/v1/namespaces/kube-system/configmaps/aws-auth';

async function start(options: Partial<Parameters<typeof startSandbox>[0]> = {}): Promise<Sandbox> {
  sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }], ...options });
  return sandbox;
}

describe('sandbox Kubernetes API: EKS bearer token', () => {
  it('accepts a well-formed token of the monitor for this cluster', async () => {
    const s = await start();
    const token = await eksToken('prod', s.credentials);
    const res = await httpsGet(`${s.cluster('prod').endpoint}${AWS_AUTH}`, s.caPem, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      kind: 'ConfigMap',
      metadata: {
        name: 'aws-auth',
        namespace: 'kube-system',
        resourceVersion: '4242',
        managedFields: [
          {
            manager: 'Terraform',
            operation: 'Update',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:data': { 'f:mapRoles': {} } },
          },
        ],
      },
      data: { mapRoles: MAP_ROLES },
    });
  });

  it('accepts the global STS host too', async () => {
    const s = await start();
    const token = await eksToken('prod', s.credentials, { region: 'us-east-1', host: 'sts.amazonaws.com' });
    expect((await httpsGet(`${s.cluster('prod').endpoint}/version`, s.caPem, token)).status).toBe(200);
  });

  it('rejects a tampered signature with 401', async () => {
    const s = await start();
    const url = Buffer.from(
      (await eksToken('prod', s.credentials)).slice('k8s-aws-v1.'.length),
      'base64url',
    ).toString();
    const tampered = url.replace(
      /X-Amz-Signature=([0-9a-f])/,
      (_m, c: string) => `X-Amz-Signature=${c === 'a' ? 'b' : 'a'}`,
    );
    expect(tampered).not.toBe(url);
    const token = `k8s-aws-v1.${Buffer.from(tampered).toString('base64url')}`;
    const res = await httpsGet(`${s.cluster('prod').endpoint}${AWS_AUTH}`, s.caPem, token);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('rejects a token made for another cluster with 401', async () => {
    const s = await start();
    const token = await eksToken('staging', s.credentials);
    expect((await httpsGet(`${s.cluster('prod').endpoint}${AWS_AUTH}`, s.caPem, token)).status).toBe(401);
  });

  it('rejects a token signed more than 15 minutes ago with 401', async () => {
    const s = await start();
    const token = await eksToken('prod', s.credentials, { signingDate: new Date(Date.now() - 16 * 60_000) });
    expect((await httpsGet(`${s.cluster('prod').endpoint}${AWS_AUTH}`, s.caPem, token)).status).toBe(401);
  });

  it('rejects a token whose x-k8s-aws-id header is not signed with 401', async () => {
    const s = await start();
    const token = await eksToken('prod', s.credentials, { signHeader: false });
    expect((await httpsGet(`${s.cluster('prod').endpoint}${AWS_AUTH}`, s.caPem, token)).status).toBe(401);
  });

  it('rejects non-STS hosts, extra query parameters, a wrong prefix and a missing token with 401', async () => {
    const s = await start();
    const endpoint = `${s.cluster('prod').endpoint}${AWS_AUTH}`;
    const evil = await eksToken('prod', s.credentials, { host: 'sts.eu-west-1.evil.example' });
    const extra = await eksToken('prod', s.credentials, { extraQuery: { 'X-Amz-Evil': '1' } });
    const good = await eksToken('prod', s.credentials);
    for (const token of [evil, extra, good.replace('k8s-aws-v1.', 'k8s-aws-v2.'), `${good}==`, undefined]) {
      expect((await httpsGet(endpoint, s.caPem, token)).status).toBe(401);
    }
  });

  it('answers 401 for an unmapped principal and 403 for a mapped one without rights', async () => {
    const s = await start();
    const endpoint = `${s.cluster('prod').endpoint}${AWS_AUTH}`;
    const token = await eksToken('prod', s.outsiderCredentials);
    expect((await httpsGet(endpoint, s.caPem, token)).status).toBe(401);
    s.cluster('prod').putAwsAuth({
      mapRoles: `${MAP_ROLES}- rolearn: ${s.principals.outsider}\n  username: outsider\n  groups:\n    - viewers\n`,
    });
    const res = await httpsGet(endpoint, s.caPem, token);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    s.cluster('prod').putAwsAuth({
      mapRoles: `${MAP_ROLES}- rolearn: ${s.principals.outsider}\n  username: outsider\n  groups:\n    - eks-auth-sentinel:readers\n`,
    });
    expect((await httpsGet(endpoint, s.caPem, token)).status).toBe(200);
    expect((await httpsGet(`${s.cluster('prod').endpoint}/api/v1/nodes`, s.caPem, token)).status).toBe(200);
  });
});

describe('sandbox Kubernetes API: resources', () => {
  it('answers 404 Status when aws-auth does not exist', async () => {
    const s = await start();
    s.cluster('prod').deleteAwsAuth();
    const res = await httpsGet(
      `${s.cluster('prod').endpoint}${AWS_AUTH}`,
      s.caPem,
      await eksToken('prod', s.credentials),
    );
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      details: { name: 'aws-auth', kind: 'configmaps' },
    });
  });

  it('lists nodes with kind labels, providerID and Ready, paginated with limit/continue', async () => {
    const s = await start();
    const token = await eksToken('prod', s.credentials);
    const names: string[] = [];
    const items: Array<{
      metadata: { name: string; labels: Record<string, string> };
      spec: { providerID: string };
    }> = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const q = `limit=4${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`;
      const res = await httpsGet(`${s.cluster('prod').endpoint}/api/v1/nodes?${q}`, s.caPem, token);
      expect(res.status).toBe(200);
      const body = res.body as { items: typeof items; metadata: { continue?: string } };
      items.push(...body.items);
      names.push(...body.items.map((i) => i.metadata.name));
      cont = body.metadata.continue;
      pages += 1;
    } while (cont && pages < 10);
    expect(pages).toBe(2);
    expect(names).toHaveLength(6);
    const byName = new Map(items.map((i) => [i.metadata.name, i]));
    const managed = byName.get('ip-10-0-1-1.eu-west-1.compute.internal');
    expect(managed?.metadata.labels['eks.amazonaws.com/nodegroup']).toBe('ng-a');
    expect(managed?.spec.providerID).toBe('aws:///eu-west-1a/i-0aaaaaaaaaaaaaaa1');
    const karpenter = byName.get('ip-10-0-2-1.eu-west-1.compute.internal');
    expect(karpenter?.metadata.labels).toMatchObject({
      'karpenter.sh/nodepool': 'default',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
    });
    const fargate = byName.get('fargate-ip-10-0-4-1.eu-west-1.compute.internal');
    expect(fargate?.metadata.labels).toMatchObject({
      'eks.amazonaws.com/compute-type': 'fargate',
      'eks.amazonaws.com/fargate-profile': 'fp-default',
    });
  });

  it('lists EC2NodeClasses with spec.role (a role name) and status.instanceProfile', async () => {
    const s = await start();
    const res = await httpsGet(
      `${s.cluster('prod').endpoint}/apis/karpenter.k8s.aws/v1/ec2nodeclasses`,
      s.caPem,
      await eksToken('prod', s.credentials),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      kind: 'EC2NodeClassList',
      items: [
        {
          metadata: { name: 'default' },
          spec: { role: 'eks-shared-node-role' },
          status: { instanceProfile: 'eks-shared-node-role-instance-profile' },
        },
      ],
    });
  });

  it('works with @kubernetes/client-node against the endpoint and CA from DescribeCluster', async () => {
    const s = await start();
    const { DescribeClusterCommand } = await import('@aws-sdk/client-eks');
    const eks = new EKSClient({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_EKS,
      credentials: s.credentials,
    });
    const cluster = (await eks.send(new DescribeClusterCommand({ name: 'prod' }))).cluster;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: 'prod',
          server: cluster?.endpoint ?? '',
          caData: cluster?.certificateAuthority?.data ?? '',
          skipTLSVerify: false,
        },
      ],
      users: [{ name: 'monitor', token: await eksToken('prod', s.credentials) }],
      contexts: [{ name: 'prod', cluster: 'prod', user: 'monitor' }],
      currentContext: 'prod',
    });
    const core = kc.makeApiClient(CoreV1Api);
    const cm = await core.readNamespacedConfigMap({ name: 'aws-auth', namespace: 'kube-system' });
    expect(cm.data?.mapRoles).toBe(MAP_ROLES);
    expect(cm.metadata?.managedFields?.[0]?.manager).toBe('Terraform');
    const nodes = await core.listNode({ limit: 100 });
    expect(nodes.items).toHaveLength(6);
    s.cluster('prod').deleteAwsAuth();
    await expect(
      core.readNamespacedConfigMap({ name: 'aws-auth', namespace: 'kube-system' }),
    ).rejects.toMatchObject({ code: 404 });
  });
});

describe('sandbox node readiness', () => {
  it('turns nodes whose role lost access Ready=Unknown after notReadyDelayMs', async () => {
    const s = await start({ notReadyDelayMs: 100 });
    const eks = new EKSClient({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_EKS,
      credentials: s.credentials,
    });
    // ng-a and ng-b share the role with a Karpenter node; delete both managed groups.
    await eks.send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-a' }));
    await eks.send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-b' }));
    const karpenter = s.cluster('prod').nodes.find((n) => n.kind === 'karpenter');
    expect(karpenter?.ready).toBe('True');
    expect(await waitFor(() => karpenter?.ready === 'Unknown')).toBe(true);
    const res = await httpsGet(
      `${s.cluster('prod').endpoint}/api/v1/nodes/${karpenter?.nodeName}`,
      s.caPem,
      await eksToken('prod', s.credentials),
    );
    expect(res.body).toMatchObject({
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'Unknown',
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
          },
        ],
      },
    });
    expect(s.timeline.some((t) => t.what.includes('Ready=Unknown'))).toBe(true);
    // the solo role keeps its access entry (API_AND_CONFIG_MAP): its self-managed node stays Ready
    expect(s.cluster('prod').nodes.find((n) => n.kind === 'self-managed')?.ready).toBe('True');
  });

  it('turns Fargate nodes Unknown when Terraform rewrites aws-auth without the Fargate entry', async () => {
    const s = await start({ notReadyDelayMs: 50 });
    const withoutFargate = MAP_ROLES.split('- rolearn: ')
      .filter((e) => e !== '' && !e.includes('fargate'))
      .map((e) => `- rolearn: ${e}`)
      .join('');
    s.cluster('prod').putAwsAuth({ mapRoles: withoutFargate }, { manager: 'Terraform' });
    const fargate = s.cluster('prod').nodes.find((n) => n.kind === 'fargate');
    expect(await waitFor(() => fargate?.ready === 'Unknown')).toBe(true);
    expect(s.cluster('prod').nodes.filter((n) => n.ready === 'Unknown')).toHaveLength(1);
  });
});

describe('sandbox Kubernetes API: faults, access entries, removal', () => {
  it('injects Kubernetes faults per operation as Status objects', async () => {
    const s = await start();
    const token = await eksToken('prod', s.credentials);
    s.faults.inject({ service: 'kube', operation: 'ListNodes', cluster: 'prod', status: 403, times: 1 });
    const denied = await httpsGet(`${s.cluster('prod').endpoint}/api/v1/nodes`, s.caPem, token);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect((await httpsGet(`${s.cluster('prod').endpoint}/api/v1/nodes`, s.caPem, token)).status).toBe(200);
    expect(
      s.calls.filter((c) => c.service === 'kube' && c.operation === 'ListNodes').map((c) => c.status),
    ).toEqual([403, 200]);
  });

  it('authorizes access-entry principals by their access policies', async () => {
    const s = await start();
    const cluster = s.cluster('prod');
    cluster.accessEntries.push({
      principalArn: s.principals.outsider,
      type: 'STANDARD',
      username: 'viewer',
      kubernetesGroups: [],
      accessEntryArn:
        'arn:aws:eks:eu-west-1:111122223333:access-entry/prod/role/111122223333/sandbox-outsider/x',
      createdAt: '2026-01-01T00:00:00.000Z',
      modifiedAt: '2026-01-01T00:00:00.000Z',
      tags: {},
      accessPolicies: [
        {
          policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy',
          accessScope: { type: 'namespace', namespaces: ['kube-*'] },
          associatedAt: '2026-01-01T00:00:00.000Z',
          modifiedAt: '2026-01-01T00:00:00.000Z',
        },
      ],
    });
    cluster.changed();
    const token = await eksToken('prod', s.outsiderCredentials);
    expect((await httpsGet(`${cluster.endpoint}${AWS_AUTH}`, s.caPem, token)).status).toBe(200);
    // AmazonEKSViewPolicy has no nodes permission (docs/eks-auth-semantics.md#access-policies-and-scopes)
    expect((await httpsGet(`${cluster.endpoint}/api/v1/nodes`, s.caPem, token)).status).toBe(403);
  });

  it('turns nodes Ready again when access returns', async () => {
    const s = await start({ notReadyDelayMs: 30 });
    const cluster = s.cluster('prod');
    const original = cluster.awsAuth?.data ?? {};
    cluster.deleteAwsAuth();
    const fargate = cluster.nodes.find((n) => n.kind === 'fargate');
    expect(await waitFor(() => fargate?.ready === 'Unknown')).toBe(true);
    cluster.putAwsAuth(original);
    expect(fargate?.ready).toBe('True');
  });

  it('refuses connections once the cluster is removed', async () => {
    const s = await start();
    const endpoint = s.cluster('prod').endpoint;
    const token = await eksToken('prod', s.credentials);
    expect((await httpsGet(`${endpoint}/version`, s.caPem, token)).status).toBe(200);
    s.cluster('prod').remove();
    // a kept-alive socket may first see a hang-up; a new connection is refused
    await expect(httpsGet(`${endpoint}/version`, s.caPem, token)).rejects.toBeInstanceOf(Error);
    await expect(httpsGet(`${endpoint}/version`, s.caPem, token)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});
