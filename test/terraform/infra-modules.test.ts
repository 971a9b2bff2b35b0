/**
 * The Terraform modules of infra/terraform pass `terraform fmt -check` file by file and
 * `terraform validate` as a whole (offline, the provider from the filesystem mirror).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/gen-cli-golden.ts';
import { type TerraformHarness, terraformHarness } from '../support/terraform.ts';

let tf: TerraformHarness;
beforeAll(async () => {
  tf = await terraformHarness();
}, 120_000);
afterAll(() => tf?.close());

it.each(['aws-auth-audit-subscription'])(
  'infra/terraform/%s is formatted and valid',
  async (module) => {
    const dir = join(REPO_ROOT, 'infra', 'terraform', module);
    const texts = readdirSync(dir)
      .filter((f) => f.endsWith('.tf'))
      .sort()
      .map((f) => readFileSync(join(dir, f), 'utf8'));
    for (const text of texts) expect(await tf.fmtCheck(text)).toEqual({ ok: true, message: '' });
    const [result] = await tf.validate([texts.join('\n')]);
    expect(result?.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result?.ok).toBe(true);
  },
  240_000,
);
