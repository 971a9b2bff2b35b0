/**
 * A capture through the real SDK clients against the sandbox records what recognises EKS-owned
 * entries (core/access/eks-owned.ts): DescribeCluster's `roleArn` and `computeConfig`, and the trust
 * policy of an EKS Capability role — and the captured snapshot then reads as the scenario does.
 */
import { AssociateAccessPolicyCommand, CreateAccessEntryCommand, EKSClient } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../infra/sandbox/index.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { atLeast } from '../../shared/core/model.ts';
import { assessSnapshot } from '../../shared/core/predict/engine.ts';
import { validateSnapshot } from '../../shared/core/snapshot/snapshot-schema.ts';
import { loadScenario, sandboxDeps } from '../support/sandbox-helpers.ts';

const ROLE = (name: string) => `arn:aws:iam::111122223333:role/${name}`;

describe('capture of EKS-owned principals', () => {
  it('records Auto Mode and the capability trust, so nothing EKS owns reads as drift', async () => {
    const seed = loadScenario('eks-principals/ep-healthy-eks-owned');
    const sandbox = await startSandbox({ clusters: [{ snapshot: seed }] });
    try {
      const snapshot = await captureSnapshot(sandboxDeps(sandbox), {
        region: 'eu-west-1',
        clusterName: 'prod',
      });
      expect(validateSnapshot(JSON.parse(JSON.stringify(snapshot)))).toMatchObject({ ok: true });
      expect([snapshot.cluster.roleArn, snapshot.cluster.computeConfig]).toEqual([
        seed.cluster.roleArn,
        seed.cluster.computeConfig,
      ]);
      if (snapshot.iamRoles.status !== 'ok') throw new Error(snapshot.iamRoles.status);
      const trust = new Map(snapshot.iamRoles.data.map((r) => [r.arn, r.trustPolicy !== undefined]));
      expect([trust.get(ROLE('prod-argocd-capability')), trust.get(ROLE('platform-admin'))]).toEqual([
        true,
        false,
      ]);
      const findings = assessSnapshot(snapshot).filter((f) => atLeast(f.severity, 'low'));
      expect(findings.map((f) => `${f.ruleId} ${f.subject}`)).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('reads Auto Mode NodeClasses; a custom class role without its entry is found, and the fix clears it', async () => {
    const sandbox = await startSandbox({
      clusters: [{ snapshot: loadScenario('eks-principals/ep-auto-mode-custom-nodeclass-no-entry') }],
    });
    try {
      const target = { region: 'eu-west-1', clusterName: 'prod' };
      const before = await captureSnapshot(sandboxDeps(sandbox), target);
      expect(before.autoModeNodeClasses).toEqual({
        status: 'ok',
        data: [
          { name: 'default', role: 'prod-auto-node-role', roleArn: ROLE('prod-auto-node-role') },
          { name: 'gpu', role: 'prod-gpu-node-role', roleArn: ROLE('prod-gpu-node-role') },
        ],
      });
      const found = assessSnapshot(before).filter((f) => atLeast(f.severity, 'low'));
      expect(found.map((f) => [f.ruleId, f.subject])).toEqual([
        ['nodes/role-unauthorized', ROLE('prod-gpu-node-role')],
      ]);
      // the fix's two calls, made with the real SDK client
      const eks = new EKSClient({
        region: 'eu-west-1',
        endpoint: sandbox.env.AWS_ENDPOINT_URL_EKS,
        credentials: sandbox.credentials,
        maxAttempts: 1,
      });
      const principalArn = ROLE('prod-gpu-node-role');
      await eks.send(new CreateAccessEntryCommand({ clusterName: 'prod', principalArn, type: 'EC2' }));
      await eks.send(
        new AssociateAccessPolicyCommand({
          clusterName: 'prod',
          principalArn,
          policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy',
          accessScope: { type: 'cluster' },
        }),
      );
      const after = await captureSnapshot(sandboxDeps(sandbox), target);
      expect(assessSnapshot(after).filter((f) => atLeast(f.severity, 'low'))).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});
