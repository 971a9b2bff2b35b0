/**
 * Issue 17, "proof by real clients": every AWS CLI fix the product prints, run exactly as printed
 * by bash with the real AWS CLI (v1, 1.45 or later: older ones, like Debian's awscli, do not know
 * `eks create-access-entry`) against the local sandbox, then the cluster assessed again.
 *
 * For each scenario in scenarios/ and scenarios/workload-identity/ (plus two stale-node-entry
 * variants of scenario d built below), one sandbox: `snapshot --cluster` + `assess` over HTTP;
 * each finding's `awsCli` block is run in report order by `bash` under `set -euo pipefail`, with
 * credentials and per-service endpoints (`AWS_ENDPOINT_URL_EKS`, `…_IAM`) from the environment and
 * **no default Region** (AWS_REGION/AWS_DEFAULT_REGION unset, AWS_CONFIG_FILE an empty file): a
 * command without `--region` is refused, as it would be on such a machine. Then a second capture
 * and assessment: every fixed finding is gone and nothing new at or above medium appeared.
 *
 * Only `aws` commands may appear in the block (eksctl/kubectl alternatives are separate blocks),
 * so the whole block is what a user pastes. A block that needs a value only the user can give
 * (`<existing role ARN>`) is counted apart and listed; the test fails if one appears elsewhere.
 *
 * The CLI is required: if `aws` is missing or too old the test fails (it never skips).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createFileSnapshotStore, writeFileAtomic } from '../../shared/adapters/file-store.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { parseSnapshotJson } from '../../shared/core/snapshot/snapshot-schema.ts';
import { createFakeIo, REPO_ROOT } from '../support/fake-io.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';

const REGION = 'eu-west-1';
const SEVERE = new Set(['critical', 'high', 'medium']);
/** How long the sandbox's EKS takes for an update (a mode switch: UPDATING, then ACTIVE). */
const UPDATE_MS = 3000;

type Finding = {
  ruleId: string;
  subject: string;
  severity: string;
  remediation?: { awsCli?: string };
};

let work: string;
let awsEnv: NodeJS.ProcessEnv;

/** The Python that runs `aws` (its shebang, or pyenv's for a pyenv shim). */
function awsPython(aws: string): string {
  const first = readFileSync(aws, 'utf8').split('\n', 1)[0] ?? '';
  if (/^#!.*python[\d.]*\s*$/.test(first)) return first.slice(2).trim();
  const pyenvRoot = /PYENV_ROOT="([^"]+)"/.exec(readFileSync(aws, 'utf8'))?.[1];
  if (pyenvRoot !== undefined) {
    const real = execFileSync(join(pyenvRoot, 'libexec', 'pyenv'), ['which', 'aws'], {
      encoding: 'utf8',
    }).trim();
    return awsPython(real);
  }
  throw new Error(`cannot tell which Python runs ${aws}`);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sentinel-aws-cli-fixes-'));
  const which = spawnSync('bash', ['-c', 'command -v aws'], { encoding: 'utf8' });
  const aws = which.stdout.trim();
  if (which.status !== 0 || aws === '')
    throw new Error('the AWS CLI (`aws`, v1 1.45 or later) is required for this test and is not on PATH');
  const version = spawnSync(aws, ['--version'], { encoding: 'utf8' });
  const m = /aws-cli\/(\d+)\.(\d+)/.exec(`${version.stdout}${version.stderr}`);
  if (!m || Number(m[1]) !== 1 || Number(m[2]) < 45)
    throw new Error(`the AWS CLI v1 1.45 or later is required; found: ${version.stdout}${version.stderr}`);
  // The EKS waiters poll every 30 s (botocore's eks waiters-2.json): a test that waits for one
  // mode switch would take a minute. In this test only, a copy of that file with a 1 s delay is
  // found first through AWS_DATA_PATH; the fix the product prints is unchanged.
  const botocore = execFileSync(
    awsPython(aws),
    ['-c', 'import botocore, os; print(os.path.dirname(botocore.__file__))'],
    { encoding: 'utf8' },
  ).trim();
  const waiters = JSON.parse(
    readFileSync(join(botocore, 'data', 'eks', '2017-11-01', 'waiters-2.json'), 'utf8'),
  );
  for (const w of Object.values(waiters.waiters) as Array<{ delay: number }>) w.delay = 1;
  const dataPath = join(work, 'aws-data');
  const target = join(dataPath, 'eks', '2017-11-01', 'waiters-2.json');
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, JSON.stringify(waiters));
  const empty = join(work, 'empty-aws-config');
  writeFileSync(empty, '');
  const { AWS_REGION: _r, AWS_DEFAULT_REGION: _d, AWS_PROFILE: _p, ...rest } = process.env;
  awsEnv = {
    ...rest,
    AWS_CONFIG_FILE: empty,
    AWS_SHARED_CREDENTIALS_FILE: empty,
    AWS_DATA_PATH: dataPath,
    AWS_PAGER: '',
    AWS_MAX_ATTEMPTS: '1',
    // not an EC2 instance: no instance-metadata probing
    AWS_EC2_METADATA_DISABLED: 'true',
  };
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

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}

async function assess(sandbox: Sandbox, name: string, tag: string): Promise<Finding[]> {
  const file = join(work, `${name}-${tag}.json`);
  const snap = await run(['snapshot', '--cluster', name, '--region', REGION, '--out', file], sandbox);
  expect(snap.err, `${name} snapshot`).toBe('');
  const assessed = await run(['assess', '--snapshot', file, '--format', 'json', '--fail-on', 'none']);
  expect(assessed.err, `${name} assess`).toBe('');
  return JSON.parse(assessed.out).findings as Finding[];
}

/** The commands of a script: lines that are not comments, continuation lines joined. */
function commandsOf(script: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const line of script.split('\n')) {
    if (pending === '' && (line.startsWith('#') || line.trim() === '')) continue;
    if (line.endsWith(' \\')) {
      pending += `${line.slice(0, -2)} `;
      continue;
    }
    out.push(`${pending}${line}`.trim());
    pending = '';
  }
  return out;
}

function load(path: string): ClusterSnapshot {
  const parsed = parseSnapshotJson(readFileSync(path, 'utf8'), path);
  if (!parsed.ok) throw new Error(`${path}: ${JSON.stringify(parsed.errors)}`);
  return parsed.snapshot;
}

/**
 * Scenario d with the stale access entry on the node role (re-created 2026-10-02, after its entry)
 * in API mode, so that nodes depend on that entry; and the same with an entry of the wrong type.
 */
function staleNodeVariants(): Array<{ name: string; snapshot: ClusterSnapshot }> {
  const d = load(join(REPO_ROOT, 'scenarios', 'd-access-entry-older-than-role.json'));
  const node = 'arn:aws:iam::111122223333:role/prod-node-role';
  const recreate = (s: ClusterSnapshot): ClusterSnapshot => {
    const copy = structuredClone(s);
    copy.cluster.authenticationMode = 'API';
    if (copy.iamRoles?.status === 'ok')
      for (const r of copy.iamRoles.data)
        if (r.arn === node)
          Object.assign(r, { roleId: 'AROAFW3BYDNICIO6NEWID', createDate: '2026-10-02T08:00:00Z' });
    return copy;
  };
  const stale = recreate(d);
  const wrongType = structuredClone(d);
  wrongType.cluster.authenticationMode = 'API';
  if (wrongType.accessEntries.status === 'ok')
    for (const e of wrongType.accessEntries.data)
      if (e.principalArn === node)
        Object.assign(e, { type: 'STANDARD', kubernetesGroups: ['viewers'], username: 'node' });
  return [
    { name: 'd-node-role-recreated-api', snapshot: stale },
    { name: 'd-node-entry-wrong-type-api', snapshot: wrongType },
  ];
}

function scenarios(): Array<{ name: string; snapshot: ClusterSnapshot }> {
  // Every folder of scenarios: the top level and each subfolder (workload identity, EKS's own
  // principals, EKS changes).
  const root = join(REPO_ROOT, 'scenarios');
  const dirs = [
    root,
    ...readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(root, e.name))
      .sort(),
  ];
  const all = dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => ({ name: f.slice(0, -'.json'.length), snapshot: load(join(dir, f)) })),
  );
  return [...all, ...staleNodeVariants()];
}

interface Outcome {
  withFixes: number;
  commands: number;
  accepted: number;
  templates: string[];
  tooNew: string[];
  failures: string[];
}

async function proveScenario(name: string, snapshot: ClusterSnapshot): Promise<Outcome> {
  const sandbox = await startSandbox({
    clusters: [{ snapshot, name }],
    sideEffectDelayMs: UPDATE_MS,
    credentialRefreshDelayMs: 0,
    notReadyDelayMs: 0,
  });
  const out: Outcome = { withFixes: 0, commands: 0, accepted: 0, templates: [], tooNew: [], failures: [] };
  const started = Date.now();
  try {
    const before = await assess(sandbox, name, 'before');
    const fixed: Finding[] = [];
    const printed = new Set<string>();
    const { AWS_REGION: _region, ...endpoints } = sandbox.env;
    const env = { ...awsEnv, ...endpoints };
    for (const f of before) {
      const script = f.remediation?.awsCli;
      if (script === undefined) continue;
      out.withFixes++;
      const where = `${name}: ${f.ruleId} ${f.subject}`;
      const commands = commandsOf(script);
      for (const c of commands) {
        if (printed.has(c)) out.failures.push(`${where}: printed twice in one report: ${c}`);
        printed.add(c);
      }
      const foreign = commands.filter((c) => !c.startsWith('aws '));
      if (foreign.length > 0)
        out.failures.push(`${where}: not an AWS CLI command in the block: ${foreign.join(' | ')}`);
      if (/<[^<>\n]+>/.test(commands.join('\n'))) {
        out.templates.push(where);
        continue;
      }
      // Asynchronously: the sandbox answers from this process's event loop.
      const r = await bash(`set -euo pipefail\n${script}\n`, env);
      // An operation newer than this CLI's EKS model (cluster CA rotation in 1.45.11): the fix says
      // so in its notes; counted apart, by name, never as accepted.
      if (r.status !== 0 && /Invalid choice/.test(r.stderr)) {
        out.tooNew.push(where);
        continue;
      }
      out.commands += commands.length;
      if (r.status === 0) {
        out.accepted += commands.length;
        fixed.push(f);
      } else {
        out.failures.push(`${where}: exit ${r.status}: ${r.stderr.trim()}\n${script}`);
      }
    }
    if (out.withFixes === 0) return out;
    // A switch's UPDATING must be over before the assessment (a fix that did not wait failed above).
    await new Promise((r) => setTimeout(r, UPDATE_MS + 200));
    const after = await assess(sandbox, name, 'after');
    const key = (f: Finding) => `${f.ruleId} ${f.subject}`;
    const beforeKeys = new Set(before.map(key));
    for (const f of fixed)
      if (after.some((a) => key(a) === key(f)))
        out.failures.push(`${name}: ${key(f)}: still reported after its fix`);
    for (const a of after)
      if (SEVERE.has(a.severity) && !beforeKeys.has(key(a)))
        out.failures.push(`${name}: new ${a.severity} after the fixes: ${key(a)}`);
    return out;
  } finally {
    if (process.env.AWS_CLI_FIXES_LOG)
      appendFileSync(
        process.env.AWS_CLI_FIXES_LOG,
        `${name}: ${out.commands} commands, ${Date.now() - started} ms\n`,
      );
    await sandbox.close();
  }
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

describe('every AWS CLI fix, run as printed by the real AWS CLI against the sandbox', () => {
  it('is accepted, and its finding is gone with nothing new at or above medium', async () => {
    const all = scenarios();
    const totals = { scenarios: 0, withFixes: 0, commands: 0, accepted: 0 };
    const templates: string[] = [];
    const tooNew: string[] = [];
    const failures: string[] = [];
    // Three sandboxes at a time: most of the time goes to the CLI's start-up and the waits.
    const outcomes = await mapLimit(all, 3, ({ name, snapshot }) => proveScenario(name, snapshot));
    for (const o of outcomes) {
      totals.scenarios++;
      totals.withFixes += o.withFixes;
      totals.commands += o.commands;
      totals.accepted += o.accepted;
      templates.push(...o.templates);
      tooNew.push(...o.tooNew);
      failures.push(...o.failures);
    }
    console.log(
      `aws-cli-fixes: ${totals.scenarios} scenarios, ${totals.withFixes} findings with an AWS CLI fix, ${totals.commands} commands executed, ${totals.accepted} accepted; ${templates.length} fix(es) needing a value only the user knows: ${templates.join('; ')}; ${tooNew.length} using an operation newer than this CLI: ${tooNew.join('; ')}`,
    );
    expect(failures).toEqual([]);
    expect(templates).toEqual([
      'wi-pod-identity-role-not-found: pod-identity/role-not-found arn:aws:iam::111122223333:role/payments-api',
    ]);
    // Cluster CA rotation is newer than the EKS model of AWS CLI 1.45.11 (its fix notes say so).
    expect(tooNew).toEqual([
      expect.stringMatching(/^ca-rotation-pending-karpenter: cluster\/ca-rotation-unmanaged-nodes /),
    ]);
    expect(totals.accepted).toBe(totals.commands);
    expect(totals.commands).toBeGreaterThanOrEqual(15);
  }, 1_200_000);
});
