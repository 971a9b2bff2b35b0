/**
 * Workload identity over the real SDK clients against the sandbox: Pod Identity associations,
 * the agent add-on, service accounts, IAM OIDC providers, trust policies (GetRole, URL-encoded on
 * the wire) and SimulatePrincipalPolicy of the node roles; a 403 on a new source names the
 * permission in `monitor/source-unavailable`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { assessSnapshot } from '../../shared/core/predict/engine.ts';
import { validateSnapshot } from '../../shared/core/snapshot/snapshot-schema.ts';
import type { CaptureDeps } from '../../shared/ports.ts';
import { callsOf, loadScenario, sandboxDeps } from '../support/sandbox-helpers.ts';

const REGION = 'eu-west-1';
const ROLE = (name: string) => `arn:aws:iam::111122223333:role/${name}`;

describe('captureSnapshot: workload identity', () => {
  let sandbox: Sandbox;
  let deps: CaptureDeps;
  const seeds = {
    pod: loadScenario('workload-identity/wi-healthy-pod-identity'),
    irsa: loadScenario('workload-identity/wi-healthy-irsa'),
  };
  beforeAll(async () => {
    sandbox = await startSandbox({
      clusters: [
        { snapshot: seeds.pod, name: 'prod' },
        { snapshot: seeds.irsa, name: 'irsa' },
      ],
    });
    deps = sandboxDeps(sandbox);
  });
  afterAll(async () => sandbox.close());
  beforeEach(() => {
    sandbox.faults.clear();
    sandbox.calls.length = 0;
  });

  const capture = async (name: string): Promise<ClusterSnapshot> => {
    const snapshot = await captureSnapshot(deps, { region: REGION, clusterName: name });
    expect(validateSnapshot(JSON.parse(JSON.stringify(snapshot)))).toMatchObject({ ok: true });
    return snapshot;
  };

  it('reads associations, the agent, service accounts, the issuer and node-role permissions as the seed holds them', async () => {
    const s = await capture('prod');
    const iso = (t: string | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
    const seeded =
      seeds.pod.podIdentityAssociations?.status === 'ok' ? seeds.pod.podIdentityAssociations.data : [];
    expect(s.podIdentityAssociations).toEqual({
      status: 'ok',
      data: seeded.map((a) => ({ ...a, createdAt: iso(a.createdAt), modifiedAt: iso(a.modifiedAt) })),
    });
    expect(s.addons).toEqual({
      status: 'ok',
      data: [
        { name: 'eks-pod-identity-agent', status: 'ACTIVE', version: 'v1.3.4-eksbuild.1', healthIssues: [] },
        { name: 'vpc-cni', healthIssues: [] },
      ],
    });
    expect(s.serviceAccounts).toEqual(seeds.pod.serviceAccounts);
    expect(s.cluster.oidcIssuer).toMatch(/^https:\/\/oidc\.eks\.eu-west-1\.amazonaws\.com\/id\//);
    expect(s.nodeRolePermissions).toEqual({
      status: 'ok',
      data: [
        { roleArn: ROLE('prod-node-role'), action: 'eks-auth:AssumeRoleForPodIdentity', decision: 'allowed' },
      ],
    });
    // Only the agent is described; every role read once.
    expect(callsOf(sandbox, 'eks', 'DescribeAddon')).toHaveLength(1);
    const roleReads = callsOf(sandbox, 'iam', 'GetRole').length;
    expect(roleReads).toBe(s.iamRoles.status === 'ok' ? s.iamRoles.data.length : -1);
  });

  it('keeps the URL-decoded trust policy of workload roles only', async () => {
    const s = await capture('prod');
    if (s.iamRoles.status !== 'ok') throw new Error(s.iamRoles.status);
    const workload = s.iamRoles.data.find((r) => r.arn === ROLE('payments-api'));
    const seeded = seeds.pod.iamRoles.status === 'ok' ? seeds.pod.iamRoles.data : [];
    expect(workload?.trustPolicy).toBe(seeded.find((r) => r.arn === ROLE('payments-api'))?.trustPolicy);
    expect(JSON.parse(workload?.trustPolicy ?? 'null')).toMatchObject({
      Statement: [{ Principal: { Service: 'pods.eks.amazonaws.com' } }],
    });
    expect(s.iamRoles.data.find((r) => r.arn === ROLE('prod-node-role'))?.trustPolicy).toBeUndefined();
  });

  it('asks IAM about node roles only where Pod Identity is in use, and reads the IRSA role and OIDC provider', async () => {
    const s = await capture('irsa');
    expect(s.nodeRolePermissions).toMatchObject({ status: 'absent' });
    expect(callsOf(sandbox, 'iam', 'SimulatePrincipalPolicy')).toHaveLength(0);
    expect(s.oidcProviders).toMatchObject({ status: 'ok' });
    if (s.iamRoles.status !== 'ok') throw new Error(s.iamRoles.status);
    expect(s.iamRoles.data.find((r) => r.arn === ROLE('payments-api-irsa'))?.trustPolicy).toContain(
      'sts:AssumeRoleWithWebIdentity',
    );
  });

  it('sees a node role whose worker policy was detached as denied', async () => {
    const role = sandbox.iamRoles.get('prod-node-role');
    if (role === undefined) throw new Error('no node role');
    const before = role.attachedPolicies;
    role.attachedPolicies = [];
    try {
      const s = await capture('prod');
      expect(s.nodeRolePermissions).toMatchObject({ status: 'ok', data: [{ decision: 'implicitDeny' }] });
    } finally {
      if (before === undefined) delete role.attachedPolicies;
      else role.attachedPolicies = before;
    }
  });

  it.each([
    ['iam', 'SimulatePrincipalPolicy', 'nodeRolePermissions', 'iam:SimulatePrincipalPolicy'],
    ['iam', 'ListOpenIDConnectProviders', 'oidcProviders', 'iam:ListOpenIDConnectProviders'],
    ['eks', 'ListPodIdentityAssociations', 'podIdentityAssociations', 'eks:ListPodIdentityAssociations'],
    ['kube', 'ListServiceAccounts', 'serviceAccounts', 'serviceaccounts'],
  ] as const)(
    'a 403 on %s %s leaves %s an error naming %s, reported by monitor/source-unavailable',
    async (service, operation, source, permission) => {
      sandbox.faults.inject({
        service,
        operation,
        status: 403,
        code: service === 'kube' ? 'Forbidden' : service === 'iam' ? 'AccessDenied' : 'AccessDeniedException',
      });
      const s = await capture('prod');
      expect(s[source]).toMatchObject({ status: 'error', error: expect.stringContaining(permission) });
      const findings = assessSnapshot(s).filter((f) => f.ruleId === 'monitor/source-unavailable');
      expect(findings.map((f) => f.subject)).toContain(source);
      expect(findings.find((f) => f.subject === source)?.detail).toContain(permission);
    },
  );

  describe("the cluster's own IAM OIDC provider: its client IDs", () => {
    const OWN = 'arn:aws:iam::111122223333:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/PROD';
    const OTHER = 'arn:aws:iam::111122223333:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/BLUE';

    it('reads GetOpenIDConnectProvider for that provider only, whatever the number of providers', async () => {
      sandbox.oidcProviders.push(OTHER);
      try {
        const s = await capture('irsa');
        expect(s.oidcProviders).toEqual({
          status: 'ok',
          data: [
            { arn: OWN, url: 'oidc.eks.eu-west-1.amazonaws.com/id/PROD', clientIds: ['sts.amazonaws.com'] },
            { arn: OTHER, url: 'oidc.eks.eu-west-1.amazonaws.com/id/BLUE' },
          ],
        });
        expect(callsOf(sandbox, 'iam', 'GetOpenIDConnectProvider')).toHaveLength(1);
      } finally {
        sandbox.oidcProviders.splice(sandbox.oidcProviders.indexOf(OTHER), 1);
      }
    });

    it('sees a provider that lost sts.amazonaws.com, and irsa/oidc-provider-missing says the tokens are refused', async () => {
      sandbox.oidcProviderClientIds.set(OWN, ['sts.amazon.com']);
      try {
        const s = await capture('irsa');
        expect(s.oidcProviders).toMatchObject({
          status: 'ok',
          data: [{ arn: OWN, clientIds: ['sts.amazon.com'] }],
        });
        const [f, ...rest] = assessSnapshot(s).filter((x) => x.ruleId === 'irsa/oidc-provider-missing');
        expect(rest).toEqual([]);
        expect(f).toMatchObject({ severity: 'high', subject: OWN });
        expect(f?.blastRadius?.serviceAccounts).toEqual(['payments/api']);
      } finally {
        sandbox.oidcProviderClientIds.delete(OWN);
      }
    });

    it('a provider deleted between the list and the get (NoSuchEntity) is no provider', async () => {
      sandbox.faults.inject({
        service: 'iam',
        operation: 'GetOpenIDConnectProvider',
        status: 404,
        code: 'NoSuchEntity',
      });
      const s = await capture('irsa');
      expect(s.oidcProviders).toEqual({ status: 'ok', data: [] });
      expect(assessSnapshot(s).map((f) => f.ruleId)).toContain('irsa/oidc-provider-missing');
    });

    it('a 403 on GetOpenIDConnectProvider leaves oidcProviders an error naming the permission, and no IRSA finding', async () => {
      sandbox.faults.inject({
        service: 'iam',
        operation: 'GetOpenIDConnectProvider',
        status: 403,
        code: 'AccessDenied',
      });
      const s = await capture('irsa');
      expect(s.oidcProviders).toMatchObject({
        status: 'error',
        error: expect.stringContaining('iam:GetOpenIDConnectProvider'),
      });
      const findings = assessSnapshot(s);
      expect(
        findings.find((f) => f.ruleId === 'monitor/source-unavailable' && f.subject === 'oidcProviders')
          ?.detail,
      ).toContain('iam:GetOpenIDConnectProvider');
      expect(findings.filter((f) => /^(irsa|pod-identity|workload-identity)\//.test(f.ruleId))).toEqual([]);
    });
  });

  it('keeps the externalId EKS answers for a targetRoleArn (the target hop’s sts:ExternalId)', async () => {
    const cluster = sandbox.cluster('prod', REGION);
    const before = cluster.podIdentityAssociations.map((x) => ({ ...x }));
    cluster.podIdentityAssociations = before.map((x) => ({
      ...x,
      targetRoleArn: ROLE('payments-data'),
      externalId: 'e7c1a0b94f2d4c8a9b3e5f6a7d8c9b0a',
    }));
    try {
      const s = await capture('prod');
      expect(s.podIdentityAssociations).toMatchObject({
        status: 'ok',
        data: [{ targetRoleArn: ROLE('payments-data'), externalId: 'e7c1a0b94f2d4c8a9b3e5f6a7d8c9b0a' }],
      });
    } finally {
      cluster.podIdentityAssociations = before;
    }
  });

  it('does not read a cross-account targetRoleArn, and says its trust was not evaluated', async () => {
    const target = 'arn:aws:iam::444455556666:role/payments-s3-writer';
    const cluster = sandbox.cluster('prod', REGION);
    const before = cluster.podIdentityAssociations.map((x) => ({ ...x }));
    cluster.podIdentityAssociations = before.map((x) => ({ ...x, targetRoleArn: target }));
    try {
      const s = await capture('prod');
      expect(s.podIdentityAssociations).toMatchObject({ status: 'ok', data: [{ targetRoleArn: target }] });
      // GetRole with the monitor's credentials would look in the wrong account.
      if (s.iamRoles.status !== 'ok') throw new Error(s.iamRoles.status);
      expect(s.iamRoles.data.map((r) => r.arn)).not.toContain(target);
      const findings = assessSnapshot(s);
      expect(findings.filter((f) => f.ruleId === 'pod-identity/role-not-found')).toEqual([]);
      expect(
        findings
          .filter((f) => f.ruleId === 'pod-identity/role-trust-missing')
          .map((f) => [f.subject, f.severity]),
      ).toEqual([[target, 'medium']]);
    } finally {
      cluster.podIdentityAssociations = before;
    }
  });
});
