import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { compareClusters, podIdentityPlanOf } from '../../shared/core/parity/compare.ts';
import { compareSnapshots } from '../../shared/core/predict/engine.ts';
import {
  ACCOUNT,
  buildSnapshot,
  ec2Entry,
  loadScenario,
  NODE_ROLE,
  ROOT,
} from '../support/snapshot-builder.ts';
import {
  IRSA_ROLE,
  irsaSnapshot,
  movedIssuer,
  podIdentitySnapshot,
} from '../support/workload-identity-builder.ts';

const ids = (s: ReturnType<typeof compareSnapshots>) => s.map((f) => `${f.ruleId} ${f.subject}`);

describe('compare', () => {
  it('reports nothing for any scenario compared with itself, workload-identity ones included', () => {
    const names = [
      ...readdirSync(join(ROOT, 'scenarios')),
      ...readdirSync(join(ROOT, 'scenarios', 'workload-identity')).map((n) => `workload-identity/${n}`),
    ].filter((n) => n.endsWith('.json'));
    expect(names.length).toBeGreaterThan(20);
    for (const n of names) {
      const s = loadScenario(n.replace(/\.json$/, ''));
      expect(compareSnapshots(s, structuredClone(s)), n).toEqual([]);
    }
  });

  it('counts a node identity as missing only where the target runs compute with that role', () => {
    const other = `arn:aws:iam::${ACCOUNT}:role/blue-only-nodes`;
    const from = buildSnapshot({ mode: 'API', entries: [ec2Entry(), ec2Entry(other)] });
    const to = buildSnapshot({ mode: 'API', entries: [] });
    expect(ids(compareSnapshots(from, to))).toEqual([`parity/access-missing ${NODE_ROLE}`]);
  });

  it('turns system:masters into AmazonEKSClusterAdminPolicy on an access-entry target, and says so', () => {
    const admin = `arn:aws:iam::${ACCOUNT}:role/platform-admin`;
    const from = buildSnapshot({
      mapRoles: `- rolearn: ${NODE_ROLE}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes\n- rolearn: ${admin}\n  username: admin\n  groups:\n    - system:masters\n`,
    });
    const to = buildSnapshot({ mode: 'API', entries: [ec2Entry()] });
    const [f] = compareSnapshots(from, to);
    expect(f?.ruleId).toBe('parity/access-missing');
    expect(f?.remediation?.awsCli).toContain('AmazonEKSClusterAdminPolicy');
    expect(f?.remediation?.awsCli).not.toContain('system:masters');
    expect(f?.remediation?.notes?.join(' ')).toContain('system:masters');
  });

  it('is silent on workload identity when the target could not read its service accounts', () => {
    const to = movedIssuer(irsaSnapshot());
    const blind: ClusterSnapshot = { ...to, serviceAccounts: { status: 'error', error: 'forbidden' } };
    expect(compareSnapshots(irsaSnapshot(), blind)).toEqual([]);
  });

  it('joins every fix into one block, most severe first', () => {
    const ci = `arn:aws:iam::${ACCOUNT}:role/ci`;
    const entry = {
      principalArn: ci,
      type: 'STANDARD' as const,
      kubernetesGroups: ['deployers'],
      accessPolicies: [],
    };
    const r = compareClusters(irsaSnapshot({ entries: [entry] }), movedIssuer(irsaSnapshot()));
    expect(r.findings.map((f) => f.ruleId)).toEqual([
      'parity/access-missing',
      'parity/workload-identity-missing',
    ]);
    const cli = r.fixAll?.awsCli ?? '';
    expect(cli.indexOf('create-access-entry')).toBeLessThan(cli.indexOf('create-pod-identity-association'));
  });
});

describe('IRSA → Pod Identity plan', () => {
  it('gives each IRSA service account its association and the trust statement, none for Pod Identity clusters', () => {
    const plan = podIdentityPlanOf(irsaSnapshot());
    expect(plan?.steps).toEqual([
      { namespace: 'apps', serviceAccount: 'web', roleArn: IRSA_ROLE, trustToAdd: true },
    ]);
    expect(plan?.remediation.awsCli).toContain('--namespace apps --service-account web');
    expect(plan?.remediation.awsCli).toContain('update-assume-role-policy');
    expect(plan?.remediation.terraform).toContain('resource "aws_eks_pod_identity_association"');
    // The statement names no cluster: no aws:SourceArn, no issuer.
    expect(plan?.remediation.trustPolicyJson).not.toContain('cluster/');
    expect(plan?.remediation.trustPolicyJson).not.toContain('oidc');
    expect(podIdentityPlanOf(podIdentitySnapshot())).toBeUndefined();
  });

  it('quotes hostile names in every block', () => {
    const s = irsaSnapshot({
      serviceAccounts: [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a Terraform interpolation, literally
        { namespace: "a'; rm -rf / #", name: '${file("/etc/passwd")}', roleArnAnnotation: IRSA_ROLE },
      ],
    });
    const plan = podIdentityPlanOf(s);
    expect(plan?.remediation.awsCli).toContain(`--namespace 'a'\\''; rm -rf / #'`);
    expect(plan?.remediation.terraform).toContain('$${file(');
  });
});
