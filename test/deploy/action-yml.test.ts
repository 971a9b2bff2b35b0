import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMMAND_OPTIONS, GLOBAL, OPTIONS } from '../../shared/cli/options.ts';
import { REPO_ROOT } from '../support/fake-io.ts';

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  'working-directory'?: string;
  with?: Record<string, unknown>;
}

const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
};
const steps = action.runs.steps;
const check = steps.find((s) => s.id === 'check');
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

describe('action.yml (the composite GitHub Action)', () => {
  it('is a composite action whose run steps all name their shell', () => {
    expect(action.runs.using).toBe('composite');
    for (const s of steps.filter((x) => x.run !== undefined)) expect(s.shell).toBe('bash');
  });

  it('passes only real whatif flags to the CLI', () => {
    const flags = [...(check?.run ?? '').matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1] ?? '');
    expect(flags).toContain('terraform-plan');
    const allowed = new Set<string>([...GLOBAL, ...COMMAND_OPTIONS.whatif]);
    for (const flag of flags) {
      expect(Object.keys(OPTIONS), `--${flag} is an option`).toContain(flag);
      expect(allowed.has(flag), `--${flag} applies to whatif`).toBe(true);
    }
  });

  it('runs the committed single-file CLI on Node 22, with nothing installed or built per job', () => {
    expect(check?.run).toContain('cli="$GITHUB_ACTION_PATH/action/cli.mjs"');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash array, not a JS template
    expect(check?.run).toContain('node "$cli" "${args[@]}"');
    expect(pkg.scripts['build:action']).toBe('node scripts/build-action.mjs');
    const node = steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(String(node?.with?.['node-version'])).toBe('22');
    for (const s of steps) expect(s.run ?? '').not.toMatch(/\bnpm\b|\bnpx\b|\byarn\b|\bpnpm\b/);
  });

  it('hands inputs over as environment variables, never inside the script', () => {
    for (const s of steps) expect(s.run ?? '').not.toMatch(/\$\{\{/);
    const used = Object.values(check?.env ?? {}).map((v) => /^\$\{\{ inputs\.([\w-]+) \}\}$/.exec(v)?.[1]);
    expect(used.sort()).toEqual(Object.keys(action.inputs).sort());
  });

  const dir = mkdtempSync(join(tmpdir(), 'action-yml-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the check step's script as the runner would, with the CLI from this checkout as the bin. */
  function runCheck(env: Record<string, string>) {
    const actionPath = join(dir, 'action');
    mkdirSync(join(actionPath, 'action'), { recursive: true });
    const main = join(REPO_ROOT, 'shared/cli/main.ts');
    writeFileSync(
      join(actionPath, 'action', 'cli.mjs'),
      `import { spawnSync } from 'node:child_process';
const r = spawnSync(process.execPath, ['--import', 'tsx', ${JSON.stringify(main)}, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 3);
`,
    );
    const summary = join(dir, `summary-${Object.keys(env).length}-${env.PLAN?.length}`);
    const output = join(dir, 'output');
    writeFileSync(summary, '');
    writeFileSync(output, '');
    const r = spawnSync('bash', ['-e', '-c', check?.run ?? 'exit 99'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        GITHUB_ACTION_PATH: actionPath,
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_OUTPUT: output,
        RUNNER_TEMP: dir,
        REGION: '',
        CLUSTER: '',
        FAIL_ON: 'critical',
        ...env,
      },
    });
    return { code: r.status, summary: readFileSync(summary, 'utf8'), output: readFileSync(output, 'utf8') };
  }

  it('writes the Markdown report to the job summary and fails the step on a critical finding', () => {
    const r = runCheck({
      PLAN: 'test/fixtures/terraform-plan/a-delete-nodegroup-general.json',
      SNAPSHOT: 'scenarios/a-karpenter-shares-last-nodegroup-role.json',
    });
    expect(r.code).toBe(1);
    expect(r.summary).toContain('# eks-auth-sentinel: Terraform plan check');
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(r.summary).toContain(`Checked by eks-auth-sentinel ${version} (snapshot schema 1).`);
    expect(r.summary).toContain('### CRITICAL · `nodegroup/deletion-orphans-role`');
    expect(r.output).toContain('exit-code=1');
  });

  it("fails at its default fail-on a plan that takes a principal's access for good", () => {
    const gate = action.inputs['fail-on']?.default ?? '';
    expect(gate).toBe('critical');
    for (const [plan, snapshot, rule] of [
      ['e-auth-mode-to-api.json', 'e-switch-to-api-mode.json', 'cluster/auth-mode-drops-principals'],
      ['d-admin-access-entry-deleted.json', 'healthy-api-mode.json', 'access-entry/deletion-locks-out'],
    ] as const) {
      const r = runCheck({
        PLAN: `test/fixtures/terraform-plan/${plan}`,
        SNAPSHOT: `scenarios/${snapshot}`,
        FAIL_ON: gate,
      });
      expect({ plan, code: r.code }).toEqual({ plan, code: 1 });
      expect(r.summary).toContain(`### CRITICAL · \`${rule}\``);
    }
  });

  it('passes a plan that changes nothing auth-relevant', () => {
    const r = runCheck({
      PLAN: 'test/fixtures/terraform-plan/no-auth-relevant-change.json',
      SNAPSHOT: 'scenarios/healthy-api-mode.json',
    });
    expect(r.code).toBe(0);
    expect(r.summary).toContain('nothing auth-relevant in this plan');
  });
});
