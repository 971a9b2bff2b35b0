import {
  CreateAccessEntryCommand,
  DeleteNodegroupCommand,
  DescribeAccessEntryCommand,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  EKSClient,
  ListAccessEntriesCommand,
  ListClustersCommand,
  ListNodegroupsCommand,
  ResourceNotFoundException,
  UpdateClusterConfigCommand,
} from '@aws-sdk/client-eks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import {
  ACCOUNT,
  baseSnapshot,
  REGION,
  SHARED_ROLE,
  SOLO_ROLE,
  withIamRoles,
} from '../support/sandbox-seed.ts';

interface TrailEvent {
  detail: {
    eventID: string;
    errorCode?: string;
    requestParameters: Record<string, unknown>;
    responseElements: { accessEntry: { username: string } } | null;
  };
}

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

function eks(s: Sandbox, credentials = s.credentials): EKSClient {
  return new EKSClient({ region: REGION, endpoint: s.env.AWS_ENDPOINT_URL_EKS, credentials, maxAttempts: 1 });
}

describe('sandbox EKS', () => {
  it('describes a cluster with endpoint, CA and authentication mode', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    const out = await eks(sandbox).send(new DescribeClusterCommand({ name: 'prod' }));
    const c = out.cluster;
    expect(c?.arn).toBe(`arn:aws:eks:${REGION}:${ACCOUNT}:cluster/prod`);
    expect(c?.endpoint).toBe(sandbox.cluster('prod').endpoint);
    expect(c?.status).toBe('ACTIVE');
    expect(c?.version).toBe('1.31');
    expect(c?.platformVersion).toBe('eks.12');
    expect(c?.accessConfig?.authenticationMode).toBe('API_AND_CONFIG_MAP');
    expect(c?.resourcesVpcConfig?.endpointPublicAccess).toBe(true);
    expect(c?.createdAt).toBeInstanceOf(Date);
    expect(Buffer.from(c?.certificateAuthority?.data ?? '', 'base64').toString()).toContain(
      'BEGIN CERTIFICATE',
    );
  });

  it("serves the seed's OIDC issuer under a renamed seed, else one derived from the cluster name", async () => {
    const issuer = 'https://oidc.eks.eu-west-1.amazonaws.com/id/SEEDED';
    const seeded = baseSnapshot();
    seeded.cluster = { ...seeded.cluster, oidcIssuer: issuer };
    sandbox = await startSandbox({
      clusters: [{ snapshot: seeded, name: 'renamed' }, { snapshot: baseSnapshot() }],
    });
    const client = eks(sandbox);
    const renamed = await client.send(new DescribeClusterCommand({ name: 'renamed' }));
    expect(renamed.cluster?.identity?.oidc?.issuer).toBe(issuer);
    const derived = await client.send(new DescribeClusterCommand({ name: 'prod' }));
    expect(derived.cluster?.identity?.oidc?.issuer).toBe(`https://oidc.eks.${REGION}.amazonaws.com/id/PROD`);
  });

  it('answers 404 ResourceNotFoundException for an unknown cluster and node group', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    const client = eks(sandbox);
    await expect(client.send(new DescribeClusterCommand({ name: 'nope' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
    const err = await client
      .send(new DescribeNodegroupCommand({ clusterName: 'prod', nodegroupName: 'nope' }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceNotFoundException);
    expect((err as ResourceNotFoundException).$metadata.httpStatusCode).toBe(404);
  });

  it('lists clusters of the signing Region only, renamed seeds included', async () => {
    const other = baseSnapshot();
    other.region = 'us-east-1';
    sandbox = await startSandbox({
      clusters: [
        { snapshot: baseSnapshot() },
        { snapshot: baseSnapshot(), name: 'staging' },
        { snapshot: other },
      ],
    });
    const out = await eks(sandbox).send(new ListClustersCommand({}));
    expect(out.clusters).toEqual(['prod', 'staging']);
  });

  it('paginates more than 100 access entries with maxResults and nextToken', async () => {
    const snap = baseSnapshot();
    if (snap.accessEntries.status !== 'ok') throw new Error('seed');
    for (let i = 0; i < 230; i++) {
      snap.accessEntries.data.push({
        principalArn: `arn:aws:iam::${ACCOUNT}:role/team-${String(i).padStart(3, '0')}`,
        type: 'STANDARD',
        kubernetesGroups: ['viewers'],
        accessPolicies: [],
      });
    }
    sandbox = await startSandbox({ clusters: [{ snapshot: snap }] });
    const client = eks(sandbox);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const out = await client.send(new ListAccessEntriesCommand({ clusterName: 'prod', nextToken: token }));
      seen.push(...(out.accessEntries ?? []));
      expect(out.accessEntries?.length ?? 0).toBeLessThanOrEqual(100);
      token = out.nextToken;
      pages += 1;
    } while (token && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(231);
    expect(new Set(seen).size).toBe(231);
    const small = await client.send(new ListAccessEntriesCommand({ clusterName: 'prod', maxResults: 7 }));
    expect(small.accessEntries).toHaveLength(7);
    await expect(
      client.send(new ListAccessEntriesCommand({ clusterName: 'prod', maxResults: 101 })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
  });

  it('rejects access-entry calls in CONFIG_MAP mode with InvalidRequestException', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    await expect(
      eks(sandbox).send(new ListAccessEntriesCommand({ clusterName: 'prod' })),
    ).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message:
        "The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] to perform this operation.",
      $metadata: { httpStatusCode: 400 },
    });
  });

  it('DeleteNodegroup of the last managed group on a role removes all its aws-auth entries, keeps the access entry', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    const cluster = sandbox.cluster('prod');
    // a duplicate entry for the same role, written with different case: EKS removes all of them
    cluster.putAwsAuth({
      mapRoles: `${cluster.awsAuth?.data.mapRoles ?? ''}- rolearn: ${SOLO_ROLE.toUpperCase().replace('ARN:AWS:IAM', 'arn:aws:iam')}\n  username: dup\n  groups: [x]\n`,
    });
    const rvBefore = cluster.awsAuth?.resourceVersion;
    const out = await eks(sandbox).send(
      new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-solo' }),
    );
    expect(out.nodegroup?.status).toBe('DELETING');
    expect(out.nodegroup?.nodeRole).toBe(SOLO_ROLE);
    const mapRoles = cluster.awsAuth?.data.mapRoles ?? '';
    expect(mapRoles.toLowerCase()).not.toContain('eks-solo-node-role');
    expect(mapRoles).toContain(SHARED_ROLE);
    expect(cluster.awsAuth?.resourceVersion).not.toBe(rvBefore);
    expect(cluster.awsAuth?.managedFields.map((f) => f.manager)).toEqual(['eks']);
    expect(cluster.awsAuth?.managedFields[0]?.fieldsV1).toEqual({ 'f:data': { 'f:mapRoles': {} } });
    expect(cluster.accessEntries.map((e) => e.principalArn)).toContain(SOLO_ROLE);
    expect(cluster.nodegroups.map((g) => g.name)).toEqual(['ng-a', 'ng-b']);
    const list = await eks(sandbox).send(new ListNodegroupsCommand({ clusterName: 'prod' }));
    expect(list.nodegroups).toEqual(['ng-a', 'ng-b']);
    const described = await eks(sandbox).send(
      new DescribeAccessEntryCommand({ clusterName: 'prod', principalArn: SOLO_ROLE }),
    );
    expect(described.accessEntry?.type).toBe('EC2_LINUX');
  });

  it('DeleteNodegroup keeps the aws-auth entry while another managed group uses the role', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    const cluster = sandbox.cluster('prod');
    const before = cluster.awsAuth?.data.mapRoles;
    await eks(sandbox).send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-a' }));
    expect(cluster.awsAuth?.data.mapRoles).toBe(before);
    await eks(sandbox).send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-b' }));
    expect(cluster.awsAuth?.data.mapRoles ?? '').not.toContain(SHARED_ROLE);
  });

  it('applies the side effect after sideEffectDelayMs, path-insensitively', async () => {
    const snap = baseSnapshot();
    if (snap.nodegroups.status !== 'ok') throw new Error('seed');
    snap.nodegroups.data[2] = {
      name: 'ng-solo',
      status: 'ACTIVE',
      nodeRole: `arn:aws:iam::${ACCOUNT}:role/team/a/eks-solo-node-role`,
      healthIssues: [],
    };
    sandbox = await startSandbox({ clusters: [{ snapshot: snap }], sideEffectDelayMs: 150 });
    const cluster = sandbox.cluster('prod');
    await eks(sandbox).send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-solo' }));
    expect(cluster.awsAuth?.data.mapRoles).toContain(SOLO_ROLE);
    expect(cluster.nodegroups.find((g) => g.name === 'ng-solo')?.status).toBe('DELETING');
    const deadline = Date.now() + 5000;
    while (cluster.awsAuth?.data.mapRoles?.includes(SOLO_ROLE) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(cluster.awsAuth?.data.mapRoles).not.toContain(SOLO_ROLE);
    expect(sandbox.timeline.some((t) => t.what.includes('EKS removed'))).toBe(true);
  });

  it('records the CloudTrail event of DeleteNodegroup as EventBridge delivers it', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    await eks(sandbox).send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-solo' }));
    await eks(sandbox).send(new DescribeClusterCommand({ name: 'prod' }));
    expect(sandbox.cloudTrail).toHaveLength(1);
    const event = sandbox.cloudTrail[0] as TrailEvent;
    expect(event).toMatchObject({
      version: '0',
      'detail-type': 'AWS API Call via CloudTrail',
      source: 'aws.eks',
      account: ACCOUNT,
      region: REGION,
      resources: [],
      detail: {
        eventSource: 'eks.amazonaws.com',
        eventName: 'DeleteNodegroup',
        awsRegion: REGION,
        eventType: 'AwsApiCall',
        readOnly: false,
        requestParameters: { name: 'prod', nodegroupName: 'ng-solo' },
        responseElements: {
          nodegroup: { nodegroupName: 'ng-solo', nodeRole: SOLO_ROLE, status: 'DELETING' },
        },
        userIdentity: {
          type: 'AssumedRole',
          sessionContext: { sessionIssuer: { arn: `arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel` } },
        },
      },
    });
    expect(event.detail.eventID).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.detail.errorCode).toBeUndefined();
  });

  it('records URL-encoded path parameters and a unique eventID per write', async () => {
    const arn = `arn:aws:iam::${ACCOUNT}:role/new-team`;
    sandbox = await startSandbox({ clusters: [{ snapshot: withIamRoles(baseSnapshot(), arn) }] });
    const client = eks(sandbox);
    await client.send(
      new CreateAccessEntryCommand({ clusterName: 'prod', principalArn: arn, kubernetesGroups: ['devs'] }),
    );
    const { DeleteAccessEntryCommand } = await import('@aws-sdk/client-eks');
    await client.send(new DeleteAccessEntryCommand({ clusterName: 'prod', principalArn: arn }));
    const [created, deleted] = sandbox.cloudTrail as TrailEvent[];
    expect(created?.detail.requestParameters).toMatchObject({
      name: 'prod',
      principalArn: arn,
      kubernetesGroups: ['devs'],
    });
    expect(created?.detail.responseElements?.accessEntry.username).toBe(
      `arn:aws:sts::${ACCOUNT}:assumed-role/new-team/{{SessionName}}`,
    );
    expect(deleted?.detail.requestParameters).toEqual({
      name: 'prod',
      principalArn: encodeURIComponent(arn),
    });
    expect(deleted?.detail.responseElements).toBeNull();
    expect(created?.detail.eventID).not.toBe(deleted?.detail.eventID);
  });

  it('allows only one-way authentication mode transitions', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    const client = eks(sandbox);
    await expect(
      client.send(
        new UpdateClusterConfigCommand({ name: 'prod', accessConfig: { authenticationMode: 'CONFIG_MAP' } }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    const out = await client.send(
      new UpdateClusterConfigCommand({ name: 'prod', accessConfig: { authenticationMode: 'API' } }),
    );
    expect(out.update).toMatchObject({
      type: 'AccessConfigUpdate',
      status: 'InProgress',
      params: [{ type: 'AuthenticationMode', value: 'API' }],
    });
    expect(sandbox.cluster('prod').authenticationMode).toBe('API');
  });

  it('throttles beyond eksCallsPerSecond with 429 ThrottlingException, then succeeds', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }], eksCallsPerSecond: 2 });
    const client = eks(sandbox);
    const results: Array<number | string> = [];
    for (let i = 0; i < 4; i++) {
      results.push(
        await client
          .send(new DescribeClusterCommand({ name: 'prod' }))
          .then(() => 200)
          .catch(
            (e: { name: string; $metadata?: { httpStatusCode?: number } }) =>
              `${e.$metadata?.httpStatusCode}:${e.name}`,
          ),
      );
    }
    expect(results.slice(0, 2)).toEqual([200, 200]);
    expect(results.slice(2)).toContain('429:ThrottlingException');
    // the SDK's standard retry strategy gets through once the bucket refills
    const retrying = new EKSClient({
      region: REGION,
      endpoint: sandbox.env.AWS_ENDPOINT_URL_EKS,
      credentials: sandbox.credentials,
      maxAttempts: 5,
    });
    const ok = await retrying.send(new DescribeClusterCommand({ name: 'prod' }));
    expect(ok.cluster?.name).toBe('prod');
    expect(sandbox.calls.filter((c) => c.service === 'eks' && c.status === 429).length).toBeGreaterThan(0);
  });

  it('injects faults per operation and cluster, a given number of times', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    sandbox.faults.inject({
      service: 'eks',
      operation: 'DescribeCluster',
      status: 503,
      code: 'ServiceUnavailableException',
      times: 1,
    });
    const client = eks(sandbox);
    await expect(client.send(new DescribeClusterCommand({ name: 'prod' }))).rejects.toMatchObject({
      name: 'ServiceUnavailableException',
      $metadata: { httpStatusCode: 503 },
    });
    await expect(client.send(new DescribeClusterCommand({ name: 'prod' }))).resolves.toBeDefined();
    sandbox.faults.inject({
      service: 'eks',
      cluster: 'prod',
      status: 403,
      code: 'AccessDeniedException',
      message: 'denied',
    });
    await expect(client.send(new ListNodegroupsCommand({ clusterName: 'prod' }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    sandbox.faults.clear();
    await expect(client.send(new ListNodegroupsCommand({ clusterName: 'prod' }))).resolves.toBeDefined();
  });

  it('rejects a wrong secret with 403 InvalidSignatureException and an unknown key with UnrecognizedClientException', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    const wrong = eks(sandbox, {
      accessKeyId: sandbox.credentials.accessKeyId,
      secretAccessKey: 'not-the-secret',
    });
    await expect(wrong.send(new DescribeClusterCommand({ name: 'prod' }))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      $metadata: { httpStatusCode: 403 },
    });
    const unknown = eks(sandbox, { accessKeyId: 'AKIAUNKNOWNUNKNOWN00', secretAccessKey: 'x' });
    await expect(unknown.send(new DescribeClusterCommand({ name: 'prod' }))).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
    });
  });

  it('adds latencyMs to every call', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }], latencyMs: 80 });
    const client = eks(sandbox);
    await client.send(new DescribeClusterCommand({ name: 'prod' }));
    const started = performance.now();
    await client.send(new DescribeClusterCommand({ name: 'prod' }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
  });

  it('answers 404 after a cluster is removed mid-run', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    await eks(sandbox).send(new DescribeClusterCommand({ name: 'prod' }));
    sandbox.cluster('prod').remove();
    await expect(eks(sandbox).send(new DescribeClusterCommand({ name: 'prod' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
  });
});
