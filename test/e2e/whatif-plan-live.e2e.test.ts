/**
 * `whatif --terraform-plan PLAN --region R` with the current state read live: the sandbox
 * (infra/sandbox) serves two clusters, the plan changes both and the account, and the CLI reads
 * each cluster the plan's `cluster_name` names over HTTP with the real adapters, then simulates
 * each cluster's changes together. An IAM change (no cluster) reaches both.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { writeFileAtomic } from '../../shared/adapters/file-store.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { parseSnapshotJson } from '../../shared/core/snapshot/snapshot-schema.ts';
import { createFakeIo, REPO_ROOT } from '../support/fake-io.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';

const REGION = 'eu-west-1';
const PLAN = 'test/fixtures/terraform-plan/wi-two-clusters.json';

let sandbox: Sandbox;

beforeAll(async () => {
  const text = readFileSync(
    join(REPO_ROOT, 'scenarios/workload-identity/wi-healthy-pod-identity.json'),
    'utf8',
  );
  const parsed = parseSnapshotJson(text, 'wi-healthy-pod-identity');
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  // Two clusters of one account: the same healthy Pod Identity set-up, named prod and staging.
  sandbox = await startSandbox({
    clusters: [
      { snapshot: parsed.snapshot, name: 'prod' },
      { snapshot: { ...structuredClone(parsed.snapshot), clusterName: 'staging' }, name: 'staging' },
    ],
  });
});

afterAll(async () => {
  await sandbox?.close();
});

async function run(argv: string[]) {
  const fake = createFakeIo({}, { env: {} });
  fake.io.live = {
    captureDeps: async () => sandboxDeps(sandbox),
    snapshotStore: () => {
      throw new Error('not used');
    },
    writeFileAtomic: (path, text) => writeFileAtomic(path, text),
  };
  fake.io.stderrIsTTY = false;
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

interface ClusterJson {
  cluster: { name: string };
  findings: { ruleId: string; evidence: Record<string, unknown> }[];
}

describe('whatif --terraform-plan, current state read live', () => {
  it("reads every cluster the plan's cluster_name names and gives each its own changes plus the account's", async () => {
    const { code, out, err } = await run([
      'whatif',
      '--terraform-plan',
      PLAN,
      '--region',
      REGION,
      '--format',
      'json',
      '--fail-on',
      'high',
    ]);
    expect(err).toBe('');
    expect(code).toBe(1);
    const body = JSON.parse(out) as { clusters: ClusterJson[]; unchecked: unknown[] };
    expect(body.unchecked).toEqual([]);
    const byCluster = Object.fromEntries(
      body.clusters.map((c) => [
        c.cluster.name,
        c.findings.map((f) => `${f.ruleId} @ ${String(f.evidence.planAddress)}`).sort(),
      ]),
    );
    expect(byCluster).toEqual({
      prod: [
        'pod-identity/role-trust-missing @ aws_iam_role.payments_api',
        'pod-identity/service-account-missing @ module.prod.aws_eks_pod_identity_association.batch',
      ],
      staging: [
        'pod-identity/agent-missing @ module.staging.aws_eks_addon.this["eks-pod-identity-agent"]',
        'pod-identity/role-trust-missing @ aws_iam_role.payments_api',
      ],
    });
  });

  it('reads only the clusters given with --cluster and names the changes to the others as not checked', async () => {
    const { code, err } = await run([
      'whatif',
      '--terraform-plan',
      PLAN,
      '--cluster',
      'prod',
      '--region',
      REGION,
    ]);
    expect(code).toBe(2);
    expect(err).toContain(
      'not checked: changes to cluster staging (no snapshot of it): module.staging.aws_eks_addon.this["eks-pod-identity-agent"]',
    );
  });
});
