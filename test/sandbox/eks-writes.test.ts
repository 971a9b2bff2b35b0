import {
  AssociateAccessPolicyCommand,
  CreateAccessEntryCommand,
  CreateFargateProfileCommand,
  CreateNodegroupCommand,
  DeleteFargateProfileCommand,
  DeleteNodegroupCommand,
  DescribeAccessEntryCommand,
  DisassociateAccessPolicyCommand,
  EKSClient,
  ListAssociatedAccessPoliciesCommand,
  UpdateAccessEntryCommand,
} from '@aws-sdk/client-eks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { loadScenarios } from '../../infra/sandbox/scenarios.ts';
import { waitFor } from '../support/sandbox-https.ts';
import { ACCOUNT, baseSnapshot, FARGATE_ROLE, REGION, withIamRoles } from '../support/sandbox-seed.ts';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

function eks(s: Sandbox): EKSClient {
  return new EKSClient({
    region: REGION,
    endpoint: s.env.AWS_ENDPOINT_URL_EKS,
    credentials: s.credentials,
    maxAttempts: 1,
  });
}

const NEW_ROLE = `arn:aws:iam::${ACCOUNT}:role/new-node-role`;
const ADMIN_POLICY = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy';

describe('sandbox EKS writes and their side effects', () => {
  it('CreateNodegroup creates aws-auth when missing, maps the role as eks, and adds an EC2_LINUX entry in API modes', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
    const cluster = sandbox.cluster('prod');
    cluster.deleteAwsAuth();
    const out = await eks(sandbox).send(
      new CreateNodegroupCommand({
        clusterName: 'prod',
        nodegroupName: 'ng-new',
        nodeRole: NEW_ROLE,
        subnets: ['subnet-1'],
        scalingConfig: { minSize: 1, maxSize: 3, desiredSize: 2 },
      }),
    );
    expect(out.nodegroup?.status).toBe('CREATING');
    expect(cluster.awsAuth?.data.mapRoles).toContain(`rolearn: ${NEW_ROLE}`);
    expect(cluster.awsAuth?.data.mapRoles).toContain('system:node:{{EC2PrivateDNSName}}');
    expect(cluster.awsAuth?.managedFields).toEqual([
      expect.objectContaining({
        manager: 'eks',
        operation: 'Update',
        fieldsV1: { 'f:data': { 'f:mapRoles': {} } },
      }),
    ]);
    const entry = await eks(sandbox).send(
      new DescribeAccessEntryCommand({ clusterName: 'prod', principalArn: NEW_ROLE }),
    );
    expect(entry.accessEntry).toMatchObject({
      type: 'EC2_LINUX',
      username: 'system:node:{{EC2PrivateDNSName}}',
    });
    expect(cluster.nodes.filter((n) => n.nodegroup === 'ng-new')).toHaveLength(2);
    expect(cluster.nodegroups.find((g) => g.name === 'ng-new')?.status).toBe('ACTIVE');
  });

  it('CreateFargateProfile adds the SessionName entry; DeleteFargateProfile leaves aws-auth as it is', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    const cluster = sandbox.cluster('prod');
    const role = `arn:aws:iam::${ACCOUNT}:role/batch-pod-execution`;
    await eks(sandbox).send(
      new CreateFargateProfileCommand({
        clusterName: 'prod',
        fargateProfileName: 'fp-batch',
        podExecutionRoleArn: role,
        selectors: [{ namespace: 'batch' }],
      }),
    );
    const mapRoles = cluster.awsAuth?.data.mapRoles ?? '';
    expect(mapRoles).toContain(`rolearn: ${role}\n  username: system:node:{{SessionName}}`);
    expect(mapRoles).toContain('system:node-proxier');
    expect(cluster.accessEntries).toHaveLength(0);
    const before = cluster.awsAuth?.data.mapRoles;
    const deleted = await eks(sandbox).send(
      new DeleteFargateProfileCommand({ clusterName: 'prod', fargateProfileName: 'fp-default' }),
    );
    expect(deleted.fargateProfile?.status).toBe('DELETING');
    expect(deleted.fargateProfile?.podExecutionRoleArn).toBe(FARGATE_ROLE);
    expect(cluster.awsAuth?.data.mapRoles).toBe(before);
    expect(cluster.nodes.some((n) => n.kind === 'fargate')).toBe(false);
  });

  it('creates, updates, associates and disassociates access entries with EKS validation', async () => {
    const arn = `arn:aws:iam::${ACCOUNT}:role/ops`;
    sandbox = await startSandbox({ clusters: [{ snapshot: withIamRoles(baseSnapshot(), arn) }] });
    const client = eks(sandbox);
    await client.send(new CreateAccessEntryCommand({ clusterName: 'prod', principalArn: arn }));
    await expect(
      client.send(new CreateAccessEntryCommand({ clusterName: 'prod', principalArn: arn })),
    ).rejects.toMatchObject({
      name: 'ResourceInUseException',
      $metadata: { httpStatusCode: 409 },
    });
    await expect(
      client.send(
        new CreateAccessEntryCommand({
          clusterName: 'prod',
          principalArn: NEW_ROLE,
          type: 'EC2_LINUX',
          kubernetesGroups: ['x'],
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      client.send(
        new UpdateAccessEntryCommand({ clusterName: 'prod', principalArn: arn, username: 'system:admin' }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    const updated = await client.send(
      new UpdateAccessEntryCommand({ clusterName: 'prod', principalArn: arn, kubernetesGroups: ['ops'] }),
    );
    expect(updated.accessEntry?.kubernetesGroups).toEqual(['ops']);
    const assoc = await client.send(
      new AssociateAccessPolicyCommand({
        clusterName: 'prod',
        principalArn: arn,
        policyArn: ADMIN_POLICY,
        accessScope: { type: 'cluster' },
      }),
    );
    expect(assoc.associatedAccessPolicy?.policyArn).toBe(ADMIN_POLICY);
    const listed = await client.send(
      new ListAssociatedAccessPoliciesCommand({ clusterName: 'prod', principalArn: arn }),
    );
    expect(listed.associatedAccessPolicies?.map((p) => p.accessScope?.type)).toEqual(['cluster']);
    await client.send(
      new DisassociateAccessPolicyCommand({
        clusterName: 'prod',
        principalArn: arn,
        policyArn: ADMIN_POLICY,
      }),
    );
    const after = await client.send(
      new ListAssociatedAccessPoliciesCommand({ clusterName: 'prod', principalArn: arn }),
    );
    expect(after.associatedAccessPolicies).toEqual([]);
    const events = sandbox.cloudTrail as Array<{
      detail: { eventName: string; requestParameters: Record<string, unknown> };
    }>;
    expect(events.map((e) => e.detail.eventName)).toEqual([
      'CreateAccessEntry',
      'UpdateAccessEntry',
      'AssociateAccessPolicy',
      'DisassociateAccessPolicy',
    ]);
    expect(events[2]?.detail.requestParameters).toMatchObject({
      name: 'prod',
      principalArn: encodeURIComponent(arn),
      policyArn: ADMIN_POLICY,
      accessScope: { type: 'cluster' },
    });
  });
});

describe('sandbox CreateAccessEntry names a role as IAM has it', () => {
  const PATH_ROLE = `arn:aws:iam::${ACCOUNT}:role/eks/legacy-node`;
  const PATHLESS = `arn:aws:iam::${ACCOUNT}:role/legacy-node`;
  const invalid = {
    name: 'InvalidParameterException',
    message: 'The specified principalArn is invalid: invalid principal.',
    $metadata: { httpStatusCode: 400 },
  };

  it('refuses the path-less ARN of a role with a path, another path, and a role IAM does not have', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: withIamRoles(baseSnapshot(), PATH_ROLE) }] });
    const client = eks(sandbox);
    for (const principalArn of [
      PATHLESS,
      `arn:aws:iam::${ACCOUNT}:role/other/legacy-node`,
      `arn:aws:iam::${ACCOUNT}:role/no-such-role`,
      `arn:aws:iam::${ACCOUNT}:role/deleted-role`,
    ]) {
      await expect(
        client.send(new CreateAccessEntryCommand({ clusterName: 'prod', principalArn, type: 'EC2_LINUX' })),
        principalArn,
      ).rejects.toMatchObject(invalid);
    }
    expect(sandbox.cluster('prod').accessEntries.map((e) => e.principalArn)).not.toContain(PATHLESS);
    // nothing was created on the way: IAM still has no role of those names
    expect(sandbox.iamRoles.get('no-such-role')).toBeUndefined();
  });

  it('accepts the role ARN with its exact path', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: withIamRoles(baseSnapshot(), PATH_ROLE) }] });
    const out = await eks(sandbox).send(
      new CreateAccessEntryCommand({ clusterName: 'prod', principalArn: PATH_ROLE, type: 'EC2_LINUX' }),
    );
    expect(out.accessEntry?.principalArn).toBe(PATH_ROLE);
  });

  it('keeps the path another source gave when a seed also names the role without it', async () => {
    const seed = baseSnapshot();
    if (seed.iamRoles.status !== 'ok' || seed.compute.status !== 'ok') throw new Error('seed');
    // what a capture taken before paths were recorded holds: both spellings, neither with `path`
    seed.compute.data.push({ kind: 'self-managed', id: 'i-0b1c2d3e4f5a60718', roleArn: PATH_ROLE });
    seed.iamRoles.data.push({ arn: PATH_ROLE, state: 'exists' }, { arn: PATHLESS, state: 'exists' });
    sandbox = await startSandbox({ clusters: [{ snapshot: seed }] });
    expect(sandbox.iamRoles.get('legacy-node')).toMatchObject({ arn: PATH_ROLE, path: '/eks/' });
  });
});

describe('sandbox scenarios', () => {
  it('starts with every scenario file, each cluster named after its file', async () => {
    const seeds = await loadScenarios(new URL('../../scenarios', import.meta.url).pathname);
    expect(seeds.length).toBeGreaterThan(0);
    sandbox = await startSandbox({ clusters: seeds });
    const { ListClustersCommand } = await import('@aws-sdk/client-eks');
    const out = await eks(sandbox).send(new ListClustersCommand({}));
    expect(out.clusters).toEqual(seeds.map((s) => s.name).sort());
  });
});

describe('sandbox incidents end to end', () => {
  it('fails DeleteNodegroup with AccessDenied when mapRoles does not parse (containers-roadmap#1287)', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }] });
    const cluster = sandbox.cluster('prod');
    cluster.putAwsAuth(
      { mapRoles: '- rolearn: "unterminated\n  username: x\n' },
      { manager: 'kubectl-edit' },
    );
    await eks(sandbox).send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'ng-solo' }));
    const ng = cluster.nodegroups.find((g) => g.name === 'ng-solo');
    expect(ng?.status).toBe('DELETE_FAILED');
    expect(ng?.healthIssues).toEqual([
      { code: 'AccessDenied', message: 'The aws-auth ConfigMap in your cluster is invalid.' },
    ]);
  });

  it('incident b: EKS adds the Fargate entry, Terraform reverts aws-auth, new Fargate nodes lose access', async () => {
    sandbox = await startSandbox({
      clusters: [{ snapshot: baseSnapshot('CONFIG_MAP') }],
      sideEffectDelayMs: 20,
      notReadyDelayMs: 20,
    });
    const cluster = sandbox.cluster('prod');
    const terraformData = { ...(cluster.awsAuth?.data ?? {}) };
    const role = `arn:aws:iam::${ACCOUNT}:role/batch-pod-execution`;
    await eks(sandbox).send(
      new CreateFargateProfileCommand({
        clusterName: 'prod',
        fargateProfileName: 'fp-batch',
        podExecutionRoleArn: role,
      }),
    );
    expect(await waitFor(() => (cluster.awsAuth?.data.mapRoles ?? '').includes(role))).toBe(true);
    expect(cluster.awsAuth?.managedFields.map((f) => f.manager)).toEqual(['eks']);
    cluster.nodes.push({
      kind: 'fargate',
      id: 'fargate-ip-10-0-9-9.eu-west-1.compute.internal',
      nodeName: 'fargate-ip-10-0-9-9.eu-west-1.compute.internal',
      roleArn: role,
      fargateProfile: 'fp-batch',
      os: 'linux',
      ready: 'True',
      availabilityZone: 'eu-west-1a',
      privateIp: '10.0.9.9',
      instanceType: 'fargate',
      instanceState: 'running',
      launchTime: '2026-11-29T12:00:00.000Z',
    });
    cluster.putAwsAuth(terraformData, { manager: 'Terraform' });
    const batchNode = cluster.nodes.find((n) => n.fargateProfile === 'fp-batch');
    expect(await waitFor(() => batchNode?.ready === 'Unknown')).toBe(true);
    expect(sandbox.cloudTrail.map((e) => (e as { detail: { eventName: string } }).detail.eventName)).toEqual([
      'CreateFargateProfile',
    ]);
  });
});
