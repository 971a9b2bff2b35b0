import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot, Finding } from '../../../shared/core/model.ts';
import { assessSnapshot } from '../../../shared/core/predict/engine.ts';
import { ACCOUNT, managedNodes, NODE_ROLE } from '../../support/snapshot-builder.ts';
import {
  APP_ROLE,
  association,
  IRSA_ROLE,
  ISSUER_PATH,
  irsaSnapshot,
  irsaTrust,
  PROVIDER_ARN,
  podIdentitySnapshot,
  podIdentityTrust,
  role,
} from '../../support/workload-identity-builder.ts';

const WORKLOAD = /^(pod-identity|irsa|workload-identity)\//;
const of = (findings: Finding[], id: string) => findings.filter((f) => f.ruleId === id);
const workload = (findings: Finding[]) => findings.filter((f) => WORKLOAD.test(f.ruleId));

describe('healthy clusters', () => {
  it('a healthy Pod Identity cluster and a healthy IRSA cluster give no workload-identity finding', () => {
    expect(workload(assessSnapshot(podIdentitySnapshot()))).toEqual([]);
    expect(workload(assessSnapshot(irsaSnapshot()))).toEqual([]);
  });
});

describe('pod-identity/role-trust-missing', () => {
  const trustOnly = (actions: string[]) => [role(APP_ROLE, podIdentityTrust(actions))];

  it('names the missing action, the service accounts and the trust statement to add', () => {
    const [f] = of(
      assessSnapshot(podIdentitySnapshot({ roles: trustOnly(['sts:AssumeRole']) })),
      'pod-identity/role-trust-missing',
    );
    expect(f?.severity).toBe('high');
    expect(f?.title).toContain('sts:TagSession');
    expect(f?.blastRadius?.serviceAccounts).toEqual(['apps/reader']);
    expect(f?.blastRadius?.namespaces).toEqual(['apps']);
    const added = JSON.parse(f?.remediation?.trustPolicyJson ?? '{}');
    expect(added.Statement[0]).toMatchObject({
      Effect: 'Allow',
      Principal: { Service: 'pods.eks.amazonaws.com' },
      Action: 'sts:TagSession',
    });
    expect(f?.remediation?.awsCli).toContain('update-assume-role-policy');
    expect(f?.remediation?.terraform).toContain('data "aws_iam_policy_document"');
  });

  it('does not need sts:TagSession when the association disables session tags', () => {
    const s = podIdentitySnapshot({
      roles: trustOnly(['sts:AssumeRole']),
      associations: [association({ disableSessionTags: true })],
    });
    expect(of(assessSnapshot(s), 'pod-identity/role-trust-missing')).toEqual([]);
  });

  it('says "could not evaluate" at lower severity when a condition cannot be decided, never a certain finding', () => {
    const trust = JSON.stringify({
      Statement: {
        Effect: 'Allow',
        Principal: { Service: 'pods.eks.amazonaws.com' },
        Action: ['sts:AssumeRole', 'sts:TagSession'],
        Condition: { StringEquals: { 'aws:PrincipalTag/team': 'data' } },
      },
    });
    const [f, ...rest] = of(
      assessSnapshot(podIdentitySnapshot({ roles: [role(APP_ROLE, trust)] })),
      'pod-identity/role-trust-missing',
    );
    expect(rest).toEqual([]);
    expect(f?.severity).toBe('medium');
    expect(f?.title).toMatch(/^Could not evaluate/);
    expect(f?.detail).toContain('aws:PrincipalTag/team');
    expect(f?.evidence.verdict).toBe('unknown');
  });

  it('reports an unreadable trust policy as not evaluated, without throwing', () => {
    const [f] = of(
      assessSnapshot(podIdentitySnapshot({ roles: [role(APP_ROLE, '{"Statement": [')] })),
      'pod-identity/role-trust-missing',
    );
    expect(f?.severity).toBe('medium');
    expect(f?.detail).toContain('could not be read');
  });

  it('checks that a cross-account targetRoleArn trusts the association role', () => {
    const target = 'arn:aws:iam::444455556666:role/cross';
    const trusting = JSON.stringify({
      Statement: [
        { Effect: 'Allow', Principal: { AWS: APP_ROLE }, Action: ['sts:AssumeRole', 'sts:TagSession'] },
      ],
    });
    const base = { associations: [association({ targetRoleArn: target })] };
    const ok = podIdentitySnapshot({
      ...base,
      roles: [role(APP_ROLE, podIdentityTrust()), role(target, trusting)],
    });
    expect(of(assessSnapshot(ok), 'pod-identity/role-trust-missing')).toEqual([]);
    const broken = podIdentitySnapshot({
      ...base,
      roles: [role(APP_ROLE, podIdentityTrust()), role(target, podIdentityTrust())],
    });
    const [f] = of(assessSnapshot(broken), 'pod-identity/role-trust-missing');
    expect(f?.subject).toBe(target);
    expect(f?.title).toContain(APP_ROLE);
  });

  describe('a targetRoleArn in another account (role chaining)', () => {
    const target = 'arn:aws:iam::444455556666:role/cross';
    const chained = (roles = [role(APP_ROLE, podIdentityTrust())]) =>
      podIdentitySnapshot({ associations: [association({ targetRoleArn: target })], roles });

    it('is not evaluated: one medium "Could not evaluate" naming the account, never role-not-found', () => {
      const findings = assessSnapshot(chained());
      expect(of(findings, 'pod-identity/role-not-found')).toEqual([]);
      const [f, ...rest] = of(findings, 'pod-identity/role-trust-missing');
      expect(rest).toEqual([]);
      expect(f?.severity).toBe('medium');
      expect(f?.subject).toBe(target);
      expect(f?.title).toBe(
        `Could not evaluate whether ${target} trusts ${APP_ROLE}: the role is in account 444455556666, outside this monitor's account ${ACCOUNT}`,
      );
      expect(f?.blastRadius?.serviceAccounts).toEqual(['apps/reader']);
      // The statement to add in that account; no CLI (its current trust, which the CLI replaces, is unknown).
      expect(f?.remediation?.awsCli).toBeUndefined();
      expect(JSON.parse(f?.remediation?.trustPolicyJson ?? '{}').Statement[0]).toEqual({
        Effect: 'Allow',
        Principal: { AWS: APP_ROLE },
        Action: ['sts:AssumeRole', 'sts:TagSession'],
      });
    });

    it('still checks the association role: it must trust pods.eks.amazonaws.com', () => {
      const findings = of(
        assessSnapshot(chained([role(APP_ROLE, podIdentityTrust(['sts:AssumeRole']))])),
        'pod-identity/role-trust-missing',
      );
      expect(findings.map((f) => [f.subject, f.severity])).toEqual([
        [APP_ROLE, 'high'],
        [target, 'medium'],
      ]);
    });
  });

  it('evaluates a same-account target whose trust names the account and aws:PrincipalArn (the EKS guide form)', () => {
    const target = `arn:aws:iam::${ACCOUNT}:role/chained`;
    const guideTrust = (principalArn: string) =>
      JSON.stringify({
        Statement: [
          {
            Effect: 'Allow',
            Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` },
            Action: ['sts:AssumeRole', 'sts:TagSession'],
            Condition: { ArnEquals: { 'aws:PrincipalARN': principalArn } },
          },
        ],
      });
    const snapshot = (trust: string) =>
      podIdentitySnapshot({
        associations: [association({ targetRoleArn: target })],
        roles: [role(APP_ROLE, podIdentityTrust()), role(target, trust)],
      });
    expect(of(assessSnapshot(snapshot(guideTrust(APP_ROLE))), 'pod-identity/role-trust-missing')).toEqual([]);
    const [f] = of(
      assessSnapshot(snapshot(guideTrust(`arn:aws:iam::${ACCOUNT}:role/someone-else`))),
      'pod-identity/role-trust-missing',
    );
    expect(f).toMatchObject({ severity: 'high', subject: target });
  });

  it('does not depend on the order of associations', () => {
    const associations = [
      association(),
      association({ associationId: 'a-2', serviceAccount: 'writer' }),
      association({ associationId: 'a-3', namespace: 'jobs' }),
    ];
    const roles = trustOnly(['sts:AssumeRole']);
    const a = assessSnapshot(podIdentitySnapshot({ associations, roles }));
    const b = assessSnapshot(podIdentitySnapshot({ associations: [...associations].reverse(), roles }));
    expect(b).toEqual(a);
    expect(of(a, 'pod-identity/role-trust-missing')[0]?.blastRadius?.serviceAccounts).toEqual([
      'apps/reader',
      'apps/writer',
      'jobs/reader',
    ]);
  });
});

describe('sources not read', () => {
  const broken = (s: ClusterSnapshot): ClusterSnapshot => ({
    ...s,
    iamRoles: {
      status: 'ok',
      data: [
        role(APP_ROLE, undefined, { state: 'missing' }),
        role(IRSA_ROLE, undefined, { state: 'missing' }),
      ],
    },
    addons: { status: 'ok', data: [] },
    serviceAccounts: {
      status: 'ok',
      data: [{ namespace: 'apps', name: 'other', roleArnAnnotation: IRSA_ROLE }],
    },
    oidcProviders: { status: 'ok', data: [] },
  });

  it('fire on the broken cluster when every source was read (the control)', () => {
    expect(workload(assessSnapshot(broken(podIdentitySnapshot()))).length).toBeGreaterThan(3);
  });

  for (const source of [
    'podIdentityAssociations',
    'addons',
    'oidcProviders',
    'serviceAccounts',
    'nodeRolePermissions',
    'iamRoles',
  ] as const) {
    it(`give no workload-identity finding that depends on ${source} when it failed, and name it blind`, () => {
      const s = {
        ...broken(podIdentitySnapshot()),
        [source]: { status: 'error', error: `AccessDenied: not authorized to perform ${source}` },
      } as ClusterSnapshot;
      const findings = assessSnapshot(s);
      const blind = of(findings, 'monitor/source-unavailable').find((f) => f.subject === source);
      expect(blind?.detail).toContain('AccessDenied');
      const rulesUsing: Record<typeof source, RegExp> = {
        podIdentityAssociations: /^(pod-identity|workload-identity)\//,
        addons: /^pod-identity\/agent-missing$/,
        oidcProviders: /^irsa\/oidc-provider-missing$/,
        serviceAccounts: /^(irsa|workload-identity)\/|^pod-identity\/service-account-missing$/,
        nodeRolePermissions: /^pod-identity\/node-role-cannot-assume$/,
        iamRoles: /role-not-found|trust-missing/,
      };
      expect(findings.filter((f) => rulesUsing[source].test(f.ruleId))).toEqual([]);
    });
  }

  it('give nothing on an old snapshot without the workload-identity sources', () => {
    const s = podIdentitySnapshot();
    const {
      podIdentityAssociations: _,
      addons: _a,
      oidcProviders: _o,
      serviceAccounts: _s,
      nodeRolePermissions: _n,
      ...old
    } = s;
    expect(workload(assessSnapshot(old as ClusterSnapshot))).toEqual([]);
    expect(of(assessSnapshot(old as ClusterSnapshot), 'monitor/source-unavailable')).toEqual([]);
  });
});

describe('pod-identity/agent-missing and node-role-cannot-assume', () => {
  it('fires for a DEGRADED agent and stays silent without associations', () => {
    expect(
      of(assessSnapshot(podIdentitySnapshot({ agentStatus: 'DEGRADED' })), 'pod-identity/agent-missing'),
    ).toHaveLength(1);
    expect(
      of(
        assessSnapshot(podIdentitySnapshot({ agentStatus: null, associations: [] })),
        'pod-identity/agent-missing',
      ),
    ).toEqual([]);
  });

  it('names the nodes and the service accounts; an explicit deny says attaching is not enough', () => {
    const s = podIdentitySnapshot({ compute: managedNodes(3) });
    const f = of(
      assessSnapshot({
        ...s,
        nodeRolePermissions: {
          status: 'ok',
          data: [
            { roleArn: NODE_ROLE, action: 'eks-auth:AssumeRoleForPodIdentity', decision: 'explicitDeny' },
          ],
        },
      }),
      'pod-identity/node-role-cannot-assume',
    )[0];
    expect(f?.blastRadius?.nodeCount).toBe(3);
    expect(f?.blastRadius?.serviceAccounts).toEqual(['apps/reader']);
    expect(f?.detail).toContain('Deny');
    expect(f?.remediation?.awsCli).toContain('arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy');
  });

  it('ignores a denied role that no node uses', () => {
    const s = podIdentitySnapshot();
    const other = `arn:aws:iam::${ACCOUNT}:role/unused`;
    const findings = assessSnapshot({
      ...s,
      nodeRolePermissions: {
        status: 'ok',
        data: [{ roleArn: other, action: 'eks-auth:AssumeRoleForPodIdentity', decision: 'implicitDeny' }],
      },
    });
    expect(of(findings, 'pod-identity/node-role-cannot-assume')).toEqual([]);
  });
});

describe('pod-identity/unsupported-compute', () => {
  it('fires when only Windows nodes run, not when a Linux node runs too', () => {
    const windows = managedNodes(2).map((n) => ({ ...n, os: 'windows' as const }));
    expect(
      of(assessSnapshot(podIdentitySnapshot({ compute: windows })), 'pod-identity/unsupported-compute'),
    ).toHaveLength(1);
    expect(
      of(
        assessSnapshot(podIdentitySnapshot({ compute: [...windows, ...managedNodes(1)] })),
        'pod-identity/unsupported-compute',
      ),
    ).toEqual([]);
  });
});

describe('IRSA rules', () => {
  it('names the blue issuer breakage per role with the statement for this cluster’s provider', () => {
    const s = irsaSnapshot({
      roles: [role(IRSA_ROLE, irsaTrust('oidc.eks.eu-west-1.amazonaws.com/id/BLUE'))],
      serviceAccounts: [
        { namespace: 'apps', name: 'web', roleArnAnnotation: IRSA_ROLE },
        { namespace: 'apps', name: 'api', roleArnAnnotation: ` ${IRSA_ROLE}` },
      ],
    });
    const [f, ...rest] = of(assessSnapshot(s), 'irsa/trust-missing-cluster-issuer');
    expect(rest).toEqual([]);
    expect(f?.severity).toBe('high');
    expect(f?.blastRadius?.serviceAccounts).toEqual(['apps/api', 'apps/web']);
    const stmt = JSON.parse(f?.remediation?.trustPolicyJson ?? '{}').Statement[0];
    expect(stmt.Principal).toEqual({ Federated: PROVIDER_ARN });
    expect(stmt.Condition.StringEquals[`${ISSUER_PATH}:sub`]).toEqual([
      'system:serviceaccount:apps:api',
      'system:serviceaccount:apps:web',
    ]);
  });

  it('fires for a service account whose sub the trust does not list, not for the one it lists', () => {
    const s = irsaSnapshot({
      serviceAccounts: [
        { namespace: 'apps', name: 'web', roleArnAnnotation: IRSA_ROLE },
        { namespace: 'apps', name: 'other', roleArnAnnotation: IRSA_ROLE },
      ],
    });
    expect(
      of(assessSnapshot(s), 'irsa/trust-missing-cluster-issuer')[0]?.blastRadius?.serviceAccounts,
    ).toEqual(['apps/other']);
  });

  it('matches the provider URL case-insensitively and with a trailing slash', () => {
    const s = irsaSnapshot({ providers: [`${ISSUER_PATH.toUpperCase()}/`] });
    expect(of(assessSnapshot(s), 'irsa/oidc-provider-missing')).toEqual([]);
  });

  it('stays silent when no service account uses IRSA', () => {
    const s = irsaSnapshot({ providers: [], serviceAccounts: [{ namespace: 'apps', name: 'web' }] });
    expect(workload(assessSnapshot(s))).toEqual([]);
  });

  describe("irsa/oidc-provider-missing: the provider exists but does not list the tokens' audience", () => {
    const audienceFindings = (s: ClusterSnapshot) => of(assessSnapshot(s), 'irsa/oidc-provider-missing');
    /** A trust for apps/web whose `aud` condition is `aud` (as written: string, pattern or variable). */
    const trustWithAud = (operator: string, aud: string) =>
      JSON.stringify({
        Statement: [
          {
            Effect: 'Allow',
            Principal: { Federated: PROVIDER_ARN },
            Action: 'sts:AssumeRoleWithWebIdentity',
            Condition: {
              StringEquals: { [`${ISSUER_PATH}:sub`]: 'system:serviceaccount:apps:web' },
              [operator]: { [`${ISSUER_PATH}:aud`]: aud },
            },
          },
        ],
      });

    it('fires (high) when the client IDs lack sts.amazonaws.com, naming the provider, the service accounts and the fix', () => {
      const [f, ...rest] = audienceFindings(irsaSnapshot({ clientIds: ['sigstore'] }));
      expect(rest).toEqual([]);
      expect(f?.severity).toBe('high');
      expect(f?.subject).toBe(PROVIDER_ARN);
      expect(f?.title).toContain('does not list sts.amazonaws.com');
      expect(f?.detail).toContain('lists only sigstore');
      expect(f?.blastRadius?.serviceAccounts).toEqual(['apps/web']);
      expect(f?.remediation?.awsCli).toContain('add-client-id-to-open-id-connect-provider');
      expect(f?.remediation?.awsCli).toContain('sts.amazonaws.com');
      expect(f?.remediation?.terraform).toMatch(
        /client_id_list\s*=\s*\[\s*"sigstore",\s*"sts\.amazonaws\.com"\s*\]/,
      );
      // Not the "no provider" finding: its fingerprint differs.
      const [missing] = audienceFindings(
        irsaSnapshot({ providers: ['oidc.eks.eu-west-1.amazonaws.com/id/BLUE'] }),
      );
      expect(missing?.fingerprint).not.toBe(f?.fingerprint);
    });

    it('names the first five client IDs only (IAM allows 100)', () => {
      const clientIds = Array.from({ length: 7 }, (_, i) => `aud-${i}`);
      const [f] = audienceFindings(irsaSnapshot({ clientIds }));
      expect(f?.detail).toContain('lists only aud-0, aud-1, aud-2, aud-3, aud-4 and 2 more.');
      expect(f?.evidence?.clientIds).toEqual(clientIds);
    });

    it('fires on an empty client-ID list too', () => {
      expect(audienceFindings(irsaSnapshot({ clientIds: [] }))[0]?.detail).toContain('lists no client ID');
    });

    it('stays silent when sts.amazonaws.com is listed, or the client IDs were not read (an older snapshot)', () => {
      expect(audienceFindings(irsaSnapshot({ clientIds: ['sigstore', 'sts.amazonaws.com'] }))).toEqual([]);
      expect(audienceFindings(irsaSnapshot({ clientIds: null }))).toEqual([]);
    });

    it('stays silent when the trust expects a custom audience the provider lists', () => {
      const roles = [role(IRSA_ROLE, trustWithAud('StringEquals', 'my-audience'))];
      expect(audienceFindings(irsaSnapshot({ roles, clientIds: ['my-audience'] }))).toEqual([]);
      // StringLike patterns are matched against the listed client IDs as well.
      const like = [role(IRSA_ROLE, trustWithAud('StringLike', 'my-*'))];
      expect(audienceFindings(irsaSnapshot({ roles: like, clientIds: ['my-audience'] }))).toEqual([]);
    });

    it('leaves a trust that refuses the default audience too to irsa/trust-missing-cluster-issuer', () => {
      const roles = [role(IRSA_ROLE, trustWithAud('StringEquals', 'other'))];
      const findings = assessSnapshot(irsaSnapshot({ roles, clientIds: ['sigstore'] }));
      expect(of(findings, 'irsa/oidc-provider-missing')).toEqual([]);
      expect(of(findings, 'irsa/trust-missing-cluster-issuer')).toHaveLength(1);
    });

    it('says "could not evaluate" (medium) when the audience condition cannot be decided, never a certain finding', () => {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an IAM policy variable, not a template
      const roles = [role(IRSA_ROLE, trustWithAud('StringEquals', '${aws:PrincipalTag/aud}'))];
      const [f, ...rest] = audienceFindings(irsaSnapshot({ roles, clientIds: ['sigstore'] }));
      expect(rest).toEqual([]);
      expect(f?.severity).toBe('medium');
      expect(f?.title).toMatch(/^Could not evaluate/);
    });
  });
});
