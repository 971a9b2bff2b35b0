import { request } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { DescribeInstancesCommand, EC2Client, type Instance } from '@aws-sdk/client-ec2';
import {
  GetInstanceProfileCommand,
  GetRoleCommand,
  IAMClient,
  NoSuchEntityException,
} from '@aws-sdk/client-iam';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { ACCOUNT, baseSnapshot, REGION, SHARED_ROLE } from '../support/sandbox-seed.ts';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(): Promise<Sandbox> {
  sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
  return sandbox;
}

/** A SigV4-signed form POST, as the SDK's query-protocol clients send it. */
async function signedPost(
  endpoint: string,
  service: string,
  params: Record<string, string> | { json: unknown; target: string },
  credentials: { accessKeyId: string; secretAccessKey: string },
): Promise<{ status: number; text: string }> {
  const url = new URL(endpoint);
  const isJson = 'target' in params && 'json' in params;
  const body = isJson
    ? JSON.stringify(params.json)
    : new URLSearchParams(params as Record<string, string>).toString();
  const headers: Record<string, string> = isJson
    ? {
        host: url.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': params.target as string,
      }
    : { host: url.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };
  const signer = new SignatureV4({ service, region: REGION, credentials, sha256: Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    headers,
    body,
  });
  return new Promise((resolve, reject) => {
    const req = request(endpoint, { method: 'POST', headers: signed.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('sandbox EC2', () => {
  it('describes the cluster instances by tag with kind tags, PrivateDnsName and instance profile', async () => {
    const s = await start();
    const ec2 = new EC2Client({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_EC2,
      credentials: s.credentials,
    });
    const out = await ec2.send(
      new DescribeInstancesCommand({
        Filters: [
          { Name: 'tag:kubernetes.io/cluster/prod', Values: ['owned'] },
          { Name: 'instance-state-name', Values: ['running'] },
        ],
      }),
    );
    const instances = (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
    expect(instances).toHaveLength(5); // Fargate has no EC2 instance
    const tags = (i: Instance | undefined): Record<string, string> =>
      Object.fromEntries((i?.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
    const managed = instances.find((i) => i.InstanceId === 'i-0aaaaaaaaaaaaaaa1');
    expect(tags(managed)).toMatchObject({ 'eks:cluster-name': 'prod', 'eks:nodegroup-name': 'ng-a' });
    expect(managed?.PrivateDnsName).toBe('ip-10-0-1-1.eu-west-1.compute.internal');
    expect(managed?.IamInstanceProfile?.Arn).toBe(
      `arn:aws:iam::${ACCOUNT}:instance-profile/eks-shared-node-role-instance-profile`,
    );
    expect(managed?.State?.Name).toBe('running');
    const karpenter = instances.find((i) => i.InstanceId === 'i-0bbbbbbbbbbbbbbb1');
    expect(tags(karpenter)).toMatchObject({
      'karpenter.sh/nodepool': 'default',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'eks:eks-cluster-name': 'prod',
    });
    const selfManaged = instances.find((i) => i.InstanceId === 'i-0ccccccccccccccc1');
    expect(Object.keys(tags(selfManaged))).not.toContain('eks:cluster-name');
  });

  it('filters by tag-key and paginates with MaxResults/NextToken', async () => {
    const snap = baseSnapshot();
    if (snap.compute.status !== 'ok') throw new Error('seed');
    for (let i = 0; i < 8; i++) {
      snap.compute.data.push({ kind: 'self-managed', id: `i-0dddddddddddddd${i}0`, roleArn: SHARED_ROLE });
    }
    sandbox = await startSandbox({ clusters: [{ snapshot: snap }] });
    const s = sandbox;
    const ec2 = new EC2Client({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_EC2,
      credentials: s.credentials,
    });
    const karpenter = await ec2.send(
      new DescribeInstancesCommand({ Filters: [{ Name: 'tag-key', Values: ['karpenter.sh/nodepool'] }] }),
    );
    expect((karpenter.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId)).toEqual(
      ['i-0bbbbbbbbbbbbbbb1'],
    );
    const ids: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await ec2.send(new DescribeInstancesCommand({ MaxResults: 5, NextToken: token }));
      ids.push(...(page.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId ?? ''));
      token = page.NextToken;
      pages += 1;
    } while (token && pages < 10);
    expect(pages).toBe(3);
    expect(ids).toHaveLength(13);
    expect(new Set(ids).size).toBe(13);
  });
});

describe('sandbox query-service faults', () => {
  it('fails an EC2 call with an injected 503, then answers again', async () => {
    const s = await start();
    const ec2 = new EC2Client({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_EC2,
      credentials: s.credentials,
      maxAttempts: 1,
    });
    s.faults.inject({
      service: 'ec2',
      operation: 'DescribeInstances',
      status: 503,
      code: 'Unavailable',
      times: 1,
    });
    await expect(ec2.send(new DescribeInstancesCommand({}))).rejects.toMatchObject({
      name: 'Unavailable',
      $metadata: { httpStatusCode: 503 },
    });
    await expect(ec2.send(new DescribeInstancesCommand({}))).resolves.toBeDefined();
  });
});

describe('sandbox IAM', () => {
  it('resolves an instance profile to its role, path included, and answers NoSuchEntity for deleted roles', async () => {
    const s = await start();
    const iam = new IAMClient({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_IAM,
      credentials: s.credentials,
    });
    const profile = await iam.send(
      new GetInstanceProfileCommand({ InstanceProfileName: 'eks-shared-node-role-instance-profile' }),
    );
    expect(profile.InstanceProfile?.Roles?.[0]?.Arn).toBe(SHARED_ROLE);
    const role = await iam.send(new GetRoleCommand({ RoleName: 'eks-shared-node-role' }));
    expect(role.Role?.RoleId).toBe('AROASHAREDNODEROLE0001');
    expect(role.Role?.CreateDate?.toISOString()).toBe('2025-01-01T00:00:00.000Z');
    await expect(iam.send(new GetRoleCommand({ RoleName: 'deleted-role' }))).rejects.toBeInstanceOf(
      NoSuchEntityException,
    );
  });

  it('serves the instance profile named by a Karpenter EC2NodeClass and tags its instances with it', async () => {
    const snap = baseSnapshot();
    snap.karpenterNodeClasses = {
      status: 'ok',
      data: [{ name: 'default', instanceProfile: 'KarpenterNodeInstanceProfile-prod', roleArn: SHARED_ROLE }],
    };
    sandbox = await startSandbox({ clusters: [{ snapshot: snap }] });
    const s = sandbox;
    const iam = new IAMClient({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_IAM,
      credentials: s.credentials,
    });
    const profile = await iam.send(
      new GetInstanceProfileCommand({ InstanceProfileName: 'KarpenterNodeInstanceProfile-prod' }),
    );
    expect(profile.InstanceProfile?.Roles?.map((r) => r.Arn)).toEqual([SHARED_ROLE]);
    const ec2 = new EC2Client({
      region: REGION,
      endpoint: s.env.AWS_ENDPOINT_URL_EC2,
      credentials: s.credentials,
    });
    const out = await ec2.send(new DescribeInstancesCommand({ InstanceIds: ['i-0bbbbbbbbbbbbbbb1'] }));
    expect(out.Reservations?.[0]?.Instances?.[0]?.IamInstanceProfile?.Arn).toBe(
      `arn:aws:iam::${ACCOUNT}:instance-profile/KarpenterNodeInstanceProfile-prod`,
    );
  });
});

describe('sandbox STS, SNS and Slack', () => {
  it('answers GetCallerIdentity for a signed request and rejects a bad signature', async () => {
    const s = await start();
    const ok = await signedPost(
      s.env.AWS_ENDPOINT_URL_STS,
      'sts',
      { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      s.credentials,
    );
    expect(ok.status).toBe(200);
    expect(ok.text).toContain(
      `<Arn>arn:aws:sts::${ACCOUNT}:assumed-role/eks-auth-sentinel/eks-auth-sentinel</Arn>`,
    );
    const bad = await signedPost(
      s.env.AWS_ENDPOINT_URL_STS,
      'sts',
      { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      { accessKeyId: s.credentials.accessKeyId, secretAccessKey: 'wrong' },
    );
    expect(bad.status).toBe(403);
    expect(bad.text).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('records SNS Publish with subject and message attributes', async () => {
    const s = await start();
    const res = await signedPost(
      s.env.AWS_ENDPOINT_URL_SNS,
      'sns',
      {
        Action: 'Publish',
        Version: '2010-03-31',
        TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:eks-auth-sentinel`,
        Subject: '[critical] prod: nodes lose access',
        Message: 'hello',
        'MessageAttributes.entry.1.Name': 'severity',
        'MessageAttributes.entry.1.Value.DataType': 'String',
        'MessageAttributes.entry.1.Value.StringValue': 'critical',
      },
      s.credentials,
    );
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/<MessageId>[0-9a-f-]{36}<\/MessageId>/);
    expect(s.sns).toEqual([
      {
        topicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:eks-auth-sentinel`,
        subject: '[critical] prod: nodes lose access',
        message: 'hello',
        messageAttributes: { severity: { DataType: 'String', StringValue: 'critical' } },
      },
    ]);
    const tooLong = await signedPost(
      s.env.AWS_ENDPOINT_URL_SNS,
      'sns',
      { Action: 'Publish', TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:t`, Message: 'x'.repeat(262_145) },
      s.credentials,
    );
    expect(tooLong.status).toBe(400);
  });

  it('accepts SNS Publish over AWS JSON 1.0 too, and checks MessageStructure=json', async () => {
    const s = await start();
    const topic = `arn:aws:sns:${REGION}:${ACCOUNT}:eks-auth-sentinel`;
    const res = await signedPost(
      s.env.AWS_ENDPOINT_URL_SNS,
      'sns',
      {
        target: 'SNS_20100331.Publish',
        json: {
          TopicArn: topic,
          MessageStructure: 'json',
          Message: JSON.stringify({ default: 'text', email: 'longer text' }),
          MessageAttributes: { ruleId: { DataType: 'String', StringValue: 'nodes/role-unauthorized' } },
        },
      },
      s.credentials,
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ MessageId: expect.any(String) });
    expect(s.sns[0]).toMatchObject({
      messageStructure: 'json',
      messageAttributes: { ruleId: { DataType: 'String', StringValue: 'nodes/role-unauthorized' } },
    });
    const noDefault = await signedPost(
      s.env.AWS_ENDPOINT_URL_SNS,
      'sns',
      {
        target: 'SNS_20100331.Publish',
        json: { TopicArn: topic, MessageStructure: 'json', Message: '{"email":"x"}' },
      },
      s.credentials,
    );
    expect(noDefault.status).toBe(400);
    expect(JSON.parse(noDefault.text)).toMatchObject({ __type: 'InvalidParameter' });
  });

  it('accepts Slack webhook posts with text or blocks and records them', async () => {
    const s = await start();
    const ok = await fetch(s.env.SLACK_WEBHOOK_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        text: 'hi',
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }],
      }),
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('ok');
    const empty = await fetch(s.env.SLACK_WEBHOOK_URL, { method: 'POST', body: '{}' });
    expect(empty.status).toBe(400);
    expect(s.slack).toHaveLength(1);
    expect(s.calls.filter((c) => c.service === 'slack').map((c) => c.status)).toEqual([200, 400]);
  });
});
