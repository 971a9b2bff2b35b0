/**
 * `migrate` proven against the sandbox (infra/sandbox), every step over real HTTP: for each
 * CONFIG_MAP and API_AND_CONFIG_MAP scenario, `migrate --cluster --format json` reads the cluster
 * live; the plan is applied through the sandbox's EKS API with the real SDK (UpdateClusterConfig
 * to API_AND_CONFIG_MAP and wait for ACTIVE, DeleteAccessEntry for stale entries,
 * CreateAccessEntry, AssociateAccessPolicy); then `whatif --cluster --auth-mode API` reads the
 * cluster live again and must report nothing critical or high that the plan's blockers do not name.
 */
import { join } from 'node:path';
import {
  AssociateAccessPolicyCommand,
  CreateAccessEntryCommand,
  DeleteAccessEntryCommand,
  DescribeClusterCommand,
  EKSClient,
  UpdateClusterConfigCommand,
} from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { loadScenarios } from '../../infra/sandbox/scenarios.ts';
import { writeFileAtomic } from '../../shared/adapters/file-store.ts';
import type { LiveIo } from '../../shared/cli/io.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { principalKey } from '../../shared/core/access/principal.ts';
import type { MigrationPlan } from '../../shared/core/migrate/migration-plan.ts';
import { createFakeIo, REPO_ROOT } from '../support/fake-io.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';

const REGION = 'eu-west-1';
const SCENARIOS = join(REPO_ROOT, 'scenarios');

let sandbox: Sandbox;
let names: string[];

beforeAll(async () => {
  const clusters = await loadScenarios(SCENARIOS);
  sandbox = await startSandbox({ clusters });
  names = clusters
    .filter((c) => c.snapshot.cluster.authenticationMode !== 'API')
    .map((c) => c.name ?? c.snapshot.clusterName);
});

afterAll(async () => {
  await sandbox?.close();
});

function eks(sb: Sandbox = sandbox): EKSClient {
  return new EKSClient({
    region: REGION,
    endpoint: sb.env.AWS_ENDPOINT_URL_EKS,
    credentials: sb.credentials,
    maxAttempts: 1,
  });
}

async function run(argv: string[], sb: Sandbox = sandbox) {
  const live: LiveIo = {
    captureDeps: async () => sandboxDeps(sb),
    snapshotStore: () => {
      throw new Error('not used');
    },
    writeFileAtomic: (path, text) => writeFileAtomic(path, text),
  };
  const fake = createFakeIo({}, { env: {} });
  fake.io.live = live;
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

async function waitActive(client: EKSClient, name: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { cluster } = await client.send(new DescribeClusterCommand({ name }));
    if (cluster?.status === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`cluster ${name} did not become ACTIVE`);
}

/** The plan's steps before the switch to API, through the sandbox's EKS API. */
async function applyPlan(name: string, plan: MigrationPlan, sb: Sandbox = sandbox): Promise<void> {
  const client = eks(sb);
  for (const step of plan.steps) {
    if (step.action === 'set-authentication-mode' && step.mode === 'API_AND_CONFIG_MAP') {
      await client.send(
        new UpdateClusterConfigCommand({ name, accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' } }),
      );
      await waitActive(client, name);
    }
    if (step.action === 'replace-stale-access-entries') {
      for (const principalArn of step.principalArns ?? [])
        await client.send(new DeleteAccessEntryCommand({ clusterName: name, principalArn }));
    }
    if (step.action === 'create-access-entries') {
      for (const e of plan.accessEntries) {
        await client.send(
          new CreateAccessEntryCommand({
            clusterName: name,
            principalArn: e.principalArn,
            type: e.type,
            ...(e.username === undefined ? {} : { username: e.username }),
            ...(e.kubernetesGroups === undefined ? {} : { kubernetesGroups: e.kubernetesGroups }),
          }),
        );
        for (const p of e.accessPolicies ?? []) {
          await client.send(
            new AssociateAccessPolicyCommand({
              clusterName: name,
              principalArn: e.principalArn,
              policyArn: p.policyArn,
              accessScope: p.accessScope,
            }),
          );
        }
      }
    }
  }
}

/** `whatif --cluster NAME --auth-mode API --format json`, read live. */
function whatIfApi(name: string): string[] {
  return ['whatif', '--cluster', name, '--region', REGION, '--auth-mode', 'API', '--format', 'json'];
}

interface JsonFinding {
  severity: string;
  ruleId: string;
  subject: string;
}

describe('migrate against the sandbox, then whatif --auth-mode API live', () => {
  it('has the CONFIG_MAP and API_AND_CONFIG_MAP scenarios seeded', () => {
    expect(names.length).toBeGreaterThanOrEqual(6);
  });

  it('leaves nothing critical or high but the blockers, for every scenario; Fargate gets FARGATE_LINUX', async () => {
    const left: Record<string, string[]> = {};
    const types = new Set<string>();
    const brokenBefore: string[] = [];
    for (const name of names) {
      const migrate = await run(['migrate', '--cluster', name, '--region', REGION, '--format', 'json']);
      expect(migrate.err, name).toBe('');
      const plan = JSON.parse(migrate.out) as MigrationPlan;
      expect(migrate.code, name).toBe(plan.blockers.length > 0 ? 1 : 0);
      for (const e of plan.accessEntries) types.add(e.type);

      const apiWhatIf = whatIfApi(name);
      const before = await run(apiWhatIf);
      await applyPlan(name, plan);
      const after = await run(apiWhatIf);
      expect(after.err, name).toBe('');
      const findings = (JSON.parse(after.out) as { findings: JsonFinding[] }).findings;
      const severe = findings.filter((f) => f.severity === 'critical' || f.severity === 'high');
      left[name] = severe
        .filter(
          (f) =>
            !plan.blockers.some(
              (b) => b.subject === f.subject || principalKey(b.subject) === principalKey(f.subject),
            ),
        )
        .map((f) => `${f.severity} ${f.ruleId} ${f.subject}`);
      if (before.code === 1) brokenBefore.push(name);
    }
    expect(left).toEqual(Object.fromEntries(names.map((n) => [n, []])));
    // the check can fail: without the plan, API mode breaks most of these clusters
    expect(brokenBefore.length).toBeGreaterThanOrEqual(4);
    expect([...types]).toEqual(expect.arrayContaining(['EC2_LINUX', 'FARGATE_LINUX', 'STANDARD']));
  });
});

describe('migrate with a node role that has an IAM path, against the sandbox', () => {
  const LEGACY = 'arn:aws:iam::111122223333:role/eks/legacy-node';
  const PATHLESS = 'arn:aws:iam::111122223333:role/legacy-node';
  let sb: Sandbox;
  let clusters: string[];

  beforeAll(async () => {
    const seeds = (await loadScenarios(SCENARIOS)).filter((c) => c.name?.startsWith('f-path-node-role-'));
    sb = await startSandbox({ clusters: seeds });
    clusters = seeds.map((c) => c.name ?? c.snapshot.clusterName);
  });

  afterAll(async () => {
    await sb?.close();
  });

  it('plans the role by its ARN with the path, which EKS accepts while it refuses the path-less one; API then loses nothing', async () => {
    expect(clusters).toEqual(['f-path-node-role-api-and-config-map', 'f-path-node-role-config-map']);
    for (const name of clusters) {
      const migrate = await run(['migrate', '--cluster', name, '--region', REGION, '--format', 'json'], sb);
      expect(migrate.err, name).toBe('');
      const plan = JSON.parse(migrate.out) as MigrationPlan;
      expect(plan.blockers, name).toEqual([]);
      expect(plan.accessEntries, name).toContainEqual({ principalArn: LEGACY, type: 'EC2_LINUX' });
      expect(
        plan.accessEntries.map((e) => e.principalArn),
        name,
      ).not.toContain(PATHLESS);

      const apiWhatIf = whatIfApi(name);
      const before = JSON.parse((await run(apiWhatIf, sb)).out) as { findings: JsonFinding[] };
      // the check can fail: without the plan, API drops the legacy nodes
      expect(
        before.findings.map((f) => `${f.severity} ${f.ruleId} ${f.subject}`),
        name,
      ).toContain(`critical nodes/role-unauthorized ${LEGACY}`);
      await applyPlan(name, plan, sb);
      // EKS resolves the principal in IAM: the ARN as aws-auth spells it names no role
      await expect(
        eks(sb).send(
          new CreateAccessEntryCommand({ clusterName: name, principalArn: PATHLESS, type: 'EC2_LINUX' }),
        ),
        name,
      ).rejects.toMatchObject({
        name: 'InvalidParameterException',
        message: 'The specified principalArn is invalid: invalid principal.',
      });
      const after = await run(apiWhatIf, sb);
      expect(after.err, name).toBe('');
      const severe = (JSON.parse(after.out) as { findings: JsonFinding[] }).findings.filter(
        (f) => f.severity === 'critical' || f.severity === 'high',
      );
      expect(
        severe.map((f) => `${f.severity} ${f.ruleId} ${f.subject}`),
        name,
      ).toEqual([]);

      // the one-way switch itself, in the sandbox: no principal loses access
      await eks(sb).send(
        new UpdateClusterConfigCommand({ name, accessConfig: { authenticationMode: 'API' } }),
      );
      await waitActive(eks(sb), name);
      const switched = sb.timeline.filter(
        (t) => t.what.startsWith(`${name}: authentication mode is now API`) && !t.what.includes('API_AND'),
      );
      expect(
        switched.map((t) => t.what),
        name,
      ).toEqual([`${name}: authentication mode is now API`]);
    }
  });
});
