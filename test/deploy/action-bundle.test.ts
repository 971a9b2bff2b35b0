/**
 * The Action's CLI as released: `action/cli.mjs`, one file committed with each release
 * (`npm run build:action`), which action.yml runs on Node 22 with nothing installed. The file must
 * be what the sources build today (rebuilt here into a directory of the test's own and compared
 * byte for byte), must run from a directory with no package.json and no node_modules around it
 * (the version is built in), and must run the Action's command both from files and live against
 * the sandbox on Node 22, and as action.yml's check step runs it. On Node 20 (the machine's), the
 * live CLI prints nothing of the AWS SDK's Node version warning.
 *
 * Node 22 comes from tools/node22 (`npm ci --prefix tools/node22`); without it the Node 22 runs
 * are skipped with a loud reason.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { loadScenario, ROOT } from '../support/snapshot-builder.ts';

const ARTIFACT = join(ROOT, 'action', 'cli.mjs');
const NODE22 = join(ROOT, 'tools', 'node22', 'node_modules', '.bin', 'node');
const HAVE_NODE22 = existsSync(NODE22);
if (!HAVE_NODE22) {
  console.warn(
    '\n*** SKIPPED the Node 22 runs of test/deploy/action-bundle.test.ts: tools/node22/node_modules is missing — run `npm ci --prefix tools/node22` ***\n',
  );
}
const PLAN = join(ROOT, 'test', 'fixtures', 'terraform-plan', 'a-delete-nodegroup-general.json');
const SNAPSHOT = join(ROOT, 'scenarios', 'a-karpenter-shares-last-nodegroup-role.json');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

let work: string;
/** The committed artifact, copied alone into an empty directory. */
let cli: string;

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** Runs the CLI with `node` and only the environment given (no AWS_*, nothing of vitest's). */
function run(node: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      node,
      [cli, ...args],
      {
        cwd: work,
        env: { PATH: process.env.PATH ?? '', HOME: work, NO_COLOR: '1', ...env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, out, err) => resolve({ code: error === null ? 0 : (error.code as number | null), out, err }),
    );
  });
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'action-bundle-'));
  cli = join(work, 'cli.mjs');
  copyFileSync(ARTIFACT, cli);
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('action/cli.mjs (the Action’s single-file CLI)', () => {
  it('is what the sources build today, byte for byte (else: npm run build:action)', () => {
    const rebuilt = join(work, 'rebuilt', 'cli.mjs');
    execFileSync(process.execPath, ['scripts/build-action.mjs', '--outfile', rebuilt], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    const committed = readFileSync(ARTIFACT);
    expect(committed.equals(readFileSync(rebuilt)), 'action/cli.mjs is stale: run npm run build:action').toBe(
      true,
    );
    // Node 22 warns (DEP0040) on every use of the `punycode` built-in: no package may load it.
    expect(committed.toString('utf8')).not.toMatch(/["']punycode["']/);
    // git stores it compressed (≈ 0.8 MB); a budget that a dependency's growth would cross.
    expect(statSync(ARTIFACT).size).toBeLessThan(4 * 1024 * 1024);
  });

  it.skipIf(!HAVE_NODE22)(
    'prints the package version on Node 22, with no package.json around it',
    async () => {
      expect(existsSync(join(work, 'package.json'))).toBe(false);
      const r = await run(NODE22, ['--version']);
      expect(r).toEqual({ code: 0, out: `eks-auth-sentinel ${version} (snapshot schema 1)\n`, err: '' });
    },
  );

  it.skipIf(!HAVE_NODE22)('checks a Terraform plan against a snapshot file on Node 22', async () => {
    const r = await run(NODE22, [
      'whatif',
      '--terraform-plan',
      PLAN,
      '--snapshot',
      SNAPSHOT,
      '--format',
      'json',
      '--fail-on',
      'critical',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as { tool: { version: string } };
    expect(report.tool.version).toBe(version);
    expect(r.out).toContain('"ruleId": "nodegroup/deletion-orphans-role"');
  });

  it.skipIf(!HAVE_NODE22)('runs as action.yml’s check step runs it, with Node 22 first on PATH', () => {
    const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
      runs: { steps: { id?: string; run?: string }[] };
    };
    const script = action.runs.steps.find((s) => s.id === 'check')?.run ?? 'exit 99';
    // The Action's checkout: the committed artifact where action.yml looks for it, nothing else.
    const actionPath = join(work, 'action-checkout');
    mkdirSync(join(actionPath, 'action'), { recursive: true });
    copyFileSync(ARTIFACT, join(actionPath, 'action', 'cli.mjs'));
    const summary = join(work, 'summary.md');
    const output = join(work, 'output');
    writeFileSync(summary, '');
    writeFileSync(output, '');
    const path = `${dirname(NODE22)}:${process.env.PATH ?? ''}`;
    const env = {
      PATH: path,
      HOME: work,
      GITHUB_ACTION_PATH: actionPath,
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_OUTPUT: output,
      RUNNER_TEMP: work,
      PLAN,
      SNAPSHOT,
      REGION: '',
      CLUSTER: '',
      FAIL_ON: 'critical',
    };
    expect(spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout).toMatch(/^v22\./);
    const r = spawnSync('bash', ['-e', '-c', script], { cwd: work, env, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1);
    const text = readFileSync(summary, 'utf8');
    expect(text).toContain(`Checked by eks-auth-sentinel ${version} (snapshot schema 1).`);
    expect(text).toContain('### CRITICAL · `nodegroup/deletion-orphans-role`');
    expect(readFileSync(output, 'utf8')).toContain('exit-code=1');
  });

  describe('live, against the sandbox', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startSandbox({
        clusters: [{ snapshot: loadScenario('a-karpenter-shares-last-nodegroup-role') }],
      });
    });
    afterAll(async () => {
      await sandbox?.close();
    });

    it.skipIf(!HAVE_NODE22)(
      'checks the plan against the cluster read live on Node 22 (SDK clients, Kubernetes API)',
      async () => {
        const r = await run(
          NODE22,
          ['whatif', '--terraform-plan', PLAN, '--region', sandbox.env.AWS_REGION, '--format', 'markdown'],
          { ...sandbox.env },
        );
        expect(r.err).toBe('');
        expect(r.code).toBe(1);
        expect(r.out).toContain('### CRITICAL · `nodegroup/deletion-orphans-role`');
      },
    );

    it('prints none of the AWS SDK’s Node version warning on Node 20, its switch unset', async () => {
      expect(process.versions.node.split('.')[0]).toBe('20');
      const env: Record<string, string> = { ...sandbox.env };
      expect(env).not.toHaveProperty('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED');
      const r = await run(
        process.execPath,
        ['report', '--region', sandbox.env.AWS_REGION, '--fail-on', 'none'],
        env,
      );
      expect(r.err).not.toContain('NodeVersionSupportWarning');
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toContain('nodegroup/deletion-orphans-role');
    });
  });
});
