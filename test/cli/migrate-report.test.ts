/** `migrate` and `report --snapshot/--format html/--out` through `runCli`, on the scenario files. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../shared/adapters/file-store.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { createFakeIo } from '../support/fake-io.ts';

const work = mkdtempSync(join(tmpdir(), 'sentinel-migrate-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function run(argv: string[]) {
  const fake = createFakeIo({}, { env: {} });
  fake.io.live = {
    captureDeps: async () => {
      throw new Error('no live read expected');
    },
    snapshotStore: () => {
      throw new Error('not used');
    },
    writeFileAtomic: (path, text) => writeFileAtomic(path, text),
  };
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

const scenario = (name: string) => `scenarios/${name}.json`;

describe('migrate', () => {
  it('prints the JSON plan, exactly {cluster, steps, accessEntries, blockers}, exit 0 without blockers', async () => {
    const { code, out, err } = await run([
      'migrate',
      '--snapshot',
      scenario('e-switch-to-api-mode'),
      '--format',
      'json',
    ]);
    expect(err).toBe('');
    expect(code).toBe(0);
    const plan = JSON.parse(out);
    expect(Object.keys(plan)).toEqual(['cluster', 'steps', 'accessEntries', 'blockers']);
    expect(plan.accessEntries).toEqual([
      {
        principalArn: 'arn:aws:iam::111122223333:role/developers',
        type: 'STANDARD',
        username: 'developer:{{SessionName}}',
        kubernetesGroups: ['dev-team'],
      },
    ]);
  });

  it('exits 1 when the plan has blockers (incident c), and prints them in text', async () => {
    const { code, out } = await run(['migrate', '--snapshot', scenario('c-yaml-slip-in-maproles')]);
    expect(code).toBe(1);
    expect(out).toContain('Blockers for API (1)');
  });

  it('prints Terraform and an AWS CLI script', async () => {
    const tf = await run([
      'migrate',
      '--snapshot',
      scenario('b-fargate-entry-removed-by-terraform'),
      '--format',
      'terraform',
    ]);
    expect(tf.out).toContain('resource "aws_eks_access_entry" "prod_fargate_pod_execution"');
    expect(tf.out).toContain('type          = "FARGATE_LINUX"');
    const cli = await run([
      'migrate',
      '--snapshot',
      scenario('b-fargate-entry-removed-by-terraform'),
      '--format',
      'aws-cli',
    ]);
    expect(cli.out).toContain('aws eks update-cluster-config --name prod');
    expect(cli.out).toMatch(
      /create-access-entry .*\\\n {2}--principal-arn arn:aws:iam::111122223333:role\/prod-fargate-pod-execution --type FARGATE_LINUX/,
    );
  });

  it('takes only its own formats and, of the findings options, --fail-on alone (papercuts.test.ts)', async () => {
    const html = await run([
      'migrate',
      '--snapshot',
      scenario('b-fargate-entry-removed-by-terraform'),
      '--format',
      'markdown',
    ]);
    expect(html.code).toBe(2);
    expect(html.err).toContain('--format must be one of text|json|terraform|aws-cli');
    const maxChars = await run([
      'migrate',
      '--snapshot',
      scenario('b-fargate-entry-removed-by-terraform'),
      '--max-chars',
      '5000',
    ]);
    expect(maxChars.code).toBe(2);
    expect(maxChars.err).toContain('option --max-chars does not apply to migrate');
  });
});

describe('report --snapshot', () => {
  it('writes the HTML page to --out, nothing to stdout, exit 1 for the critical finding of incident b', async () => {
    const out = join(work, 'b.html');
    const r = await run([
      'report',
      '--snapshot',
      scenario('b-fargate-entry-removed-by-terraform'),
      '--format',
      'html',
      '--out',
      out,
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(`report written to ${out}\n`);
    const page = readFileSync(out, 'utf8');
    expect(page).toMatch(/^<!DOCTYPE html>/);
    expect(page).toContain('fargate/pod-execution-role-unauthorized');
  });

  it('reports the snapshot as text without reading anything live; html is report-only', async () => {
    const r = await run(['report', '--snapshot', scenario('healthy-api-mode')]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('=== Current state: cluster prod');
    const assess = await run(['assess', '--snapshot', scenario('healthy-api-mode'), '--format', 'html']);
    expect(assess.code).toBe(2);
    const both = await run(['report', '--snapshot', scenario('healthy-api-mode'), '--region', 'eu-west-1']);
    expect(both.code).toBe(2);
    expect(both.err).toContain('report takes --snapshot FILE or --cluster/--region, not both');
  });
});
