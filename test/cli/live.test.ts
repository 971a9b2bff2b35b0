/**
 * The live commands (`report`, `snapshot`, `assess`/`whatif --cluster`) through `runCli`, with the
 * real adapters over HTTP against the sandbox seeded with every scenario (one cluster per file).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { loadScenarios } from '../../infra/sandbox/scenarios.ts';
import { createFileSnapshotStore, writeFileAtomic } from '../../shared/adapters/file-store.ts';
import type { LiveIo } from '../../shared/cli/io.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { validateSnapshot } from '../../shared/core/snapshot/snapshot-schema.ts';
import { createFakeIo, REPO_ROOT } from '../support/fake-io.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';

const REGION = 'eu-west-1';
const KARPENTER = 'a-karpenter-shares-last-nodegroup-role';
const YAML_SLIP = 'c-yaml-slip-in-maproles';
const ACCOUNT = '111122223333';

let sandbox: Sandbox;
let work: string;
let clusterCount: number;

function liveIo(storeDir = join(work, 'store')): LiveIo {
  return {
    captureDeps: async () => sandboxDeps(sandbox),
    snapshotStore: (dir) => createFileSnapshotStore(dir ?? storeDir),
    writeFileAtomic: (path, text) => writeFileAtomic(path, text),
  };
}

async function run(argv: string[], options: { stderrIsTTY?: boolean; live?: LiveIo | null } = {}) {
  const fake = createFakeIo({}, { env: {} });
  if (options.live !== null) fake.io.live = options.live ?? liveIo();
  fake.io.stderrIsTTY = options.stderrIsTTY ?? false;
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

function expectErrorLines(err: string, count: number): void {
  const lines = err.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(count);
  for (const line of lines) expect(line).toMatch(/^eks-auth-sentinel: /);
  expect(err).not.toMatch(/\bat .+:\d+:\d+/);
}

beforeAll(async () => {
  const clusters = await loadScenarios(join(REPO_ROOT, 'scenarios'));
  clusterCount = clusters.length;
  sandbox = await startSandbox({ clusters });
  work = mkdtempSync(join(tmpdir(), 'sentinel-live-'));
});

afterEach(() => {
  sandbox.faults.clear();
});

afterAll(async () => {
  await sandbox?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('report (live)', () => {
  it('reports every cluster of the Region with the critical what-if of scenario a, exit 1', async () => {
    const { code, out, err } = await run(['report', '--region', REGION]);
    expect(err).toBe('');
    expect(code).toBe(1);
    for (const file of readdirSync(join(REPO_ROOT, 'scenarios')).filter((f) => f.endsWith('.json'))) {
      expect(out).toContain(
        `=== Current state: cluster ${file.slice(0, -5)} — account ${ACCOUNT}, region ${REGION} ===`,
      );
    }
    const start = out.indexOf(`=== What-ifs: cluster ${KARPENTER} `);
    const section = out.slice(start, out.indexOf('=== ', start + 1));
    expect(section).toContain('What if: delete node group general');
    expect(section).toMatch(/CRITICAL\s+nodegroup\/deletion-orphans-role/);
    expect(section).toContain('3 other node(s)');
    expect(out).toContain(`${clusterCount} cluster(s) read in ${REGION}`);
  });

  it('opens with a cluster × severity table, then shows the current state whole (c: the parse failure with its line and fix) before any what-if', async () => {
    const { out } = await run(['report', '--region', REGION, '--fail-on', 'none']);
    expect(out.startsWith('Summary: current-state findings by severity\n')).toBe(true);
    const table = out.slice(0, out.indexOf('\n\n'));
    expect(table).toMatch(/^CLUSTER +CRITICAL +HIGH +MEDIUM +LOW +INFO +WHAT-IF FINDINGS$/m);
    // LOW 2: the scenario's own, and monitor/realtime-unavailable (the sandbox cluster ships no audit log).
    expect(table).toMatch(new RegExp(`^${YAML_SLIP} \\(${ACCOUNT}, ${REGION}\\) +2 +0 +0 +2 +0 +\\d+$`, 'm'));
    expect(table.split('\n')).toHaveLength(clusterCount + 2);
    const start = out.indexOf(`=== Current state: cluster ${YAML_SLIP} `);
    const section = out.slice(start, out.indexOf('=== ', start + 1));
    const failure = section.search(/CRITICAL\s+aws-auth\/parse-failure/);
    expect(failure).toBeGreaterThan(-1);
    expect(section).not.toMatch(/^What-if/m);
    const shown = section.slice(failure);
    expect(shown).toContain('mapRoles line 14:1');
    expect(shown).toMatch(/Fix\n\s+Fix the YAML of mapRoles at mapRoles line 14:1/);
  });

  it('shows the current state of every cluster before any what-if, across clusters', async () => {
    const { out } = await run(['report', '--region', REGION, '--fail-on', 'none']);
    const heads = [...out.matchAll(/^=== (Current state|What-ifs): cluster (\S+) /gm)].map((m) => m[1]);
    expect(heads.filter((h) => h === 'Current state')).toHaveLength(clusterCount);
    expect(heads.lastIndexOf('Current state')).toBeLessThan(heads.indexOf('What-ifs'));
    // no what-if section appears before the last cluster's current state
    const lastState = out.lastIndexOf('=== Current state: ');
    expect(out.slice(0, lastState)).not.toMatch(/^What-if/m);
  });

  it('exits 0 with --fail-on none and prints JSON with every what-if', async () => {
    const { code, out } = await run(['report', '--region', REGION, '--fail-on', 'none', '--format', 'json']);
    expect(code).toBe(0);
    const report = JSON.parse(out) as {
      clusters: Array<{
        cluster: { name: string };
        whatIf: Array<{ change: string; findings: Array<{ ruleId: string; severity: string }> }>;
      }>;
      unreadable: unknown[];
    };
    expect(report.clusters).toHaveLength(clusterCount);
    expect(report.unreadable).toEqual([]);
    const a = report.clusters.find((c) => c.cluster.name === KARPENTER);
    expect(a?.whatIf.map((w) => w.change)).toEqual(['delete node group general']);
    expect(a?.whatIf[0]?.findings).toContainEqual(
      expect.objectContaining({ ruleId: 'nodegroup/deletion-orphans-role', severity: 'critical' }),
    );
    const b = report.clusters.find((c) => c.cluster.name === 'b-fargate-entry-removed-by-terraform');
    expect(b?.whatIf.map((w) => w.change)).toContain('delete Fargate profile fp-default');
  });

  it('reports a cluster that cannot be read in one line naming the permission, and the others whole', async () => {
    sandbox.faults.inject({
      service: 'eks',
      operation: 'DescribeCluster',
      cluster: YAML_SLIP,
      status: 403,
      code: 'AccessDeniedException',
      message: 'not authorized to perform eks:DescribeCluster',
    });
    const { code, out, err } = await run(['report', '--region', REGION, '--fail-on', 'none']);
    expect(code).toBe(2);
    expectErrorLines(err, 1);
    expect(err).toContain(`cluster ${YAML_SLIP} (${REGION}) could not be read`);
    expect(err).toContain('eks:DescribeCluster');
    expect(out).toContain(`=== Current state: cluster ${KARPENTER} `);
    expect(out).not.toContain(`=== Current state: cluster ${YAML_SLIP} `);
    expect(out).toContain('=== Could not be read ===');
    expect(out).toContain(`${clusterCount - 1} cluster(s) read in ${REGION}, 1 could not be read`);
  });

  it('exits 1, not 2, when findings are at or above --fail-on even though a cluster could not be read', async () => {
    sandbox.faults.inject({
      service: 'eks',
      operation: 'DescribeCluster',
      cluster: YAML_SLIP,
      status: 403,
      code: 'AccessDeniedException',
    });
    const { code, err } = await run(['report', '--region', REGION]);
    expect(code).toBe(1);
    expectErrorLines(err, 1);
  });

  it('exits 2 when the Region cannot be listed', async () => {
    sandbox.faults.inject({
      service: 'eks',
      operation: 'ListClusters',
      status: 403,
      code: 'AccessDeniedException',
    });
    const { code, out, err } = await run(['report', '--region', REGION]);
    expect(code).toBe(2);
    expectErrorLines(err, 1);
    expect(err).toContain(`Region ${REGION} could not be read`);
    expect(err).toContain('eks:ListClusters');
    expect(out).toContain('0 cluster(s) read');
  });

  it('writes a progress line per cluster on stderr only when it is a terminal, never into stdout', async () => {
    const tty = await run(['report', '--cluster', KARPENTER, '--region', REGION, '--fail-on', 'none'], {
      stderrIsTTY: true,
    });
    expect(tty.code).toBe(0);
    expect(tty.err).toMatch(new RegExp(`\\[1/1\\] ${REGION}/${KARPENTER}: read \\(`));
    expect(tty.out).not.toContain('[1/1]');
    const pipe = await run(['report', '--cluster', KARPENTER, '--region', REGION, '--fail-on', 'none']);
    expect(pipe.err).toBe('');
    expect(pipe.out).toBe(tty.out);
  });

  it('renders Markdown: a heading per cluster, the critical what-if whole', async () => {
    const { code, out } = await run([
      'report',
      '--cluster',
      KARPENTER,
      '--region',
      REGION,
      '--format',
      'markdown',
    ]);
    expect(code).toBe(1);
    expect(out.startsWith('# Summary: current-state findings by severity\n')).toBe(true);
    expect(out).toContain(
      `\n# Current state: cluster \`${KARPENTER}\` (account ${ACCOUNT}, region ${REGION})\n`,
    );
    expect(out.indexOf('\n# What-ifs: cluster ')).toBeGreaterThan(out.indexOf('\n# Current state: cluster '));
    expect(out).toContain('nodegroup/deletion-orphans-role');
    expect(out).toContain('aws eks create-access-entry');
    expect(
      out.endsWith(
        // 2 low: the scenario's, and monitor/realtime-unavailable (no audit log in the sandbox).
        '1 cluster(s) read in eu-west-1; findings (assessments and what-ifs): 1 critical, 2 low.\n',
      ),
    ).toBe(true);
  });

  it('exits 2 with one line when live collection is not available', async () => {
    const { code, err } = await run(['report', '--region', REGION], { live: null });
    expect(code).toBe(2);
    expectErrorLines(err, 1);
  });
});

describe('assess and whatif --cluster (live)', () => {
  it('assesses a live cluster like its snapshot file', async () => {
    const live = await run(['assess', '--cluster', YAML_SLIP, '--region', REGION, '--format', 'json']);
    expect(live.code).toBe(1);
    const ruleIds = (JSON.parse(live.out) as { findings: Array<{ ruleId: string }> }).findings.map(
      (f) => f.ruleId,
    );
    expect(ruleIds).toContain('aws-auth/parse-failure');
    expect(ruleIds).toContain('nodes/role-unauthorized');
  });

  it('simulates deleting node group general of scenario a: critical, exit 1', async () => {
    const { code, out } = await run([
      'whatif',
      '--cluster',
      KARPENTER,
      '--region',
      REGION,
      '--delete-nodegroup',
      'general',
    ]);
    expect(code).toBe(1);
    expect(out).toMatch(/CRITICAL\s+nodegroup\/deletion-orphans-role/);
  });

  it('exits 2 naming the cluster when it does not exist', async () => {
    const { code, err } = await run(['assess', '--cluster', 'nope', '--region', REGION]);
    expect(code).toBe(2);
    expectErrorLines(err, 1);
    expect(err).toContain(`cluster nope (${REGION}) could not be read`);
  });
});

describe('snapshot (live)', () => {
  it('--out writes a snapshot that validates and that assess --snapshot reads back', async () => {
    const file = join(work, 'out', 'karpenter.json');
    const written = await run(['snapshot', '--cluster', KARPENTER, '--region', REGION, '--out', file]);
    expect(written.err).toBe('');
    expect(written.code).toBe(0);
    expect(written.out).toBe(`${REGION}/${KARPENTER}: ${file}\n`);
    const result = validateSnapshot(JSON.parse(readFileSync(file, 'utf8')));
    expect(result.ok).toBe(true);
    expect(readdirSync(join(work, 'out'))).toEqual(['karpenter.json']);

    const assessed = await run(['assess', '--snapshot', file, '--format', 'json']);
    const live = await run(['assess', '--cluster', KARPENTER, '--region', REGION, '--format', 'json']);
    expect(assessed.code).toBe(0);
    expect(JSON.parse(assessed.out)).toEqual(JSON.parse(live.out));
    const whatif = await run(['whatif', '--snapshot', file, '--delete-nodegroup', 'general']);
    expect(whatif.code).toBe(1);
  });

  it('--out - prints the snapshot on stdout', async () => {
    const { code, out } = await run(['snapshot', '--cluster', KARPENTER, '--region', REGION, '--out', '-']);
    expect(code).toBe(0);
    expect(validateSnapshot(JSON.parse(out)).ok).toBe(true);
  });

  it('writes into the store, keeping the previous snapshot for diff', async () => {
    const store = join(work, 'store-one');
    const args = ['snapshot', '--cluster', KARPENTER, '--region', REGION, '--store', store];
    expect((await run(args)).code).toBe(0);
    const dir = join(store, ACCOUNT, REGION);
    expect(readdirSync(dir)).toEqual([`${KARPENTER}.json`]);
    const first = readFileSync(join(dir, `${KARPENTER}.json`), 'utf8');

    const second = await run(args);
    expect(second.code).toBe(0);
    expect(second.out).toBe(`${REGION}/${KARPENTER}: ${join(dir, `${KARPENTER}.json`)}\n`);
    expect(readdirSync(dir).sort()).toEqual([`${KARPENTER}.json`, `${KARPENTER}.prev.json`]);
    expect(readFileSync(join(dir, `${KARPENTER}.prev.json`), 'utf8')).toBe(first);

    const diff = await run([
      'diff',
      '--before',
      join(dir, `${KARPENTER}.prev.json`),
      '--after',
      join(dir, `${KARPENTER}.json`),
    ]);
    expect(diff.code).toBe(0);
  });

  it('--all writes every cluster of the Region; one that fails is reported and exit is 2', async () => {
    sandbox.faults.inject({
      service: 'eks',
      operation: 'DescribeCluster',
      cluster: YAML_SLIP,
      status: 403,
      code: 'AccessDeniedException',
    });
    const store = join(work, 'store-all');
    const { code, out, err } = await run(['snapshot', '--all', '--region', REGION, '--store', store]);
    expect(code).toBe(2);
    expectErrorLines(err, 1);
    expect(err).toContain(YAML_SLIP);
    const files = readdirSync(join(store, ACCOUNT, REGION));
    expect(files).toHaveLength(clusterCount - 1);
    expect(files).not.toContain(`${YAML_SLIP}.json`);
    expect(out.trim().split('\n')).toHaveLength(clusterCount - 1);
  });
});
