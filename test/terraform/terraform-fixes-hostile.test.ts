/**
 * The Terraform fixes with attacker-written values: role names and groups carrying HCL template
 * sequences (`${…}`, `%{…}`), quotes, backslashes and shell. Each block must still pass
 * `terraform fmt -check` and, as a whole file, `terraform validate`, and `terraform fmt` must not
 * find an interpolation: the hostile text stays one string literal.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT, runGolden } from '../../scripts/gen-cli-golden.ts';
import { type TerraformHarness, terraformHarness } from '../support/terraform.ts';

// biome-ignore lint/suspicious/noTemplateCurlyInString: an HCL interpolation, meant literally
const HOSTILE = 'x" ${file("/etc/passwd")} %{if true}y%{endif} \\ $(touch pwned)';

let tf: TerraformHarness;
let dir: string;
beforeAll(async () => {
  tf = await terraformHarness();
  dir = mkdtempSync(join(tmpdir(), 'tf-hostile-'));
}, 120_000);
afterAll(() => {
  tf?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The scenario with `from` replaced by `to` in every string (JSON-escaped). */
function hostileScenario(name: string, from: string, to: string): string {
  const text = readFileSync(join(REPO_ROOT, 'scenarios', `${name}.json`), 'utf8');
  const file = join(dir, `${name}.json`);
  writeFileSync(file, text.split(from).join(JSON.stringify(to).slice(1, -1)));
  return file;
}

it('hostile role names and groups stay string data in every Terraform fix, which still validates', async () => {
  const runs = [
    [
      'assess',
      '--snapshot',
      hostileScenario('d-access-entry-older-than-role', 'ci-deployer', `ci${HOSTILE}`),
    ],
    [
      'whatif',
      '--snapshot',
      hostileScenario('e-switch-to-api-mode', 'dev-team', `dev${HOSTILE}`),
      '--auth-mode',
      'API',
    ],
    [
      'assess',
      '--snapshot',
      hostileScenario('b-fargate-entry-removed-by-terraform', 'prod-fargate-pod-execution', `f${HOSTILE}`),
    ],
  ];
  const blocks: Array<{ where: string; text: string; fragment: boolean }> = [];
  for (const argv of runs) {
    const r = await runGolden([...argv, '--format', 'json']);
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        if (typeof o.terraform === 'string')
          blocks.push({
            where: argv.join(' '),
            text: o.terraform,
            fragment: typeof o.terraformFragmentOf === 'string',
          });
        for (const [k, x] of Object.entries(o)) if (k !== 'evidence') walk(x);
      }
    };
    walk(JSON.parse(r.stdout));
  }
  const hostile = blocks.filter((b) => b.text.includes('$${file('));
  expect(hostile.length).toBeGreaterThanOrEqual(3);
  for (const b of hostile) {
    expect(b.text, b.where).not.toMatch(/[^$]\$\{file\(/);
    expect(b.text, b.where).toContain('%%{if true}');
    expect((await tf.fmtCheck(b.text)).ok, b.where).toBe(true);
  }
  const whole = hostile.filter((b) => !b.fragment);
  const validated = await tf.validate(whole.map((b) => b.text));
  const bad = validated.flatMap((v, i) =>
    v.ok ? [] : [`${whole[i]?.where}: ${JSON.stringify(v.diagnostics)}`],
  );
  console.log(
    `hostile Terraform fixes: ${hostile.length} blocks, ${whole.length} whole files, ${whole.length - bad.length} validate`,
  );
  expect(bad).toEqual([]);
}, 600_000);
