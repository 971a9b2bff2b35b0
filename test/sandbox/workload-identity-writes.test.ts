/**
 * The sandbox's write side for workload identity, through the real SDK clients over HTTP: each
 * call changes the account as AWS does, answers AWS's errors, and leaves the CloudTrail record
 * that the monitor's parser (shared/core/events/cloudtrail.ts → cloudtrail-workload-identity.ts) reads
 * back as the change that was made.
 */
import {
  CreatePodIdentityAssociationCommand,
  DeleteAddonCommand,
  DeletePodIdentityAssociationCommand,
  DescribeAddonCommand,
  DescribePodIdentityAssociationCommand,
  EKSClient,
  UpdateAddonCommand,
  UpdatePodIdentityAssociationCommand,
} from '@aws-sdk/client-eks';
import {
  DeleteOpenIDConnectProviderCommand,
  DeleteRoleCommand,
  DeleteRolePolicyCommand,
  DetachRolePolicyCommand,
  GetRoleCommand,
  IAMClient,
  SimulatePrincipalPolicyCommand,
  UpdateAssumeRolePolicyCommand,
} from '@aws-sdk/client-iam';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { trustAllows } from '../../infra/sandbox/workload-credentials.ts';
import { type EksEventParse, parseEksEvent } from '../../shared/core/events/cloudtrail.ts';
import { loadScenario } from '../support/sandbox-helpers.ts';

const ACCOUNT = '111122223333';
const REGION = 'eu-west-1';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/payments-api`;
const NODE_ROLE = `arn:aws:iam::${ACCOUNT}:role/prod-node-role`;
const WORKER_POLICY = 'arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy';
const PROVIDER = `arn:aws:iam::${ACCOUNT}:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/PROD`;
const EC2_TRUST = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(scenario: string): Promise<Sandbox> {
  sandbox = await startSandbox({
    clusters: [{ snapshot: loadScenario(`workload-identity/${scenario}`) }],
    credentialRefreshDelayMs: 0,
  });
  return sandbox;
}

const eks = (s: Sandbox) =>
  new EKSClient({
    region: REGION,
    endpoint: s.env.AWS_ENDPOINT_URL_EKS,
    credentials: s.credentials,
    maxAttempts: 1,
  });
// The CLI and the monitor sign IAM for us-east-1; the record says us-east-1 whatever the signature.
const iam = (s: Sandbox, region = 'us-east-1') =>
  new IAMClient({ region, endpoint: s.env.AWS_ENDPOINT_URL_IAM, credentials: s.credentials, maxAttempts: 1 });

type Parsed = Exclude<EksEventParse, { kind: 'ignored' } | { kind: 'invalid' }>;

/** The last CloudTrail record, its envelope, and what the monitor's parser makes of it. */
function lastRecord(s: Sandbox): {
  envelope: Record<string, unknown>;
  detail: Record<string, unknown>;
  parsed: Parsed;
} {
  const envelope = s.cloudTrail.at(-1) as Record<string, unknown>;
  const parsed = parseEksEvent(envelope);
  if (parsed.kind === 'ignored' || parsed.kind === 'invalid')
    throw new Error(`${parsed.kind}: ${parsed.reason}`);
  return { envelope, detail: envelope.detail as Record<string, unknown>, parsed };
}

async function rejection(
  p: Promise<unknown>,
): Promise<{ name: string; status: number | undefined; message: string }> {
  try {
    await p;
  } catch (error) {
    const e = error as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode, message: e.message };
  }
  throw new Error('the call succeeded');
}

const refreshLines = (s: Sandbox) =>
  s.timeline.map((t) => t.what).filter((w) => / failed \(| works again/.test(w));

describe('sandbox EKS Pod Identity and add-on writes', () => {
  it('CreatePodIdentityAssociation stores the association, answers its description, and its record parses to the same association', async () => {
    const s = await start('wi-healthy-pod-identity');
    const out = await eks(s).send(
      new CreatePodIdentityAssociationCommand({
        clusterName: 'prod',
        namespace: 'orders',
        serviceAccount: 'worker',
        roleArn: ROLE,
        disableSessionTags: true,
      }),
    );
    const id = out.association?.associationId ?? '';
    expect(id).toMatch(/^a-[0-9a-f]{17}$/);
    expect(out.association).toMatchObject({
      clusterName: 'prod',
      namespace: 'orders',
      serviceAccount: 'worker',
      roleArn: ROLE,
      disableSessionTags: true,
      associationArn: `arn:aws:eks:${REGION}:${ACCOUNT}:podidentityassociation/prod/${id}`,
    });
    expect(s.cluster('prod').podIdentityAssociations.map((a) => a.serviceAccount)).toEqual(['api', 'worker']);
    const { envelope, detail, parsed } = lastRecord(s);
    expect(envelope).toMatchObject({ source: 'aws.eks', region: REGION });
    expect(detail).toMatchObject({
      eventSource: 'eks.amazonaws.com',
      eventName: 'CreatePodIdentityAssociation',
    });
    expect(parsed).toMatchObject({
      kind: 'change',
      clusterName: 'prod',
      region: REGION,
      accountId: ACCOUNT,
      change: {
        kind: 'create-pod-identity-association',
        association: {
          associationId: id,
          namespace: 'orders',
          serviceAccount: 'worker',
          roleArn: ROLE,
          disableSessionTags: true,
        },
      },
    });
  });

  it('with a targetRoleArn, Create and Update answer the externalId; the records carry it to the parsed change', async () => {
    const s = await start('wi-healthy-pod-identity');
    const target = `arn:aws:iam::${ACCOUNT}:role/orders-data`;
    const out = await eks(s).send(
      new CreatePodIdentityAssociationCommand({
        clusterName: 'prod',
        namespace: 'orders',
        serviceAccount: 'worker',
        roleArn: ROLE,
        targetRoleArn: target,
      }),
    );
    const externalId = out.association?.externalId ?? '';
    expect(externalId).toMatch(/^[0-9a-f]{32}$/);
    expect(lastRecord(s).parsed).toMatchObject({
      change: { kind: 'create-pod-identity-association', association: { targetRoleArn: target, externalId } },
    });
    const id = out.association?.associationId ?? '';
    const other = `arn:aws:iam::${ACCOUNT}:role/orders-archive`;
    const updated = await eks(s).send(
      new UpdatePodIdentityAssociationCommand({
        clusterName: 'prod',
        associationId: id,
        targetRoleArn: other,
      }),
    );
    expect(lastRecord(s).parsed).toMatchObject({
      change: {
        kind: 'update-pod-identity-association',
        associationId: id,
        targetRoleArn: other,
        externalId: updated.association?.externalId,
      },
    });
  });

  it('CreatePodIdentityAssociation refuses a second association of one service account (ResourceInUseException, no record)', async () => {
    const s = await start('wi-healthy-pod-identity');
    const before = s.cloudTrail.length;
    const e = await rejection(
      eks(s).send(
        new CreatePodIdentityAssociationCommand({
          clusterName: 'prod',
          namespace: 'payments',
          serviceAccount: 'api',
          roleArn: ROLE,
        }),
      ),
    );
    expect(e).toMatchObject({ name: 'ResourceInUseException', status: 409 });
    expect(s.cloudTrail).toHaveLength(before);
  });

  it('UpdatePodIdentityAssociation changes the role; the record parses to the update of that association', async () => {
    const s = await start('wi-healthy-pod-identity');
    const other = `arn:aws:iam::${ACCOUNT}:role/payments-api-v2`;
    const out = await eks(s).send(
      new UpdatePodIdentityAssociationCommand({
        clusterName: 'prod',
        associationId: 'a-payments0api00001',
        roleArn: other,
      }),
    );
    expect(out.association).toMatchObject({ roleArn: other, namespace: 'payments', serviceAccount: 'api' });
    expect(s.cluster('prod').podIdentityAssociations[0]?.roleArn).toBe(other);
    expect(lastRecord(s).parsed).toMatchObject({
      kind: 'change',
      clusterName: 'prod',
      change: {
        kind: 'update-pod-identity-association',
        associationId: 'a-payments0api00001',
        roleArn: other,
      },
    });
    // payments-api-v2 does not exist: the pods' next refresh fails, and the timeline says why.
    expect(refreshLines(s)).toEqual([
      `prod: pod identity payments/api: credential refresh failed (role ${other} does not exist)`,
    ]);
  });

  it('DeletePodIdentityAssociation removes it and answers what was deleted; the record parses with the association', async () => {
    const s = await start('wi-healthy-pod-identity');
    const out = await eks(s).send(
      new DeletePodIdentityAssociationCommand({ clusterName: 'prod', associationId: 'a-payments0api00001' }),
    );
    expect(out.association).toMatchObject({ associationId: 'a-payments0api00001', serviceAccount: 'api' });
    expect(s.cluster('prod').podIdentityAssociations).toEqual([]);
    expect(lastRecord(s).parsed).toMatchObject({
      kind: 'change',
      change: {
        kind: 'delete-pod-identity-association',
        associationId: 'a-payments0api00001',
        association: { namespace: 'payments', serviceAccount: 'api', roleArn: ROLE },
      },
    });
    const gone = await rejection(
      eks(s).send(
        new DeletePodIdentityAssociationCommand({
          clusterName: 'prod',
          associationId: 'a-payments0api00001',
        }),
      ),
    );
    expect(gone).toMatchObject({ name: 'ResourceNotFoundException', status: 404 });
  });

  it('DeleteAddon of the agent answers DELETING, removes it, and the pods of every association lose their credentials', async () => {
    const s = await start('wi-healthy-pod-identity');
    const out = await eks(s).send(
      new DeleteAddonCommand({ clusterName: 'prod', addonName: 'eks-pod-identity-agent', preserve: false }),
    );
    expect(out.addon).toMatchObject({
      addonName: 'eks-pod-identity-agent',
      status: 'DELETING',
      clusterName: 'prod',
    });
    expect(s.cluster('prod').addons.map((a) => a.name)).toEqual(['vpc-cni']);
    const { detail, parsed } = lastRecord(s);
    expect(detail.requestParameters).toMatchObject({
      name: 'prod',
      addonName: 'eks-pod-identity-agent',
      preserve: false,
    });
    expect(parsed).toMatchObject({
      kind: 'change',
      change: { kind: 'delete-addon', addonName: 'eks-pod-identity-agent' },
    });
    expect(refreshLines(s)).toEqual([
      'prod: pod identity payments/api: credential refresh failed (the eks-pod-identity-agent add-on is not installed)',
    ]);
    const missing = await rejection(
      eks(s).send(new DescribeAddonCommand({ clusterName: 'prod', addonName: 'eks-pod-identity-agent' })),
    );
    expect(missing).toMatchObject({ name: 'ResourceNotFoundException', status: 404 });
  });

  it('UpdateAddon answers an AddonUpdate in progress, sets the version; the record parses to the agent update', async () => {
    const s = await start('wi-healthy-pod-identity');
    const out = await eks(s).send(
      new UpdateAddonCommand({
        clusterName: 'prod',
        addonName: 'eks-pod-identity-agent',
        addonVersion: 'v1.3.5-eksbuild.2',
      }),
    );
    expect(out.update).toMatchObject({
      status: 'InProgress',
      type: 'AddonUpdate',
      params: [{ type: 'AddonVersion', value: 'v1.3.5-eksbuild.2' }],
    });
    expect(s.cluster('prod').addons[0]).toMatchObject({ status: 'ACTIVE', version: 'v1.3.5-eksbuild.2' });
    expect(lastRecord(s).parsed).toMatchObject({
      kind: 'change',
      change: {
        kind: 'update-addon',
        addonName: 'eks-pod-identity-agent',
        addonVersion: 'v1.3.5-eksbuild.2',
      },
    });
    expect(refreshLines(s)).toEqual([]);
  });
});

describe('sandbox IAM writes (global: records in us-east-1)', () => {
  it('UpdateAssumeRolePolicy replaces the trust GetRole returns; the record is IAM us-east-1 and parses to the new trust', async () => {
    const s = await start('wi-healthy-pod-identity');
    // signed for eu-west-1: IAM still records the call in us-east-1
    await iam(s, REGION).send(
      new UpdateAssumeRolePolicyCommand({ RoleName: 'payments-api', PolicyDocument: EC2_TRUST }),
    );
    const role = await iam(s).send(new GetRoleCommand({ RoleName: 'payments-api' }));
    expect(JSON.parse(decodeURIComponent(role.Role?.AssumeRolePolicyDocument ?? ''))).toEqual(
      JSON.parse(EC2_TRUST),
    );
    const { envelope, detail, parsed } = lastRecord(s);
    expect(envelope).toMatchObject({ source: 'aws.iam', region: 'us-east-1', account: ACCOUNT });
    expect(detail).toMatchObject({
      eventSource: 'iam.amazonaws.com',
      awsRegion: 'us-east-1',
      eventName: 'UpdateAssumeRolePolicy',
      requestParameters: { roleName: 'payments-api', policyDocument: EC2_TRUST },
      responseElements: null,
      tlsDetails: { clientProvidedHostHeader: 'iam.amazonaws.com' },
    });
    expect(parsed).toMatchObject({
      kind: 'account-change',
      region: 'us-east-1',
      accountId: ACCOUNT,
      change: {
        kind: 'update-role-trust',
        role: { accountId: ACCOUNT, roleName: 'payments-api' },
        trustPolicy: EC2_TRUST,
      },
    });
    expect(refreshLines(s)).toEqual([
      'prod: pod identity payments/api: credential refresh failed (role payments-api does not trust pods.eks.amazonaws.com for sts:AssumeRole and sts:TagSession)',
    ]);
  });

  it('UpdateAssumeRolePolicy refuses a document that is not JSON (MalformedPolicyDocument) and an unknown role (NoSuchEntity)', async () => {
    const s = await start('wi-healthy-pod-identity');
    const before = s.cloudTrail.length;
    expect(
      await rejection(
        iam(s).send(
          new UpdateAssumeRolePolicyCommand({ RoleName: 'payments-api', PolicyDocument: '{not json' }),
        ),
      ),
    ).toMatchObject({ name: 'MalformedPolicyDocumentException', status: 400 });
    expect(
      await rejection(
        iam(s).send(new UpdateAssumeRolePolicyCommand({ RoleName: 'nobody', PolicyDocument: EC2_TRUST })),
      ),
    ).toMatchObject({ name: 'NoSuchEntityException', status: 404 });
    expect(s.cloudTrail).toHaveLength(before);
  });

  it('DeleteRole refuses while managed policies are attached (DeleteConflict), then deletes; the record parses to delete-role', async () => {
    const s = await start('wi-healthy-pod-identity');
    const conflict = await rejection(iam(s).send(new DeleteRoleCommand({ RoleName: 'prod-node-role' })));
    expect(conflict).toMatchObject({ name: 'DeleteConflictException', status: 409 });
    expect(conflict.message).toBe('Cannot delete entity, must detach all policies first.');
    await iam(s).send(new DeleteRoleCommand({ RoleName: 'payments-api' }));
    expect(await rejection(iam(s).send(new GetRoleCommand({ RoleName: 'payments-api' })))).toMatchObject({
      name: 'NoSuchEntityException',
    });
    expect(lastRecord(s).parsed).toMatchObject({
      kind: 'account-change',
      change: { kind: 'delete-role', role: { accountId: ACCOUNT, roleName: 'payments-api' } },
    });
    expect(refreshLines(s)).toEqual([
      `prod: pod identity payments/api: credential refresh failed (role ${ROLE} does not exist)`,
    ]);
  });

  it('DetachRolePolicy of the worker policy makes SimulatePrincipalPolicy deny eks-auth; the record parses to detach-role-policy', async () => {
    const s = await start('wi-healthy-pod-identity');
    await iam(s).send(new DetachRolePolicyCommand({ RoleName: 'prod-node-role', PolicyArn: WORKER_POLICY }));
    const sim = await iam(s).send(
      new SimulatePrincipalPolicyCommand({
        PolicySourceArn: NODE_ROLE,
        ActionNames: ['eks-auth:AssumeRoleForPodIdentity'],
      }),
    );
    expect(sim.EvaluationResults?.[0]?.EvalDecision).toBe('implicitDeny');
    expect(lastRecord(s).parsed).toMatchObject({
      kind: 'account-change',
      change: { kind: 'detach-role-policy', role: { roleName: 'prod-node-role' }, policyArn: WORKER_POLICY },
    });
    expect(refreshLines(s)).toEqual([
      `prod: pod identity payments/api: credential refresh failed (no node role may call eks-auth:AssumeRoleForPodIdentity (${NODE_ROLE}))`,
    ]);
    expect(
      await rejection(
        iam(s).send(new DetachRolePolicyCommand({ RoleName: 'prod-node-role', PolicyArn: WORKER_POLICY })),
      ),
    ).toMatchObject({ name: 'NoSuchEntityException', status: 404 });
  });

  it('DeleteRolePolicy removes an inline policy; the record parses to delete-role-policy; an unknown name is NoSuchEntity', async () => {
    const s = await start('wi-healthy-pod-identity');
    const node = s.iamRoles.get('prod-node-role');
    if (node === undefined) throw new Error('no node role');
    node.inlinePolicies = {
      'deny-pod-identity': JSON.stringify({
        Statement: [{ Effect: 'Deny', Action: 'eks-auth:*', Resource: '*' }],
      }),
    };
    await iam(s).send(
      new DeleteRolePolicyCommand({ RoleName: 'prod-node-role', PolicyName: 'deny-pod-identity' }),
    );
    expect(node.inlinePolicies).toEqual({});
    expect(lastRecord(s).parsed).toMatchObject({
      kind: 'account-change',
      change: {
        kind: 'delete-role-policy',
        role: { roleName: 'prod-node-role' },
        policyName: 'deny-pod-identity',
      },
    });
    expect(
      await rejection(
        iam(s).send(
          new DeleteRolePolicyCommand({ RoleName: 'prod-node-role', PolicyName: 'deny-pod-identity' }),
        ),
      ),
    ).toMatchObject({ name: 'NoSuchEntityException', status: 404 });
  });

  it('DeleteOpenIDConnectProvider removes the provider; IRSA pods fail; the record parses to delete-oidc-provider', async () => {
    const s = await start('wi-healthy-irsa');
    await iam(s).send(new DeleteOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: PROVIDER }));
    expect(s.oidcProviders).not.toContain(PROVIDER);
    const { detail, parsed } = lastRecord(s);
    expect(detail.requestParameters).toEqual({ openIDConnectProviderArn: PROVIDER });
    expect(parsed).toMatchObject({
      kind: 'account-change',
      change: { kind: 'delete-oidc-provider', providerArn: PROVIDER },
    });
    expect(refreshLines(s)).toEqual([
      'prod: IRSA payments/api: AssumeRoleWithWebIdentity failed (no IAM OIDC provider for oidc.eks.eu-west-1.amazonaws.com/id/PROD)',
    ]);
    expect(
      await rejection(
        iam(s).send(new DeleteOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: PROVIDER })),
      ),
    ).toMatchObject({ name: 'NoSuchEntityException', status: 404 });
  });
});

describe('sandbox workload credentials', () => {
  it('a healthy Pod Identity and a healthy IRSA seed log no credential failure; restoring the trust logs the recovery', async () => {
    const s = await start('wi-healthy-pod-identity');
    const trust = s.iamRoles.get('payments-api')?.trustPolicy ?? '';
    await iam(s).send(
      new UpdateAssumeRolePolicyCommand({ RoleName: 'payments-api', PolicyDocument: EC2_TRUST }),
    );
    await iam(s).send(new UpdateAssumeRolePolicyCommand({ RoleName: 'payments-api', PolicyDocument: trust }));
    expect(refreshLines(s)).toEqual([
      'prod: pod identity payments/api: credential refresh failed (role payments-api does not trust pods.eks.amazonaws.com for sts:AssumeRole and sts:TagSession)',
      'prod: pod identity payments/api: credential refresh works again',
    ]);
    await s.close();
    const irsa = await start('wi-healthy-irsa');
    await iam(irsa).send(
      new UpdateAssumeRolePolicyCommand({ RoleName: 'platform-admin', PolicyDocument: EC2_TRUST }),
    );
    expect(refreshLines(irsa)).toEqual([]);
  });

  it("addCluster: a green cluster whose IRSA role trusts only blue's issuer fails AssumeRoleWithWebIdentity", async () => {
    const s = await start('wi-blue');
    await s.addCluster({ snapshot: loadScenario('workload-identity/wi-green') });
    const green = s.cluster('green');
    expect(green.oidcIssuer).toMatch(/\/id\/GREEN$/);
    expect(refreshLines(s)).toEqual([
      expect.stringMatching(
        /^green: IRSA payments\/api: AssumeRoleWithWebIdentity failed \(role payments-api-irsa does not trust .*id\/GREEN for system:serviceaccount:payments:api\)$/,
      ),
    ]);
  });
});

describe('sandbox trust evaluation (trustAllows)', () => {
  const pods = (action: string) => ({
    principal: { type: 'Service' as const, value: 'pods.eks.amazonaws.com' },
    action,
    context: {},
  });
  const doc = (...Statement: unknown[]) => JSON.stringify({ Version: '2012-10-17', Statement });

  it('takes Principal as a list, Action wildcards, and Deny over Allow', () => {
    const allow = {
      Effect: 'Allow',
      Principal: { Service: ['ec2.amazonaws.com', 'pods.eks.amazonaws.com'] },
      Action: 'sts:*',
    };
    expect(trustAllows(doc(allow), pods('sts:TagSession'))).toBe(true);
    expect(
      trustAllows(
        doc(allow, { Effect: 'Deny', Principal: '*', Action: 'sts:TagSession' }),
        pods('sts:TagSession'),
      ),
    ).toBe(false);
    expect(trustAllows(doc({ ...allow, Action: 'sts:AssumeRole' }), pods('sts:TagSession'))).toBe(false);
    expect(trustAllows('{not json', pods('sts:AssumeRole'))).toBe(false);
    expect(trustAllows(undefined, pods('sts:AssumeRole'))).toBe(false);
  });

  it('matches IRSA sub by StringLike, condition keys case-insensitively, and refuses an unmodelled operator', () => {
    const provider = `arn:aws:iam::${ACCOUNT}:oidc-provider/oidc.example/id/X`;
    const request = {
      principal: { type: 'Federated' as const, value: provider },
      action: 'sts:AssumeRoleWithWebIdentity',
      context: { 'oidc.example/id/x:sub': 'system:serviceaccount:payments:api' },
    };
    const st = (Condition: unknown) =>
      doc({
        Effect: 'Allow',
        Principal: { Federated: provider },
        Action: 'sts:AssumeRoleWithWebIdentity',
        Condition,
      });
    expect(
      trustAllows(
        st({ StringLike: { 'oidc.example/id/X:sub': 'system:serviceaccount:payments:*' } }),
        request,
      ),
    ).toBe(true);
    expect(
      trustAllows(
        st({ StringEquals: { 'oidc.example/id/X:sub': 'system:serviceaccount:orders:api' } }),
        request,
      ),
    ).toBe(false);
    expect(trustAllows(st({ IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } }), request)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Pod Identity chains: the sandbox judges them as STS does, on its own (it is the referee the
// monitor's verdicts are checked against): two hops, `sts:ExternalId` only on the second and equal
// to the association's `externalId` (the one DescribePodIdentityAssociation answers), the session
// tags on both, an account root or `ArnEquals aws:PrincipalArn` naming the association's role.

const APP = ROLE;
const EXTERNAL_ID = 'e7c1a0b94f2d4c8a9b3e5f6a7d8c9b0a';
const KEY = 'pod identity payments/api';
const BOTH = ['sts:AssumeRole', 'sts:TagSession'];

const trust = (...Statement: unknown[]) => JSON.stringify({ Version: '2012-10-17', Statement });
const pods = (condition?: Record<string, unknown>) => ({
  Effect: 'Allow',
  Principal: { Service: 'pods.eks.amazonaws.com' },
  Action: BOTH,
  ...(condition ? { Condition: condition } : {}),
});
const fromApp = (condition?: Record<string, unknown>, principal: string = APP) => ({
  Effect: 'Allow',
  Principal: { AWS: principal },
  Action: BOTH,
  ...(condition ? { Condition: condition } : {}),
});

/** Sets a trust policy with the real SDK; the outcome of the pods' next credential request. */
async function setTrust(s: Sandbox, roleName: string, policy: string): Promise<string | undefined> {
  await iam(s).send(new UpdateAssumeRolePolicyCommand({ RoleName: roleName, PolicyDocument: policy }));
  // credentialRefreshDelayMs 0: the refresh has run when the call answers.
  return s.cluster('prod').credentialOutcomes.get(KEY);
}

describe('sandbox: a Pod Identity chain with targetRoleArn and externalId', () => {
  it('answers the seeded externalId and issues credentials when the target trusts it', async () => {
    const s = await start('wi-healthy-pod-identity-target-role');
    const out = await eks(s).send(
      new DescribePodIdentityAssociationCommand({
        clusterName: 'prod',
        associationId: 'a-payments0api00001',
      }),
    );
    expect(out.association).toMatchObject({
      targetRoleArn: `arn:aws:iam::${ACCOUNT}:role/payments-data`,
      externalId: EXTERNAL_ID,
    });
    expect(s.cluster('prod').credentialOutcomes.has(KEY)).toBe(true);
    expect(s.cluster('prod').credentialOutcomes.get(KEY)).toBeUndefined();
  });

  it('the target hop carries the association’s externalId: another value fails, the guide’s forms pass', async () => {
    const s = await start('wi-healthy-pod-identity-target-role');
    const ext = (id: string) => ({ StringEquals: { 'sts:ExternalId': id } });
    expect(await setTrust(s, 'payments-data', trust(fromApp(ext('another-id'))))).toBe(
      `target role payments-data does not trust ${APP}`,
    );
    expect(await setTrust(s, 'payments-data', trust(fromApp(ext(EXTERNAL_ID))))).toBeUndefined();
    // The account root with ArnEquals aws:PrincipalARN and the session tags (pod-id-assign-target-role).
    const guide = fromApp(
      {
        StringEquals: {
          'aws:RequestTag/kubernetes-namespace': 'payments',
          'aws:RequestTag/kubernetes-service-account': 'api',
          'aws:RequestTag/eks-cluster-arn': `arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/prod`,
        },
        ArnEquals: { 'aws:PrincipalARN': APP },
      },
      `arn:aws:iam::${ACCOUNT}:root`,
    );
    expect(await setTrust(s, 'payments-data', trust(guide))).toBeUndefined();
    const otherNamespace = fromApp({ StringEquals: { 'aws:RequestTag/kubernetes-namespace': 'jobs' } });
    expect(await setTrust(s, 'payments-data', trust(otherNamespace))).toBe(
      `target role payments-data does not trust ${APP}`,
    );
  });

  it('the first hop carries no sts:ExternalId: requiring one fails whatever its value; the cluster is the source', async () => {
    const s = await start('wi-healthy-pod-identity-target-role');
    const needsId = trust(pods({ StringEquals: { 'sts:ExternalId': EXTERNAL_ID } }));
    expect(await setTrust(s, 'payments-api', needsId)).toBe(
      'role payments-api does not trust pods.eks.amazonaws.com for sts:AssumeRole and sts:TagSession',
    );
    const source = pods({
      StringEquals: { 'aws:SourceAccount': ACCOUNT },
      ArnEquals: { 'aws:SourceArn': `arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/prod` },
    });
    expect(await setTrust(s, 'payments-api', trust(source))).toBeUndefined();
  });

  it('the seeded first-hop case fails until its trust drops the condition', async () => {
    const s = await start('wi-pod-identity-role-trust-missing-external-id');
    expect(s.cluster('prod').credentialOutcomes.get(KEY)).toBe(
      'role payments-api does not trust pods.eks.amazonaws.com for sts:AssumeRole and sts:TagSession',
    );
    expect(await setTrust(s, 'payments-api', trust(pods()))).toBeUndefined();
  });
});
