/** The CLI papercuts of issues 10 and 17, one test each. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toAwsApiError } from '../../shared/adapters/errors.ts';
import { parseCommandLine } from '../../shared/cli/args.ts';
import { createNodeIo } from '../../shared/cli/node-io.ts';
import { COMMAND_FORMATS, COMMAND_OPTIONS, COMMANDS, type CommandName } from '../../shared/cli/options.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { RENDER_FORMATS } from '../../shared/core/render/formats.ts';
import { createFakeIo, deleteNodegroupEvent, REPO_ROOT } from '../support/fake-io.ts';

const KARPENTER = 'scenarios/a-karpenter-shares-last-nodegroup-role.json';

function karpenterWith(edit: (s: Record<string, unknown>) => void): string {
  const snapshot = JSON.parse(readFileSync(join(REPO_ROOT, KARPENTER), 'utf8')) as Record<string, unknown>;
  edit(snapshot);
  return JSON.stringify(snapshot, null, 2);
}

async function run(argv: string[], files: Record<string, string> = {}) {
  const fake = createFakeIo(files);
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

describe('issue 10 CLI papercuts', () => {
  it('accepts --fail-on in the case the output prints it (HIGH, None)', async () => {
    const whatif = ['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'general'];
    const upper = await run([...whatif, '--fail-on', 'HIGH']);
    expect(upper.err).toBe('');
    expect(upper.code).toBe(1);
    const none = await run([...whatif, '--fail-on', 'None']);
    expect(none.err).toBe('');
    expect(none.code).toBe(0);
  });
});

describe('issue 10 text output', () => {
  it('shows each fix once, flush left between indented frame lines, with no Markdown fence', async () => {
    const { code, out } = await run(['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'general']);
    expect(code).toBe(1);
    expect(out).not.toMatch(/^ {0,3}(`{3,}|~{3,})/m);
    const command = 'aws eks create-access-entry --cluster-name prod --region eu-west-1 \\';
    expect(out.split('\n').filter((line) => line === command)).toHaveLength(1);
    expect(out).toMatch(/\n {4}--- sh ---\n# Durable: access entries[\s\S]*?\n {4}--- end ---\n/);
    expect(out).toMatch(/\n {4}--- yaml ---\n- rolearn: arn:aws:iam::111122223333:role\/prod-node-role\n/);
  });
});

describe('issue 10 diff order', () => {
  it('refuses --before captured after --after, naming both times, exit 2', async () => {
    const later = karpenterWith((s) => {
      s.capturedAt = '2030-01-01T00:00:00.000Z';
    });
    const { code, out, err } = await run(['diff', '--before', 'later.json', '--after', KARPENTER], {
      'later.json': later,
    });
    const before = (JSON.parse(readFileSync(join(REPO_ROOT, KARPENTER), 'utf8')) as { capturedAt: string })
      .capturedAt;
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(/^eks-auth-sentinel: [^\n]+\n$/);
    expect(err).toContain('2030-01-01T00:00:00.000Z');
    expect(err).toContain(before);
    const inOrder = await run(['diff', '--before', KARPENTER, '--after', 'later.json'], {
      'later.json': later,
    });
    expect(inOrder.code).toBe(0);
  });
});

describe('issue 10 version stamp', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  const tool = { name: 'eks-auth-sentinel', version: pkg.version, snapshotSchemaVersion: 1 };

  it('--version names the snapshot schema version too', async () => {
    const { code, out } = await run(['--version']);
    expect(code).toBe(0);
    expect(out).toBe(`eks-auth-sentinel ${pkg.version} (snapshot schema 1)\n`);
  });

  it.each([
    ['assess', ['assess', '--snapshot', KARPENTER]],
    ['whatif', ['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'general']],
    ['diff', ['diff', '--before', KARPENTER, '--after', KARPENTER]],
  ])('%s --format json carries tool {name, version, snapshotSchemaVersion} first', async (_, argv) => {
    const { out } = await run([...argv, '--format', 'json']);
    const parsed = JSON.parse(out) as Record<string, unknown>;
    expect(Object.keys(parsed)[0]).toBe('tool');
    expect(parsed.tool).toEqual(tool);
  });
});

describe('issue 10 credential errors', () => {
  // What the SDK throws: a named error with the HTTP status in $metadata (403 for all of these).
  it.each([
    'InvalidSignatureException',
    'SignatureDoesNotMatch',
    'UnrecognizedClientException',
    'InvalidClientTokenId',
    'ExpiredToken',
  ])('%s is a credential problem, not a missing eks:DescribeCluster', (name) => {
    const thrown = Object.assign(new Error('The request signature we calculated does not match'), {
      name,
      $metadata: { httpStatusCode: 403 },
    });
    const error = toAwsApiError(thrown, { service: 'eks', operation: 'DescribeCluster', cluster: 'prod' });
    expect(error.code).toBe('unauthorized');
    expect(error.message).toContain('AWS rejected the credentials in use');
    expect(error.message).not.toContain('is missing eks:DescribeCluster');
    expect(error.message).not.toMatch(/the monitor['’]s (credentials|IAM role)/);
  });

  it('names a missing permission without assuming whose credentials they are', () => {
    const thrown = Object.assign(new Error('not authorized'), {
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 403 },
    });
    const error = toAwsApiError(thrown, { service: 'eks', operation: 'DescribeCluster', cluster: 'prod' });
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('is missing eks:DescribeCluster');
    expect(error.message).toContain('yours from the CLI');
  });
});

describe('issue 10 event from elsewhere', () => {
  const whatif = ['whatif', '--snapshot', KARPENTER, '--event', 'record.json'];

  it('refuses an event from another Region, naming both, exit 2', async () => {
    const event = deleteNodegroupEvent();
    event.region = 'us-east-1';
    (event.detail as Record<string, unknown>).awsRegion = 'us-east-1';
    const { code, out, err } = await run(whatif, { 'record.json': JSON.stringify(event) });
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(/^eks-auth-sentinel: [^\n]+\n$/);
    expect(err).toContain('Region us-east-1');
    expect(err).toContain('Region eu-west-1');
  });

  it('refuses an event from another account, naming both, exit 2', async () => {
    const event = deleteNodegroupEvent();
    event.account = '999988887777';
    (event.detail as Record<string, unknown>).recipientAccountId = '999988887777';
    const { code, err } = await run(whatif, { 'record.json': JSON.stringify(event) });
    expect(code).toBe(2);
    expect(err).toContain('account 999988887777');
    expect(err).toContain('account 111122223333');
  });
});

describe('issue 17: --format and --fail-on as the README says', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const rows = readme
    .split('\n')
    .filter((l) => /^\| `[a-z]+`/.test(l) && l.includes('| `text`'))
    .map((l) => {
      const [commands = '', formats = '', failOn = ''] = l.split('|').slice(1, -1);
      const words = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
      return { commands: words(commands), formats: words(formats), failOn: !failOn.trim().startsWith('—') };
    });
  /** The least a command needs besides --format/--fail-on to parse (live ones with a Region). */
  const base: Record<CommandName, string[]> = {
    assess: ['--snapshot', KARPENTER],
    diff: ['--before', KARPENTER, '--after', KARPENTER],
    whatif: ['--snapshot', KARPENTER, '--auth-mode', 'API'],
    compare: ['--from', KARPENTER, '--to', KARPENTER],
    snapshot: ['--cluster', 'prod', '--region', 'eu-west-1'],
    report: ['--region', 'eu-west-1'],
    migrate: ['--snapshot', KARPENTER],
    watch: ['--cluster', 'prod', '--region', 'eu-west-1'],
    rules: [],
    demo: [],
  };

  it('names every command once, with exactly the formats and threshold the option table gives it', () => {
    expect(rows.flatMap((r) => r.commands).sort()).toEqual([...COMMANDS].sort());
    for (const row of rows) {
      for (const command of row.commands as CommandName[]) {
        expect(row.formats, command).toEqual([...(COMMAND_FORMATS[command] ?? RENDER_FORMATS)]);
        expect(COMMAND_OPTIONS[command].includes('fail-on'), command).toBe(row.failOn);
        for (const format of row.formats) {
          const argv = [
            command,
            ...base[command],
            '--format',
            format,
            ...(row.failOn ? ['--fail-on', 'none'] : []),
          ];
          expect(() => parseCommandLine(argv), argv.join(' ')).not.toThrow();
        }
      }
    }
  });

  it('migrate: a blocker fails every threshold but none', async () => {
    const slip = 'scenarios/c-yaml-slip-in-maproles.json';
    const plain = await run(['migrate', '--snapshot', slip, '--format', 'json']);
    expect(plain.code).toBe(1);
    expect((JSON.parse(plain.out) as { blockers: unknown[] }).blockers.length).toBeGreaterThan(0);
    for (const failOn of ['critical', 'low'])
      expect((await run(['migrate', '--snapshot', slip, '--fail-on', failOn])).code).toBe(1);
    const none = await run(['migrate', '--snapshot', slip, '--fail-on', 'none', '--format', 'json']);
    expect(none.err).toBe('');
    expect(none.code).toBe(0);
    expect(none.out).toBe(plain.out);
  });

  it('rules and snapshot refuse a threshold they cannot apply, naming the option', async () => {
    for (const argv of [
      ['rules', '--fail-on', 'high'],
      ['snapshot', ...base.snapshot, '--format', 'markdown'],
    ]) {
      const { code, out, err } = await run(argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(out).toBe('');
      expect(err).toMatch(/^eks-auth-sentinel: [^\n]*--(fail-on|format)[^\n]*\n$/);
    }
  });
});

describe('issue 17: a directory given as a file', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    const real = createNodeIo(pathToFileURL(join(REPO_ROOT, 'shared', 'cli', 'main.ts')).href);
    return {
      io: { ...real, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) },
      out: () => out.join(''),
      err: () => err.join(''),
    };
  };
  const dir = join(REPO_ROOT, 'scenarios');

  it.each([
    ['--snapshot', ['assess', '--snapshot', dir]],
    ['--before', ['diff', '--before', dir, '--after', join(REPO_ROOT, KARPENTER)]],
    ['--event', ['whatif', '--snapshot', join(REPO_ROOT, KARPENTER), '--event', dir]],
    ['--terraform-plan', ['whatif', '--snapshot', join(REPO_ROOT, KARPENTER), '--terraform-plan', dir]],
    ['--aws-auth', ['whatif', '--snapshot', join(REPO_ROOT, KARPENTER), '--aws-auth', dir]],
    ['--from', ['compare', '--from', dir, '--to', join(REPO_ROOT, KARPENTER)]],
  ])('%s DIR: "DIR is a directory, expected a file", exit 2', async (_, argv) => {
    const fake = io();
    const code = await runCli(argv, fake.io);
    expect(code).toBe(2);
    expect(fake.out()).toBe('');
    expect(fake.err()).toBe(`eks-auth-sentinel: ${dir} is a directory, expected a file\n`);
  });
  it('an output: report --out DIR says so too; and demo --scenarios FILE the other way round', async () => {
    const out = io();
    expect(await runCli(['report', '--snapshot', join(REPO_ROOT, KARPENTER), '--out', dir], out.io)).toBe(2);
    expect(out.err()).toBe(`eks-auth-sentinel: ${dir} is a directory, expected a file\n`);
    const demo = io();
    const readme = join(REPO_ROOT, 'README.md');
    expect(await runCli(['demo', '--scenarios', readme], demo.io)).toBe(2);
    expect(demo.err()).toBe(`eks-auth-sentinel: ${readme} is a file, expected a directory\n`);
  });
});

describe('issue 17: - reads standard input, through the real CLI', () => {
  const cli = (argv: string[], input = '') =>
    spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'shared', 'cli', 'main.ts'), ...argv], {
      cwd: REPO_ROOT,
      input,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
  const file = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
  const E = 'scenarios/e-switch-to-api-mode.json';
  const PLAN = 'test/fixtures/terraform-plan/e-auth-mode-to-api.json';
  const EVENT = 'test/fixtures/cloudtrail/delete-nodegroup.json';
  const PROPOSAL = 'test/fixtures/aws-auth-proposals/adds-developers.yaml';

  it.each([
    ['--snapshot', ['assess', '--snapshot', '-'], ['assess', '--snapshot', E], E],
    ['--before', ['diff', '--before', '-', '--after', E], ['diff', '--before', E, '--after', E], E],
    ['--after', ['diff', '--before', E, '--after', '-'], ['diff', '--before', E, '--after', E], E],
    [
      '--event',
      ['whatif', '--snapshot', KARPENTER, '--event', '-'],
      ['whatif', '--snapshot', KARPENTER, '--event', EVENT],
      EVENT,
    ],
    [
      '--terraform-plan',
      ['whatif', '--snapshot', E, '--terraform-plan', '-'],
      ['whatif', '--snapshot', E, '--terraform-plan', PLAN],
      PLAN,
    ],
    [
      '--aws-auth',
      ['whatif', '--snapshot', E, '--aws-auth', '-'],
      ['whatif', '--snapshot', E, '--aws-auth', PROPOSAL],
      PROPOSAL,
    ],
    ['--from', ['compare', '--from', '-', '--to', E], ['compare', '--from', E, '--to', E], E],
    ['--to', ['compare', '--from', E, '--to', '-'], ['compare', '--from', E, '--to', E], E],
  ])('%s -: the same answer as from the file', (_, stdinArgv, fileArgv, input) => {
    const fromStdin = cli([...stdinArgv, '--format', 'json'], file(input));
    const fromFile = cli([...fileArgv, '--format', 'json']);
    expect(fromStdin.stderr).toBe(fromFile.stderr);
    expect(fromStdin.status).toBe(fromFile.status);
    const strip = (out: string) => out.replaceAll(PLAN, 'stdin').replaceAll(PROPOSAL, 'stdin');
    expect(fromStdin.stdout).toBe(strip(fromFile.stdout));
    expect(fromStdin.stdout.length).toBeGreaterThan(50);
  });

  it('names stdin where a file name would be, and reads it once per command', () => {
    const bad = cli(['assess', '--snapshot', '-'], '{"schemaVersion": 1,\n  oops');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^eks-auth-sentinel: not valid JSON[^\n]*\(stdin, line 2:3\)\n$/);
    const twice = cli(['diff', '--before', '-', '--after', '-'], file(E));
    expect(twice.status).toBe(2);
    expect(twice.stdout).toBe('');
    expect(twice.stderr).toMatch(
      /^eks-auth-sentinel: only one input can be read from stdin \(-\), not --before and --after/,
    );
  });
});
