import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_INPUT_BYTES } from '../../shared/cli/io.ts';
import { exitFor } from '../../shared/cli/output.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { RULES } from '../../shared/core/rules/registry.ts';
import { createFakeIo, deleteNodegroupEvent, REPO_ROOT } from '../support/fake-io.ts';
import { createFinding } from '../support/findings.ts';

const KARPENTER = 'scenarios/a-karpenter-shares-last-nodegroup-role.json';
const HEALTHY = 'scenarios/healthy-api-mode.json';
const YAML_SLIP = 'scenarios/c-yaml-slip-in-maproles.json';

async function run(argv: string[], files: Record<string, string> = {}, options = {}) {
  const fake = createFakeIo(files, options);
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

/** The error contract: exactly one line on stderr, prefixed, no stack trace. */
function expectOneErrorLine(err: string): void {
  expect(err).toMatch(/^eks-auth-sentinel: [^\n]+\n$/);
  expect(err).not.toMatch(/\bat .+:\d+:\d+/);
}

function snapshotWith(edit: (s: Record<string, unknown>) => void): string {
  const snapshot = JSON.parse(readFileSync(join(REPO_ROOT, KARPENTER), 'utf8')) as Record<string, unknown>;
  edit(snapshot);
  return JSON.stringify(snapshot, null, 2);
}

describe('runCli usage', () => {
  it('prints the usage and exits 0 with --help', async () => {
    const { code, out, err } = await run(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('eks-auth-sentinel whatif');
    expect(err).toBe('');
  });

  it('prints a command’s own help with COMMAND --help and with help COMMAND', async () => {
    const a = await run(['whatif', '--help']);
    const b = await run(['help', 'whatif']);
    expect(a.code).toBe(0);
    expect(a.out).toContain('--delete-fargate-profile NAME');
    expect(b.out).toBe(a.out);
  });

  it('prints the package version with --version', async () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const { code, out } = await run(['--version']);
    expect(code).toBe(0);
    expect(out).toBe(`eks-auth-sentinel ${pkg.version} (snapshot schema 1)\n`);
  });

  it('exits 2 with one line when the command is missing', async () => {
    const { code, err } = await run([]);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('missing command');
  });

  it('exits 2 naming an unknown command and the closest one', async () => {
    const { code, err } = await run(['asess', '--snapshot', KARPENTER]);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain("unknown command 'asess'; did you mean assess?");
  });

  it('rejects an unknown option with one line that names it and suggests the closest', async () => {
    const { code, err } = await run(['assess', '--snapshto', KARPENTER]);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('unknown option --snapshto; did you mean --snapshot?');
  });

  it('rejects an option that belongs to another command', async () => {
    const { code, err } = await run(['assess', '--snapshot', KARPENTER, '--before', KARPENTER]);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('option --before does not apply to assess');
  });

  it('rejects an option given twice', async () => {
    const { code, err } = await run(['assess', '--snapshot', KARPENTER, '--snapshot', HEALTHY]);
    expect(code).toBe(2);
    expect(err).toContain('--snapshot given twice');
  });

  it('rejects an option without its value', async () => {
    const { code, err } = await run(['assess', '--snapshot']);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('option --snapshot needs a value');
  });

  it('rejects a stray positional argument', async () => {
    const { code, err } = await run(['assess', 'extra', '--snapshot', KARPENTER]);
    expect(code).toBe(2);
    expect(err).toContain("unexpected argument 'extra'");
  });

  it('requires the command’s file options', async () => {
    const { code, err } = await run(['diff', '--before', KARPENTER]);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('diff needs --after');
  });

  it('requires exactly one change for whatif', async () => {
    const none = await run(['whatif', '--snapshot', KARPENTER]);
    const two = await run([
      'whatif',
      '--snapshot',
      KARPENTER,
      '--delete-nodegroup',
      'general',
      '--auth-mode',
      'API',
    ]);
    expect(none.code).toBe(2);
    expectOneErrorLine(none.err);
    expect(none.err).toContain('whatif needs a change');
    expect(two.code).toBe(2);
    expectOneErrorLine(two.err);
    expect(two.err).toContain('exactly one change, got --delete-nodegroup and --auth-mode');
  });

  it('accepts only the three authentication modes', async () => {
    const { code, err } = await run(['whatif', '--snapshot', KARPENTER, '--auth-mode', 'api']);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('--auth-mode must be one of CONFIG_MAP|API_AND_CONFIG_MAP|API');
  });

  it('accepts only known formats and severities', async () => {
    const format = await run(['assess', '--snapshot', KARPENTER, '--format', 'yaml']);
    const failOn = await run(['assess', '--snapshot', KARPENTER, '--fail-on', 'severe']);
    expect(format.code).toBe(2);
    expect(format.err).toContain('--format must be one of text|markdown|json');
    expect(failOn.code).toBe(2);
    expect(failOn.err).toContain('--fail-on must be one of critical|high|medium|low|info|none');
  });
});

describe('runCli input files', () => {
  it('exits 2 with "cannot read FILE: ENOENT" for a missing file', async () => {
    const { code, err } = await run(['assess', '--snapshot', 'no/such/snapshot.json']);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('cannot read no/such/snapshot.json: ENOENT');
  });

  it('exits 2 naming the file and line:column of invalid JSON', async () => {
    const { code, err } = await run(['assess', '--snapshot', 'bad.json'], {
      'bad.json': '{\n  "schemaVersion": 1,\n  oops\n}',
    });
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('not valid JSON');
    expect(err).toContain('(bad.json, line 3:3)');
  });

  it('never echoes binary garbage from an invalid file', async () => {
    const garbage = `\u0000\u001b[2J${'\u00ff'.repeat(100)}\n\r`;
    const { code, err } = await run(['assess', '--snapshot', 'garbage.json'], { 'garbage.json': garbage });
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).not.toContain('\u001b');
    expect(err).toContain('garbage.json, line 1:1');
  });

  it('exits 2 naming the JSON path of a value that breaks the snapshot schema', async () => {
    const text = snapshotWith((s) => {
      s.region = 42;
    });
    const { code, err } = await run(['assess', '--snapshot', 'snap.json'], { 'snap.json': text });
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('not a valid cluster snapshot');
    expect(err).toContain('(snap.json, $.region)');
  });

  it('refuses a file over 50 MB', async () => {
    const { code, err } = await run(['assess', '--snapshot', 'huge.json'], {
      'huge.json': ' '.repeat(MAX_INPUT_BYTES + 1),
    });
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('refusing to read huge.json');
  });

  it('exits 2 listing the node groups there are when asked to delete one that is not', async () => {
    const { code, err } = await run(['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'gpu']);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('no node group gpu in cluster prod (have: general)');
  });

  it('exits 2 for a Fargate profile that is not in the snapshot', async () => {
    const { code, err } = await run([
      'whatif',
      '--snapshot',
      KARPENTER,
      '--delete-fargate-profile',
      'default',
    ]);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toMatch(
      /no Fargate profile default in cluster prod \(have: [^)]*\)|cannot check the Fargate profiles/,
    );
  });

  it('exits 2 when the cluster has no access entry for the principal', async () => {
    const { code, err } = await run([
      'whatif',
      '--snapshot',
      HEALTHY,
      '--delete-access-entry',
      'arn:aws:iam::111122223333:role/nobody',
    ]);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain(
      'no access entry for arn:aws:iam::111122223333:role/nobody in cluster prod (have: ',
    );
  });

  it('exits 2 when an access entry is asked of a cluster whose snapshot has none', async () => {
    const { code, err } = await run([
      'whatif',
      '--snapshot',
      KARPENTER,
      '--delete-access-entry',
      'arn:aws:iam::111122223333:role/prod-node-role',
    ]);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain("cannot check the access entries of cluster prod: the snapshot's access entries");
  });

  it('exits 2 naming the file and line:column of a truncated CloudTrail record', async () => {
    const whole = JSON.stringify(deleteNodegroupEvent(), null, 2);
    const { code, err } = await run(['whatif', '--snapshot', KARPENTER, '--event', 'event.json'], {
      'event.json': whole.slice(0, Math.floor(whole.length / 2)),
    });
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toMatch(/not valid JSON: .*\(event\.json, line \d+:\d+\)/);
  });

  it('exits 2 when the event lacks what the change needs', async () => {
    const event = deleteNodegroupEvent();
    const detail = event.detail as Record<string, unknown>;
    delete detail.requestParameters;
    delete detail.responseElements;
    const { code, err } = await run(['whatif', '--snapshot', KARPENTER, '--event', 'event.json'], {
      'event.json': JSON.stringify(event),
    });
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('not a usable EKS CloudTrail event');
  });

  it('exits 2 when the event is for another cluster', async () => {
    const { code, err } = await run(['whatif', '--snapshot', KARPENTER, '--event', 'event.json'], {
      'event.json': JSON.stringify(deleteNodegroupEvent('staging')),
    });
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('the event is for cluster staging, the snapshot is of cluster prod');
  });

  it('prints the reason and exits 0 for an event it ignores', async () => {
    const event = deleteNodegroupEvent();
    (event.detail as Record<string, unknown>).errorCode = 'ResourceInUseException';
    const { code, out, err } = await run(['whatif', '--snapshot', KARPENTER, '--event', 'event.json'], {
      'event.json': JSON.stringify(event),
    });
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(/^Event ignored: .+\n$/);
  });
});

describe('runCli rules', () => {
  it('lists every rule of the catalog', async () => {
    const { code, out } = await run(['rules']);
    expect(code).toBe(0);
    for (const rule of RULES) expect(out).toContain(rule.id);
  });

  it('prints the README table with --format markdown: a header and one row per rule', async () => {
    const { out } = await run(['rules', '--format', 'markdown']);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toBe('| rule | severity | what it means | fix |');
    expect(lines[1]).toBe('|---|---|---|---|');
    expect(lines.slice(2)).toHaveLength(RULES.length);
    for (const line of lines.slice(2))
      expect(line).toMatch(/^\| `[a-z-]+\/[a-z-]+` \| (critical|high|medium|low|info) \|/);
  });

  it('prints the catalog as JSON with --format json', async () => {
    const { out } = await run(['rules', '--format', 'json']);
    const parsed = JSON.parse(out) as { rules: Array<{ id: string; severity: string }> };
    expect(parsed.rules.map((r) => r.id)).toEqual(RULES.map((r) => r.id));
  });

  it('rejects --fail-on, which has no meaning for the catalog', async () => {
    const { code, err } = await run(['rules', '--fail-on', 'high']);
    expect(code).toBe(2);
    expect(err).toContain('option --fail-on does not apply to rules');
  });
});

describe('exitFor (--fail-on)', () => {
  const findings = [createFinding({ severity: 'high' }), createFinding({ severity: 'low' })];

  it('is 1 when a finding is at or above the threshold', () => {
    expect(exitFor(findings, 'high')).toBe(1);
    expect(exitFor(findings, 'medium')).toBe(1);
    expect(exitFor(findings, 'info')).toBe(1);
  });

  it('is 0 when every finding is below the threshold', () => {
    expect(exitFor(findings, 'critical')).toBe(0);
    expect(exitFor([], 'info')).toBe(0);
  });

  it('is 0 with none, whatever the findings', () => {
    expect(exitFor([createFinding({ severity: 'critical' })], 'none')).toBe(0);
  });
});

describe('runCli with the engine (scenarios)', () => {
  it('whatif --delete-nodegroup general on the Karpenter scenario exits 1 with a critical finding', async () => {
    const { code, out, err } = await run([
      'whatif',
      '--snapshot',
      KARPENTER,
      '--delete-nodegroup',
      'general',
      '--format',
      'json',
    ]);
    expect(err).toBe('');
    expect(code).toBe(1);
    const report = JSON.parse(out) as {
      change: string;
      effects: Array<{ summary: string; assumed: boolean }>;
      findings: Array<{ severity: string; ruleId: string }>;
    };
    expect(report.change).toBe('delete node group general');
    expect(report.effects.length).toBeGreaterThan(0);
    expect(report.findings.some((f) => f.severity === 'critical')).toBe(true);
  });

  it('prints the simulated effects above the findings in text', async () => {
    const { out } = await run(['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'general']);
    expect(out).toContain('What if: delete node group general');
    expect(out.indexOf('Simulated effects')).toBeGreaterThan(-1);
    expect(out.indexOf('Simulated effects')).toBeLessThan(out.indexOf('CRITICAL'));
  });

  it('replays a DeleteNodegroup CloudTrail record like the matching what-if', async () => {
    const byEvent = await run(
      ['whatif', '--snapshot', KARPENTER, '--event', 'event.json', '--format', 'json'],
      {
        'event.json': JSON.stringify(deleteNodegroupEvent()),
      },
    );
    const byFlag = await run([
      'whatif',
      '--snapshot',
      KARPENTER,
      '--delete-nodegroup',
      'general',
      '--format',
      'json',
    ]);
    expect(byEvent.code).toBe(1);
    const ruleIds = (out: string) =>
      (JSON.parse(out) as { findings: Array<{ ruleId: string }> }).findings.map((f) => f.ruleId);
    expect(ruleIds(byEvent.out)).toEqual(ruleIds(byFlag.out));
  });

  it('exits 0 with --fail-on none even when the change causes a critical finding', async () => {
    const { code } = await run([
      'whatif',
      '--snapshot',
      KARPENTER,
      '--delete-nodegroup',
      'general',
      '--fail-on',
      'none',
    ]);
    expect(code).toBe(0);
  });

  it('assess exits 1 on a YAML slip in aws-auth and 0 on a healthy cluster', async () => {
    const slip = await run(['assess', '--snapshot', YAML_SLIP]);
    const healthy = await run(['assess', '--snapshot', HEALTHY]);
    expect(slip.code).toBe(1);
    expect(slip.out).toContain('aws-auth/parse-failure');
    expect(healthy.code).toBe(0);
  });

  it('assess prints JSON that parses, with the cluster, with --format json', async () => {
    const { out } = await run(['assess', '--snapshot', YAML_SLIP, '--format', 'json']);
    const report = JSON.parse(out) as { cluster: { name: string }; summary: { total: number } };
    expect(report.cluster.name).toBe('prod');
    expect(report.summary.total).toBeGreaterThan(0);
  });

  it('assess prints Markdown with balanced code fences', async () => {
    const { out } = await run(['assess', '--snapshot', YAML_SLIP, '--format', 'markdown']);
    expect(out.startsWith('## Assessment')).toBe(true);
    expect((out.match(/^```/gm) ?? []).length % 2).toBe(0);
  });

  it('diff of a snapshot with itself finds nothing and exits 0', async () => {
    const { code, out } = await run(['diff', '--before', KARPENTER, '--after', KARPENTER]);
    expect(code).toBe(0);
    expect(out).toContain('No findings for cluster prod');
  });

  it('diff refuses snapshots of two different clusters', async () => {
    const other = snapshotWith((s) => {
      s.clusterArn = 'arn:aws:eks:eu-west-1:111122223333:cluster/staging';
      s.clusterName = 'staging';
    });
    const { code, err } = await run(['diff', '--before', KARPENTER, '--after', 'other.json'], {
      'other.json': other,
    });
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('different clusters');
  });

  it('colours text only on a terminal and never with NO_COLOR', async () => {
    const tty = await run(['assess', '--snapshot', YAML_SLIP], {}, { isTTY: true });
    const noColor = await run(
      ['assess', '--snapshot', YAML_SLIP],
      {},
      { isTTY: true, env: { NO_COLOR: '1' } },
    );
    const pipe = await run(['assess', '--snapshot', YAML_SLIP]);
    expect(tty.out).toContain('\u001b[');
    expect(noColor.out).not.toContain('\u001b[');
    expect(pipe.out).not.toContain('\u001b[');
  });

  it('demo reports every scenario, simulates node group deletions for a- scenarios and exits 0', async () => {
    const { code, out, err } = await run(['demo']);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('=== Scenario a-karpenter-shares-last-nodegroup-role — cluster prod');
    expect(out).toContain('=== Scenario healthy-api-mode — cluster prod');
    // a predicted outage is shown whole, with who loses access and the fix
    expect(out).toMatch(
      /What if: delete node group general[\s\S]*CRITICAL {2}nodegroup\/deletion-orphans-role/,
    );
    expect(out).toContain('ip-10-0-45-17.eu-west-1.compute.internal');
    expect(out).toContain('aws eks create-access-entry');
    // the switch that drops developers (mapped only in aws-auth) is shown whole too: critical
    expect(out).toMatch(
      /What if: switch authentication mode to API[\s\S]*CRITICAL {2}cluster\/auth-mode-drops-principals/,
    );
    // below critical, a what-if is one line
    expect(out).toMatch(/What-if: delete node group general — 1 finding \(1 info\)/);
  });

  it('demo exits 1 with --fail-on critical, since some scenarios have critical findings', async () => {
    const { code } = await run(['demo', '--fail-on', 'critical']);
    expect(code).toBe(1);
  });

  it('demo prints one JSON document with --format json', async () => {
    const { out } = await run(['demo', '--format', 'json']);
    const parsed = JSON.parse(out) as { scenarios: Array<{ scenario: string; whatIf: unknown[] }> };
    const karpenter = parsed.scenarios.find((s) => s.scenario === 'a-karpenter-shares-last-nodegroup-role');
    expect(karpenter?.whatIf.length).toBe(1);
    expect(parsed.scenarios.find((s) => s.scenario === 'healthy-api-mode')?.whatIf).toEqual([]);
  });

  it('demo exits 2 for a scenarios directory that does not exist', async () => {
    const { code, err } = await run(['demo', '--scenarios', '/no/such/dir']);
    expect(code).toBe(2);
    expectOneErrorLine(err);
    expect(err).toContain('cannot read the scenarios directory /no/such/dir: ENOENT');
  });
});

describe('runCli internal errors', () => {
  it('prints one line and exits 3 when something unexpected fails, and the stack with --debug', async () => {
    const failing = createFakeIo();
    failing.io.stdout = () => {
      throw new Error('stdout exploded');
    };
    expect(await runCli(['rules'], failing.io)).toBe(3);
    expectOneErrorLine(failing.err());
    expect(failing.err()).toContain('internal error: stdout exploded (run with --debug for the stack trace)');

    const debug = createFakeIo();
    debug.io.stdout = failing.io.stdout;
    expect(await runCli(['rules', '--debug'], debug.io)).toBe(3);
    expect(debug.err()).toMatch(/Error: stdout exploded\n\s+at /);
  });
});
