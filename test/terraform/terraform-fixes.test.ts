/**
 * Every Terraform fix the CLI prints over every scenario (`scenarios/` and each subfolder),
 * as a user would paste it: `assess`, `whatif` (every node group, Fargate profile, access entry
 * and auth mode), `diff` and `compare` between the files of one directory, all in JSON. Each
 * distinct Terraform block is `terraform fmt -check`ed; a whole file (no `terraformFragmentOf`)
 * must pass `terraform validate` with the AWS provider 5.100.0; a fragment must name what it is
 * added to. `migrate --format terraform` is checked on its own (terraform-migrate.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runGolden } from '../../scripts/gen-cli-golden.ts';
import { type TerraformHarness, terraformHarness } from '../support/terraform.ts';

interface ScenarioShape {
  nodegroups?: { data?: { name: string }[] };
  fargateProfiles?: { data?: { name: string }[] };
  accessEntries?: { data?: { principalArn: string }[] };
}

interface TerraformBlock {
  text: string;
  /** What a fragment is added to; undefined for a whole file. */
  fragmentOf?: string;
  /** Where it was first printed: the command line and the rule. */
  where: string;
}

/** The top level and every subfolder of scenarios/ (workload identity, EKS's own principals, EKS changes). */
const DIRS = [
  'scenarios',
  ...readdirSync(join(REPO_ROOT, 'scenarios'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `scenarios/${e.name}`)
    .sort(),
];

function scenarioFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => `${dir}/${f}`);
}

function argvsOf(dir: string): string[][] {
  const files = scenarioFiles(dir);
  const argvs: string[][] = [];
  for (const file of files) {
    argvs.push(['assess', '--snapshot', file, '--format', 'json']);
    const s = JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as ScenarioShape;
    const changes: string[][] = [];
    for (const n of s.nodegroups?.data ?? []) changes.push(['--delete-nodegroup', n.name]);
    for (const p of s.fargateProfiles?.data ?? []) changes.push(['--delete-fargate-profile', p.name]);
    for (const e of s.accessEntries?.data ?? []) changes.push(['--delete-access-entry', e.principalArn]);
    for (const mode of ['API', 'API_AND_CONFIG_MAP', 'CONFIG_MAP']) changes.push(['--auth-mode', mode]);
    for (const c of changes) argvs.push(['whatif', '--snapshot', file, ...c, '--format', 'json']);
    for (const other of files) {
      if (other === file) continue;
      argvs.push(['diff', '--before', file, '--after', other, '--format', 'json']);
      argvs.push(['compare', '--from', file, '--to', other, '--format', 'json']);
    }
  }
  return argvs;
}

/** Every object with a string `terraform` (a remediation, a compare fix-all) in a JSON value. */
function collect(value: unknown, where: string, rule: string | undefined, out: Map<string, TerraformBlock>) {
  if (Array.isArray(value)) {
    for (const v of value) collect(v, where, rule, out);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const o = value as Record<string, unknown>;
  const here = typeof o.ruleId === 'string' ? o.ruleId : rule;
  if (typeof o.terraform === 'string') {
    const fragmentOf = typeof o.terraformFragmentOf === 'string' ? o.terraformFragmentOf : undefined;
    const key = `${fragmentOf ?? ''}\u0000${o.terraform}`;
    if (!out.has(key))
      out.set(key, {
        text: o.terraform,
        ...(fragmentOf === undefined ? {} : { fragmentOf }),
        where: `${where}${here ? ` [${here}]` : ''}`,
      });
  }
  for (const [k, v] of Object.entries(o)) if (k !== 'evidence') collect(v, where, here, out);
}

async function allTerraformBlocks(): Promise<{ runs: number; blocks: TerraformBlock[] }> {
  const out = new Map<string, TerraformBlock>();
  let runs = 0;
  for (const dir of DIRS) {
    for (const argv of argvsOf(dir)) {
      const r = await runGolden(argv);
      runs += 1;
      if (r.stdout.trim() === '') continue;
      collect(JSON.parse(r.stdout), argv.join(' '), undefined, out);
    }
  }
  return { runs, blocks: [...out.values()] };
}

let tf: TerraformHarness;
let gathered: { runs: number; blocks: TerraformBlock[] };
beforeAll(async () => {
  [tf, gathered] = await Promise.all([terraformHarness(), allTerraformBlocks()]);
}, 180_000);
afterAll(() => tf?.close());

/** Runs `f` over `items`, `limit` at a time. */
async function pool<T, R>(items: readonly T[], limit: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await f(items[i] as T);
    }),
  );
  return out;
}

describe('every Terraform fix of every scenario', () => {
  it('has some to check', () => {
    expect(gathered.blocks.length).toBeGreaterThan(10);
  });

  it('is never a shell command, and a fragment names what it is added to', () => {
    for (const b of gathered.blocks) {
      expect(b.text, b.where).not.toMatch(/^\s*(terraform|aws|kubectl|eksctl)\s/m);
      if (b.fragmentOf !== undefined) expect(b.fragmentOf.trim().length, b.where).toBeGreaterThan(10);
    }
  });

  it('passes terraform fmt -check; each whole file passes terraform validate', async () => {
    const started = Date.now();
    const fmt = await pool(gathered.blocks, 3, (b) => tf.fmtCheck(b.text));
    const whole = gathered.blocks.filter((b) => b.fragmentOf === undefined);
    const validated = await tf.validate(whole.map((b) => b.text));
    const fmtBad = gathered.blocks.flatMap((b, i) =>
      fmt[i]?.ok ? [] : [`${b.where}: ${fmt[i]?.message}\n${b.text}`],
    );
    const validateBad = whole.flatMap((b, i) => {
      const v = validated[i];
      if (v?.ok) return [];
      const why = v?.diagnostics.map((d) => `${d.summary}${d.detail ? `: ${d.detail}` : ''}`).join('; ');
      return [`${b.where}: ${why}\n${b.text}`];
    });
    console.log(
      `Terraform fixes: ${gathered.runs} CLI runs, ${gathered.blocks.length} distinct Terraform blocks ` +
        `(${whole.length} whole files, ${gathered.blocks.length - whole.length} labelled fragments); ` +
        `fmt -check ${gathered.blocks.length - fmtBad.length}/${gathered.blocks.length} pass, ` +
        `validate ${whole.length - validateBad.length}/${whole.length} pass ` +
        `(Terraform ${tf.version}, hashicorp/aws ${tf.providerVersion}, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    expect({ fmtBad, validateBad }).toEqual({ fmtBad: [], validateBad: [] });
  }, 600_000);
});
