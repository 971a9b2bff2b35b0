/**
 * `migrate --format terraform > access.tf`: for every scenario whose plan creates access entries,
 * the output is a file `terraform fmt -check` and `terraform validate` (AWS provider 5.100.0)
 * accept as it is, with one `aws_eks_access_entry` per planned entry.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT, runGolden } from '../../scripts/gen-cli-golden.ts';
import { type TerraformHarness, terraformHarness } from '../support/terraform.ts';

const DIRS = [
  'scenarios',
  ...readdirSync(join(REPO_ROOT, 'scenarios'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `scenarios/${e.name}`)
    .sort(),
];
const FILES = DIRS.flatMap((dir) =>
  readdirSync(join(REPO_ROOT, dir))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => `${dir}/${f}`),
);

let tf: TerraformHarness;
beforeAll(async () => {
  tf = await terraformHarness();
}, 120_000);
afterAll(() => tf?.close());

it('migrate --format terraform is a whole file terraform validate accepts, for every scenario with a migration', async () => {
  const files: Array<{ scenario: string; text: string; entries: number }> = [];
  for (const scenario of FILES) {
    const json = await runGolden(['migrate', '--snapshot', scenario, '--format', 'json']);
    const plan = JSON.parse(json.stdout) as { accessEntries: unknown[] };
    if (plan.accessEntries.length === 0) continue;
    const tfRun = await runGolden(['migrate', '--snapshot', scenario, '--format', 'terraform']);
    expect(tfRun.stderr, scenario).toBe('');
    files.push({ scenario, text: tfRun.stdout, entries: plan.accessEntries.length });
  }
  expect(files.length).toBeGreaterThanOrEqual(5);
  const bad: string[] = [];
  for (const f of files) {
    const fmt = await tf.fmtCheck(f.text);
    if (!fmt.ok) bad.push(`${f.scenario}: fmt: ${fmt.message}`);
    const resources = f.text.match(/^resource "aws_eks_access_entry" /gm)?.length ?? 0;
    if (resources !== f.entries)
      bad.push(`${f.scenario}: ${resources} aws_eks_access_entry for ${f.entries} planned entries`);
  }
  const validated = await tf.validate(files.map((f) => f.text));
  validated.forEach((v, i) => {
    if (!v.ok)
      bad.push(
        `${files[i]?.scenario}: validate: ${v.diagnostics.map((d) => `${d.summary}: ${d.detail ?? ''}`).join('; ')}`,
      );
  });
  console.log(
    `migrate --format terraform: ${FILES.length} scenarios, ${files.length} with a migration (${files.reduce((n, f) => n + f.entries, 0)} access entries); fmt -check and validate pass for ${files.length - new Set(bad.map((b) => b.split(':')[0])).size}/${files.length}`,
  );
  expect(bad).toEqual([]);
}, 600_000);
