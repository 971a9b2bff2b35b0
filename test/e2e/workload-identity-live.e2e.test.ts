/**
 * Issue 11's acceptance through the live path: each workload-identity scenario seeds its own
 * sandbox (IAM is account-wide, so scenarios that reuse a role name with another trust policy
 * must not share one), `snapshot --cluster` captures it over HTTP with the real adapters, and
 * `assess --snapshot` runs the rules on the captured file. `compare` runs on the blue/green files.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IAMClient, UpdateAssumeRolePolicyCommand } from '@aws-sdk/client-iam';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import type { SandboxFault } from '../../infra/sandbox/types.ts';
import { createFileSnapshotStore, writeFileAtomic } from '../../shared/adapters/file-store.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { parseSnapshotJson } from '../../shared/core/snapshot/snapshot-schema.ts';
import { runWithStubs } from '../hostile/shell-stub.ts';
import { createFakeIo, REPO_ROOT } from '../support/fake-io.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';

const DIR = join(REPO_ROOT, 'scenarios', 'workload-identity');
const REGION = 'eu-west-1';
const ACCOUNT = '111122223333';
const WI = /^(pod-identity|irsa|workload-identity)\//;

const RULES = [
  'pod-identity/role-trust-missing',
  'pod-identity/role-not-found',
  'pod-identity/agent-missing',
  'pod-identity/node-role-cannot-assume',
  'pod-identity/unsupported-compute',
  'pod-identity/service-account-missing',
  'irsa/trust-missing-cluster-issuer',
  'irsa/oidc-provider-missing',
  'irsa/role-not-found',
  'workload-identity/irsa-and-pod-identity',
];

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sentinel-wi-live-'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

async function run(argv: string[], sandbox?: Sandbox) {
  const fake = createFakeIo({}, { env: {} });
  if (sandbox !== undefined) {
    fake.io.live = {
      captureDeps: async () => sandboxDeps(sandbox),
      snapshotStore: (dir) => createFileSnapshotStore(dir ?? join(work, 'store')),
      writeFileAtomic: (path, text) => writeFileAtomic(path, text),
    };
  }
  fake.io.stderrIsTTY = false;
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

type Finding = {
  ruleId: string;
  subject: string;
  severity: string;
  title: string;
  detail?: string;
  remediation?: { awsCli?: string };
};

async function seed(name: string): Promise<Sandbox> {
  const parsed = parseSnapshotJson(readFileSync(join(DIR, `${name}.json`), 'utf8'), name);
  if (!parsed.ok) throw new Error(`${name}: ${JSON.stringify(parsed.errors)}`);
  return startSandbox({ clusters: [{ snapshot: parsed.snapshot, name }], credentialRefreshDelayMs: 0 });
}

/** `snapshot --cluster` over HTTP with the real adapters, then `assess` on the captured file. */
async function captureAndAssess(sandbox: Sandbox, name: string, tag: string): Promise<Finding[]> {
  const file = join(work, `${name}-${tag}.json`);
  const snap = await run(['snapshot', '--cluster', name, '--region', REGION, '--out', file], sandbox);
  expect(snap.err).toBe('');
  expect(snap.code).toBe(0);
  const assessed = await run(['assess', '--snapshot', file, '--format', 'json', '--fail-on', 'none']);
  expect(assessed.err).toBe('');
  return JSON.parse(assessed.out).findings as Finding[];
}

/** Seeds a sandbox with one scenario file, captures it live, assesses the captured snapshot. */
async function liveAssess(name: string, faults: SandboxFault[] = []): Promise<Finding[]> {
  const sandbox = await seed(name);
  try {
    for (const f of faults) sandbox.faults.inject(f);
    return await captureAndAssess(sandbox, name, String(faults.length));
  } finally {
    await sandbox.close();
  }
}

describe('workload-identity rules through sandbox + snapshot + assess', () => {
  it.each(RULES)(
    '%s fires on its scenario, and it is the only workload-identity rule that does',
    async (ruleId) => {
      const findings = await liveAssess(`wi-${ruleId.replace('/', '-')}`);
      const wi = [...new Set(findings.map((f) => f.ruleId).filter((id) => WI.test(id)))];
      expect(wi).toEqual([ruleId]);
    },
  );

  it("irsa/oidc-provider-missing also fires when the provider exists without the tokens' audience", async () => {
    const findings = await liveAssess('wi-irsa-oidc-provider-missing-audience');
    const wi = findings.filter((f) => WI.test(f.ruleId));
    expect(wi.map((f) => f.ruleId)).toEqual(['irsa/oidc-provider-missing']);
    expect(wi[0]?.detail).toContain('lists only sts.amazon.com');
  });

  it.each(['wi-healthy-pod-identity', 'wi-healthy-irsa'])(
    '%s yields no workload-identity finding',
    async (name) => {
      const findings = await liveAssess(name);
      expect(findings.filter((f) => WI.test(f.ruleId))).toEqual([]);
    },
  );
});

describe('Pod Identity chains (targetRoleArn with externalId) through the live path', () => {
  it('the documented chain — target trust under StringEquals sts:ExternalId — has no finding at or above low', async () => {
    const findings = await liveAssess('wi-healthy-pod-identity-target-role');
    expect(findings.filter((f) => f.severity !== 'info')).toEqual([]);
  });

  it('sts:ExternalId required on the first hop is certain; the fix, run as printed against IAM, makes the sandbox issue credentials', async () => {
    const name = 'wi-pod-identity-role-trust-missing-external-id';
    const sandbox = await seed(name);
    try {
      const key = 'pod identity payments/api';
      expect(sandbox.cluster(name).credentialOutcomes.get(key)).toMatch(
        /does not trust pods\.eks\.amazonaws\.com/,
      );
      const findings = await captureAndAssess(sandbox, name, 'before');
      const wi = findings.filter((f) => WI.test(f.ruleId));
      expect(wi.map((f) => [f.ruleId, f.severity, f.subject])).toEqual([
        ['pod-identity/role-trust-missing', 'high', `arn:aws:iam::${ACCOUNT}:role/payments-api`],
      ]);
      expect(wi[0]?.title).toContain('sts:AssumeRole and sts:TagSession');
      // The printed command, run by bash with a stub aws: its exact arguments, sent by the real SDK.
      const cli = runWithStubs('bash', wi[0]?.remediation?.awsCli ?? '');
      expect(cli.stderr).toBe('');
      const [call, ...more] = cli.calls;
      expect(more).toEqual([]);
      expect(call?.slice(0, 3)).toEqual(['aws', 'iam', 'update-assume-role-policy']);
      const arg = (flag: string) => call?.[call.indexOf(flag) + 1];
      const iam = new IAMClient({
        region: 'us-east-1',
        endpoint: sandbox.env.AWS_ENDPOINT_URL_IAM,
        credentials: sandbox.credentials,
        maxAttempts: 1,
      });
      await iam.send(
        new UpdateAssumeRolePolicyCommand({
          RoleName: arg('--role-name'),
          PolicyDocument: arg('--policy-document'),
        }),
      );
      // The sandbox's own trust check (two hops, ExternalId only on the second) now passes.
      expect(sandbox.cluster(name).credentialOutcomes.has(key)).toBe(true);
      expect(sandbox.cluster(name).credentialOutcomes.get(key)).toBeUndefined();
      expect(sandbox.timeline.map((t) => t.what)).toContain(
        `${name}: ${key}: credential refresh works again`,
      );
      const after = await captureAndAssess(sandbox, name, 'after');
      expect(after.filter((f) => WI.test(f.ruleId))).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});

describe('compare on the blue/green scenario files', () => {
  const file = (name: string) => join(DIR, `${name}.json`);

  it('lists exactly the seeded differences', async () => {
    const { code, out, err } = await run([
      'compare',
      '--from',
      file('wi-blue'),
      '--to',
      file('wi-green'),
      '--format',
      'json',
    ]);
    expect(err).toBe('');
    expect(code).toBe(1);
    const got = (JSON.parse(out).findings as Finding[]).map((f) => `${f.ruleId} ${f.subject}`).sort();
    expect(got).toEqual([
      `parity/access-differs arn:aws:iam::${ACCOUNT}:role/argocd`,
      `parity/access-missing arn:aws:iam::${ACCOUNT}:role/ci-deploy`,
      'parity/workload-identity-missing payments/api',
    ]);
  });

  it.each(['wi-blue', 'wi-green', 'wi-healthy-pod-identity', 'wi-healthy-irsa'])(
    'reports nothing for %s compared with itself',
    async (name) => {
      const { code, out } = await run([
        'compare',
        '--from',
        file(name),
        '--to',
        file(name),
        '--format',
        'json',
      ]);
      expect(code).toBe(0);
      expect(JSON.parse(out).findings).toEqual([]);
    },
  );
});

describe('an unreadable workload-identity source (403) through the live path', () => {
  it.each([
    ['wi-pod-identity-role-trust-missing', 'iam', 'GetRole', 'AccessDenied', 'iamRoles', 'iam:GetRole'],
    [
      'wi-pod-identity-node-role-cannot-assume',
      'iam',
      'SimulatePrincipalPolicy',
      'AccessDenied',
      'nodeRolePermissions',
      'iam:SimulatePrincipalPolicy',
    ],
    [
      'wi-irsa-oidc-provider-missing-audience',
      'iam',
      'GetOpenIDConnectProvider',
      'AccessDenied',
      'oidcProviders',
      'iam:GetOpenIDConnectProvider',
    ],
    [
      'wi-pod-identity-service-account-missing',
      'kube',
      'ListServiceAccounts',
      'Forbidden',
      'serviceAccounts',
      'serviceaccounts',
    ],
  ] as const)(
    '%s with %s %s denied: monitor/source-unavailable names the permission, no workload-identity finding',
    async (name, service, operation, code, source, permission) => {
      const findings = await liveAssess(name, [{ service, operation, status: 403, code }]);
      const unavailable = findings.find(
        (f) => f.ruleId === 'monitor/source-unavailable' && f.subject === source,
      );
      expect(unavailable?.detail).toContain(permission);
      expect(findings.filter((f) => WI.test(f.ruleId))).toEqual([]);
    },
  );
});
