/**
 * The default gate (`--fail-on critical`: the CLI's, the GitHub Action's and the one `migrate`'s
 * verify step runs) against changes that take a principal's access for good: the one-way switch
 * to API mode dropping people mapped only in aws-auth (incident e: `developers`), and a deleted
 * access entry of a person — as a what-if and as a Terraform plan. Each must fail the gate.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/run-cli.ts';
import { applyMigrationPlan } from '../../shared/core/migrate/apply.ts';
import { planMigration } from '../../shared/core/migrate/migration-plan.ts';
import { migrationAwsCli } from '../../shared/core/migrate/render-migration.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { createFakeIo, REPO_ROOT } from '../support/fake-io.ts';

const PLANS = 'test/fixtures/terraform-plan';
const E = 'scenarios/e-switch-to-api-mode.json';
const HEALTHY = 'scenarios/healthy-api-mode.json';
const ADMIN = 'arn:aws:iam::111122223333:role/platform-admin';

async function run(argv: string[], files: Record<string, string> = {}) {
  const fake = createFakeIo(files);
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

function findings(out: string): Array<{ ruleId: string; severity: string; subject: string }> {
  const report = JSON.parse(out) as {
    findings?: Array<{ ruleId: string; severity: string; subject: string }>;
    clusters?: Array<{ findings: Array<{ ruleId: string; severity: string; subject: string }> }>;
  };
  return report.findings ?? (report.clusters ?? []).flatMap((c) => c.findings);
}

describe('the default gate against a lockout', () => {
  it('fails on the switch to API mode that drops developers (mapped only in aws-auth): critical', async () => {
    const r = await run(['whatif', '--snapshot', E, '--auth-mode', 'API', '--format', 'json']);
    expect(r.code).toBe(1);
    expect(findings(r.out)).toContainEqual(
      expect.objectContaining({ ruleId: 'cluster/auth-mode-drops-principals', severity: 'critical' }),
    );
  });

  it('fails on a deleted access entry of a person nothing else lets in: critical', async () => {
    const r = await run([
      'whatif',
      '--snapshot',
      HEALTHY,
      '--delete-access-entry',
      ADMIN,
      '--format',
      'json',
    ]);
    expect(r.code).toBe(1);
    expect(findings(r.out)).toEqual([
      expect.objectContaining({
        ruleId: 'access-entry/deletion-locks-out',
        severity: 'critical',
        subject: ADMIN,
      }),
    ]);
  });

  it('fails on a Terraform plan that does either', async () => {
    for (const [plan, snapshot, rule] of [
      ['e-auth-mode-to-api.json', E, 'cluster/auth-mode-drops-principals'],
      ['d-admin-access-entry-deleted.json', HEALTHY, 'access-entry/deletion-locks-out'],
    ] as const) {
      const r = await run([
        'whatif',
        '--snapshot',
        snapshot,
        '--terraform-plan',
        `${PLANS}/${plan}`,
        '--format',
        'json',
      ]);
      expect({ plan, code: r.code }).toEqual({ plan, code: 1 });
      expect(findings(r.out).map((f) => `${f.severity} ${f.ruleId}`)).toContain(`critical ${rule}`);
    }
  });

  it("fails migrate's verify step while the switch would still drop someone, and passes it once the plan is applied", async () => {
    const snapshot = JSON.parse(readFileSync(join(REPO_ROOT, E), 'utf8')) as ClusterSnapshot;
    const plan = planMigration(snapshot);
    const script = migrationAwsCli(plan);
    if (!script.ok) throw new Error(script.reason);
    const verify = script.text.split('\n').find((l) => l.startsWith('eks-auth-sentinel '));
    expect(verify).toBe('eks-auth-sentinel whatif --cluster prod --region eu-west-1 --auth-mode API');
    // The same command against a file instead of the live cluster (same gate: no --fail-on given).
    const argv = (file: string) =>
      (verify ?? '')
        .split(' ')
        .slice(1)
        .join(' ')
        .replace('--cluster prod --region eu-west-1', `--snapshot ${file}`)
        .split(' ');
    expect((await run(argv(E))).code).toBe(1);
    const migrated = JSON.stringify(applyMigrationPlan(snapshot, plan));
    const after = await run(argv('migrated.json'), { 'migrated.json': migrated });
    expect({ code: after.code, err: after.err }).toEqual({ code: 0, err: '' });
  });
});
