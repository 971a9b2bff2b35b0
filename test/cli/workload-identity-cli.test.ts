import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/run-cli.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { createFakeIo } from '../support/fake-io.ts';
import { ACCOUNT, NODE_ROLE } from '../support/snapshot-builder.ts';
import {
  APP_ROLE,
  association,
  IRSA_ROLE,
  irsaSnapshot,
  irsaTrust,
  podIdentitySnapshot,
  podIdentityTrust,
  role,
} from '../support/workload-identity-builder.ts';

async function run(argv: string[], files: Record<string, ClusterSnapshot>) {
  const fake = createFakeIo(
    Object.fromEntries(Object.entries(files).map(([k, v]) => [k, JSON.stringify(v)])),
  );
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

const GREEN_ISSUER = 'https://oidc.eks.eu-west-1.amazonaws.com/id/GREEN0000000000000000000000000000';

/** Blue: IRSA for apps/web (trust names blue's issuer), a CI role with an access entry. */
function blue(): ClusterSnapshot {
  const s = irsaSnapshot({
    entries: [
      {
        principalArn: `arn:aws:iam::${ACCOUNT}:role/ci-deploy`,
        type: 'STANDARD',
        kubernetesGroups: ['deployers'],
        accessPolicies: [
          {
            policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy',
            accessScope: { type: 'namespace', namespaces: ['apps'] },
          },
        ],
      },
      {
        principalArn: `arn:aws:iam::${ACCOUNT}:role/argocd`,
        type: 'STANDARD',
        kubernetesGroups: ['gitops'],
        accessPolicies: [],
      },
    ],
  });
  return s;
}

/** Green: a new cluster (new issuer and ARN), argocd with another group, ci-deploy missing. */
function green(): ClusterSnapshot {
  const b = blue();
  const issuerPath = GREEN_ISSUER.slice('https://'.length);
  return {
    ...b,
    clusterName: 'prod-green',
    clusterArn: `arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/prod-green`,
    cluster: { ...b.cluster, oidcIssuer: GREEN_ISSUER },
    accessEntries: {
      status: 'ok',
      data: [
        {
          principalArn: `arn:aws:iam::${ACCOUNT}:role/argocd`,
          type: 'STANDARD',
          kubernetesGroups: ['viewers'],
          accessPolicies: [],
        },
      ],
    },
    oidcProviders: {
      status: 'ok',
      data: [
        ...(b.oidcProviders?.status === 'ok' ? b.oidcProviders.data : []),
        {
          arn: `arn:aws:iam::${ACCOUNT}:oidc-provider/${issuerPath}`,
          url: issuerPath,
          clientIds: ['sts.amazonaws.com'],
        },
      ],
    },
  };
}

describe('compare', () => {
  it('lists exactly the seeded differences of a blue/green pair, with one fix block and the Pod Identity plan', async () => {
    const { code, out } = await run(
      ['compare', '--from', 'blue.json', '--to', 'green.json', '--format', 'json'],
      {
        'blue.json': blue(),
        'green.json': green(),
      },
    );
    expect(code).toBe(1);
    const report = JSON.parse(out);
    const got = report.findings
      .map((f: { ruleId: string; subject: string }) => `${f.ruleId} ${f.subject}`)
      .sort();
    expect(got).toEqual([
      `parity/access-differs arn:aws:iam::${ACCOUNT}:role/argocd`,
      `parity/access-missing arn:aws:iam::${ACCOUNT}:role/ci-deploy`,
      'parity/workload-identity-missing apps/web',
    ]);
    expect(report.fixAll.awsCli).toContain('create-access-entry');
    expect(report.fixAll.awsCli).toContain('associate-access-policy');
    expect(report.fixAll.terraform).toContain('aws_eks_access_entry');
    expect(report.fixAll.terraform).toContain('aws_eks_pod_identity_association');
    expect(report.podIdentityPlan.steps).toEqual([
      { namespace: 'apps', serviceAccount: 'web', roleArn: IRSA_ROLE, trustToAdd: true },
    ]);
    expect(report.podIdentityPlan.remediation.awsCli).toContain('create-pod-identity-association');
    expect(JSON.parse(report.podIdentityPlan.remediation.trustPolicyJson).Statement[0].Principal).toEqual({
      Service: 'pods.eks.amazonaws.com',
    });
  });

  it('reports nothing for a cluster compared with itself (exit 0)', async () => {
    for (const s of [blue(), podIdentitySnapshot()]) {
      const { code, out } = await run(['compare', '--from', 'a.json', '--to', 'a.json', '--format', 'json'], {
        'a.json': s,
      });
      expect(code).toBe(0);
      const report = JSON.parse(out);
      expect(report.findings).toEqual([]);
      expect(report.fixAll).toBeUndefined();
    }
  });

  it('accepts a target whose IRSA trust names both issuers, or which moved to Pod Identity', async () => {
    const both = green();
    const trust = JSON.parse(irsaTrust());
    trust.Statement.push(JSON.parse(irsaTrust(GREEN_ISSUER.slice(8))).Statement[0]);
    both.iamRoles = { status: 'ok', data: [role(IRSA_ROLE, JSON.stringify(trust))] };
    const moved = green();
    moved.iamRoles = { status: 'ok', data: [role(IRSA_ROLE, podIdentityTrust())] };
    moved.podIdentityAssociations = {
      status: 'ok',
      data: [association({ serviceAccount: 'web', roleArn: IRSA_ROLE })],
    };
    moved.serviceAccounts = { status: 'ok', data: [{ namespace: 'apps', name: 'web' }] };
    for (const to of [both, moved]) {
      const { out } = await run(
        ['compare', '--from', 'blue.json', '--to', 'green.json', '--format', 'json'],
        {
          'blue.json': blue(),
          'green.json': to,
        },
      );
      const ids = JSON.parse(out).findings.map((f: { ruleId: string }) => f.ruleId);
      expect(ids).not.toContain('parity/workload-identity-missing');
    }
  });

  it('prints the findings, the fix block and the plan as text', async () => {
    const { out } = await run(['compare', '--from', 'blue.json', '--to', 'green.json'], {
      'blue.json': blue(),
      'green.json': green(),
    });
    expect(out).toContain('Fix all, in one block');
    expect(out).toContain('IRSA → Pod Identity plan');
  });

  it('refuses a side given twice or not at all (exit 2)', async () => {
    const twice = await run(['compare', '--from', 'a.json', '--from-cluster', 'x', '--to', 'a.json'], {
      'a.json': blue(),
    });
    expect(twice.code).toBe(2);
    expect(twice.err).toContain('--from FILE or --from-cluster NAME');
    const none = await run(['compare', '--from', 'a.json'], { 'a.json': blue() });
    expect(none.code).toBe(2);
    expect(none.err).toContain('compare needs --to FILE or --to-cluster NAME');
  });
});

describe('whatif --delete-role', () => {
  it('lists what breaks for Pod Identity, IRSA and nodes when the role goes', async () => {
    const s = podIdentitySnapshot({
      mode: 'API',
      entries: [
        {
          principalArn: NODE_ROLE,
          type: 'EC2_LINUX',
          kubernetesGroups: [],
          accessPolicies: [],
          createdAt: '2025-02-01T00:00:00Z',
        },
      ],
      roles: [role(APP_ROLE, podIdentityTrust()), role(NODE_ROLE)],
    });
    const pod = await run(['whatif', '--snapshot', 's.json', '--delete-role', APP_ROLE, '--format', 'json'], {
      's.json': s,
    });
    expect(JSON.parse(pod.out).findings.map((f: { ruleId: string }) => f.ruleId)).toContain(
      'pod-identity/role-not-found',
    );
    const node = await run(
      ['whatif', '--snapshot', 's.json', '--delete-role', NODE_ROLE, '--format', 'json'],
      { 's.json': s },
    );
    expect(node.code).toBe(1);
    const ids = JSON.parse(node.out).findings.map((f: { ruleId: string }) => f.ruleId);
    expect(ids).toContain('nodes/role-unauthorized');
    expect(ids).toContain('pod-identity/node-role-cannot-assume');
  });

  it('names the broken nodes in CONFIG_MAP mode too, where aws-auth still maps the deleted role', async () => {
    const s = podIdentitySnapshot({
      mode: 'CONFIG_MAP',
      roles: [role(APP_ROLE, podIdentityTrust()), role(NODE_ROLE)],
    });
    const { out } = await run(
      ['whatif', '--snapshot', 's.json', '--delete-role', NODE_ROLE, '--format', 'json'],
      { 's.json': s },
    );
    const f = JSON.parse(out).findings.find(
      (x: { ruleId: string }) => x.ruleId === 'nodes/role-unauthorized',
    );
    expect(f.detail).toContain('does not exist');
  });

  it('lists the IRSA service accounts that lose the role', async () => {
    const { out } = await run(
      ['whatif', '--snapshot', 's.json', '--delete-role', IRSA_ROLE, '--format', 'json'],
      { 's.json': irsaSnapshot() },
    );
    const f = JSON.parse(out).findings.find((x: { ruleId: string }) => x.ruleId === 'irsa/role-not-found');
    expect(f.blastRadius.serviceAccounts).toEqual(['apps/web']);
  });

  it('answers that nothing in the cluster uses a role, with exit 0, in every format', async () => {
    const nobody = `arn:aws:iam::${ACCOUNT}:role/team/nobody`;
    for (const format of ['text', 'markdown', 'json']) {
      const r = await run(['whatif', '--snapshot', 's.json', '--delete-role', nobody, '--format', format], {
        's.json': irsaSnapshot(),
      });
      expect({ format, code: r.code, err: r.err }).toEqual({ format, code: 0, err: '' });
      const text = format === 'json' ? JSON.parse(r.out).effects[0].summary : r.out.replace(/\s+/g, ' ');
      expect(text).toContain(`Nothing in cluster prod uses role nobody of account ${ACCOUNT}`);
      if (format === 'json') expect(JSON.parse(r.out).findings).toEqual([]);
    }
  });

  it('says which sources it could not read instead of "nothing uses it"', async () => {
    const s = { ...irsaSnapshot(), compute: { status: 'error' as const, error: 'AccessDenied' } };
    const r = await run(
      [
        'whatif',
        '--snapshot',
        's.json',
        '--delete-role',
        `arn:aws:iam::${ACCOUNT}:role/nobody`,
        '--format',
        'json',
      ],
      { 's.json': s },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).effects).toEqual([
      {
        summary: `Nothing read of cluster prod uses role nobody of account ${ACCOUNT}; not read, so unknown: nodes`,
        assumed: true,
      },
    ]);
  });

  it('still simulates a role only aws-auth or an access entry names (a human principal)', async () => {
    const human = `arn:aws:iam::${ACCOUNT}:role/ci-deploy`;
    const s = irsaSnapshot({
      entries: [
        { principalArn: human, type: 'STANDARD', kubernetesGroups: ['deployers'], accessPolicies: [] },
      ],
    });
    const r = await run(['whatif', '--snapshot', 's.json', '--delete-role', human, '--format', 'json'], {
      's.json': s,
    });
    expect(JSON.parse(r.out).effects[0].summary).not.toContain('Nothing');
  });

  it('refuses a string that is no role ARN (exit 2)', async () => {
    const bad = await run(['whatif', '--snapshot', 's.json', '--delete-role', 'nobody'], {
      's.json': irsaSnapshot(),
    });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('needs an IAM role ARN');
  });
});
