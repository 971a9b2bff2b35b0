/**
 * Issue 8, case 1: the copy-paste fixes cannot run an attacker's code. Scenario files are mutated
 * with the issue's injection strings (a group `dev$(touch pwned) x;curl …|sh #`, a role ARN with
 * `" ${file("/etc/passwd")} "`, a group `system:bootstrappers *nodes`, a hostile Region), run
 * through `assess`, `whatif` and `diff` with `runCli` in every format, and every fix block is
 * parsed back: the AWS CLI run by bash and dash with a stub `aws` (exact argv, no other command),
 * Terraform decoded per the HCL native syntax (no live `${`), aws-auth YAML re-parsed by the
 * authenticator-exact parser. Text and Markdown must carry the same code blocks as JSON.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runGolden } from '../../scripts/gen-cli-golden.ts';
import { roleArnWithoutPath } from '../../shared/core/access/principal.ts';
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import type { ClusterSnapshot, Remediation } from '../../shared/core/model.ts';
import { assessSnapshot } from '../../shared/core/predict/engine.ts';
import { codeBlocksOf } from '../support/findings.ts';
import { decodeHclDocument } from './hcl-decoder.ts';
import { runWithStubs } from './shell-stub.ts';
import { HCL_INJECTION, SHELL_INJECTION, YAML_ALIAS } from './strings.ts';

const ACCOUNT = '111122223333';
const NODE_ROLE = `arn:aws:iam::${ACCOUNT}:role/prod-node-role`;
/** A role ARN the snapshot schema accepts (`role/.+`) that is live HCL and a shell command. */
const EVIL_ROLE = `arn:aws:iam::${ACCOUNT}:role/prod-node-role${HCL_INJECTION}$(touch pwned)`;
const EVIL_DEV_ROLE = `arn:aws:iam::${ACCOUNT}:role/developers${HCL_INJECTION}`;

const dir = mkdtempSync(join(tmpdir(), 'hostile-fixes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scenario(name: string): ClusterSnapshot {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'scenarios', `${name}.json`), 'utf8')) as ClusterSnapshot;
}

/** The snapshot with every occurrence of a string replaced (in the JSON text, so every field). */
function replaced(s: ClusterSnapshot, from: string, to: string): ClusterSnapshot {
  return JSON.parse(
    JSON.stringify(s).replaceAll(JSON.stringify(from).slice(1, -1), JSON.stringify(to).slice(1, -1)),
  );
}

function write(name: string, s: ClusterSnapshot): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(s));
  return path;
}

type Json = { findings: Array<{ ruleId: string; remediation?: Remediation }> };

/** Runs one command line in json, text and markdown; returns the JSON findings and checks the other two carry the same code. */
async function runAll(argv: string[]): Promise<Json['findings']> {
  const json = await runGolden([...argv, '--format', 'json']);
  expect(json.stderr).toBe('');
  const findings = (JSON.parse(json.stdout) as Json).findings;
  const code = findings.flatMap((f) =>
    [
      f.remediation?.awsCli,
      ...(f.remediation?.alternatives ?? []).map((x) => x.shell),
      f.remediation?.terraform,
      f.remediation?.awsAuthYaml,
    ].filter((c): c is string => c !== undefined),
  );
  for (const format of ['text', 'markdown']) {
    const out = await runGolden([...argv, '--format', format]);
    expect(out.stderr).toBe('');
    expect(codeBlocksOf(out.stdout).map((c) => c.replace(/\n+$/, ''))).toEqual(
      code.map((c) => c.replace(/\n+$/, '')),
    );
  }
  return findings;
}

function fixOf(findings: Json['findings'], ruleId: string): Remediation {
  const f = findings.find((x) => x.ruleId === ruleId);
  expect(f, `a ${ruleId} finding`).toBeDefined();
  return f?.remediation as Remediation;
}

/** Runs the script with bash and dash; nothing but the stubs runs; returns the argv of each call. */
function argvOf(script: string | undefined): string[][] {
  expect(script).toBeDefined();
  const runs = (['bash', 'dash'] as const).map((shell) => runWithStubs(shell, script ?? ''));
  for (const r of runs)
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
      status: 0,
      stdout: '',
      stderr: '',
    });
  expect(runs[1]?.calls).toEqual(runs[0]?.calls);
  return runs[0]?.calls ?? [];
}

/** The value after `flag` in a call (or in `--flag=value`). */
function flagValue(call: string[], flag: string): string[] {
  const i = call.indexOf(flag);
  if (i >= 0) {
    const rest = call.slice(i + 1);
    const end = rest.findIndex((a) => a.startsWith('--'));
    return end < 0 ? rest : rest.slice(0, end);
  }
  const eq = call.find((a) => a.startsWith(`${flag}=`));
  return eq === undefined ? [] : [eq.slice(flag.length + 1)];
}

describe('fixes built from hostile aws-auth and access entries (issue 8, case 1)', () => {
  it('cluster/auth-mode-drops-principals: a group and a role ARN with shell and HCL code stay data', async () => {
    const s = scenario('e-switch-to-api-mode');
    s.awsAuth =
      s.awsAuth.status === 'ok'
        ? {
            ...s.awsAuth,
            data: {
              ...s.awsAuth.data,
              data: {
                // JSON is YAML: the values reach the parser exactly.
                mapRoles: JSON.stringify([
                  {
                    rolearn: EVIL_DEV_ROLE,
                    username: 'developer:{{SessionName}}',
                    groups: [SHELL_INJECTION],
                  },
                ]),
              },
            },
          }
        : s.awsAuth;
    const file = write('auth-mode', s);
    const fix = fixOf(
      await runAll(['whatif', '--snapshot', file, '--auth-mode', 'API']),
      'cluster/auth-mode-drops-principals',
    );
    const calls = argvOf(fix.awsCli);
    expect(calls).toHaveLength(1);
    expect(flagValue(calls[0] ?? [], '--principal-arn')).toEqual([EVIL_DEV_ROLE]);
    expect(flagValue(calls[0] ?? [], '--kubernetes-groups')).toEqual([SHELL_INJECTION]);
    // the username aws-auth gave it is kept
    expect(flagValue(calls[0] ?? [], '--username')).toEqual(['developer:{{SessionName}}']);
    const hcl = decodeHclDocument(fix.terraform ?? '');
    // the resource carries each value once (the module alternative below it is commented out)
    expect(
      hcl.strings.filter((x) => x !== 'STANDARD' && x !== 'prod' && x !== 'aws_eks_access_entry').slice(1),
    ).toEqual([EVIL_DEV_ROLE, 'developer:{{SessionName}}', SHELL_INJECTION]);
  });

  it('access-entry/stale-principal: the delete, create and associate commands carry the ARN exactly', async () => {
    const s = replaced(
      scenario('d-access-entry-older-than-role'),
      `arn:aws:iam::${ACCOUNT}:role/ci-deployer`,
      EVIL_ROLE.replace('prod-node-role', 'ci'),
    );
    const evil = EVIL_ROLE.replace('prod-node-role', 'ci');
    const fix = fixOf(
      await runAll(['assess', '--snapshot', write('stale', s)]),
      'access-entry/stale-principal',
    );
    const calls = argvOf(fix.awsCli);
    expect(calls.map((c) => c[2])).toEqual([
      'delete-access-entry',
      'create-access-entry',
      'associate-access-policy',
    ]);
    for (const c of calls) expect(flagValue(c, '--principal-arn')).toEqual([evil]);
    // Terraform, not a shell line: the role looked up by its (hostile) name, the entry replaced with it
    expect(fix.terraform).not.toMatch(/^terraform /m);
    const hcl = decodeHclDocument(
      (fix.terraform ?? '')
        .replace(/= (?:data\.)?[a-z_]+\.[A-Za-z0-9_.]+$/gm, '= "ref"')
        .replace(/= \[[a-z_]+\.[A-Za-z0-9_.]+\]$/gm, '= ["ref"]'),
    );
    expect(hcl.strings).toContain(evil.split('/').pop());
    expect(fix.terraform).toMatch(/replace_triggered_by = \[terraform_data\.[A-Za-z0-9_]+_role_id\]/);
  });

  it('cluster-admin/granted: the disassociate command carries the new admin ARN exactly', async () => {
    const before = scenario('healthy-api-mode');
    const after = replaced(before, `arn:aws:iam::${ACCOUNT}:role/platform-admin`, EVIL_ROLE);
    const findings = await runAll([
      'diff',
      '--before',
      write('admin-before', before),
      '--after',
      write('admin-after', after),
    ]);
    const calls = argvOf(fixOf(findings, 'cluster-admin/granted').awsCli);
    expect(calls.map((c) => [c[2], ...flagValue(c, '--principal-arn')])).toEqual([
      ['disassociate-access-policy', EVIL_ROLE],
    ]);
  });

  it('access-entry/orphaned: the delete command carries the ARN exactly', async () => {
    const s = scenario('healthy-api-mode');
    if (s.accessEntries.status === 'ok') {
      s.accessEntries.data.push({
        principalArn: EVIL_ROLE,
        type: 'EC2_LINUX',
        username: 'system:node:{{EC2PrivateDNSName}}',
        kubernetesGroups: [],
        createdAt: '2025-06-03T08:14:02.871Z',
        modifiedAt: '2025-06-03T08:14:02.871Z',
        accessPolicies: [],
      } as (typeof s.accessEntries.data)[number]);
    }
    const fix = fixOf(await runAll(['assess', '--snapshot', write('orphaned', s)]), 'access-entry/orphaned');
    expect(argvOf(fix.awsCli).map((c) => [c[2], ...flagValue(c, '--principal-arn')])).toEqual([
      ['delete-access-entry', EVIL_ROLE],
    ]);
  });

  it('access-entry/deletion-unauthorizes: the access entry and Terraform for a hostile node role stay data', async () => {
    const s = replaced(scenario('e-switch-to-api-mode'), NODE_ROLE, EVIL_ROLE);
    const fix = fixOf(
      await runAll(['whatif', '--snapshot', write('deletion', s), '--delete-access-entry', EVIL_ROLE]),
      'access-entry/deletion-unauthorizes',
    );
    const calls = argvOf(fix.awsCli);
    expect(calls.map((c) => [c[2], ...flagValue(c, '--principal-arn'), ...flagValue(c, '--type')])).toEqual([
      ['create-access-entry', EVIL_ROLE, 'EC2_LINUX'],
    ]);
    const hcl = decodeHclDocument(fix.terraform ?? '');
    expect(hcl.strings.filter((x) => x === EVIL_ROLE)).toHaveLength(1);
    // The aws-auth alternative (API_AND_CONFIG_MAP) re-parses to the role written without its
    // IAM path (`/etc/passwd")…` reads as one), as the fix means.
    const parsed = parseAwsAuth({ mapRoles: fix.awsAuthYaml ?? '' });
    expect(parsed.issues).toEqual([]);
    expect(parsed.roles.map((r) => r.rolearn)).toEqual([roleArnWithoutPath(EVIL_ROLE)]);
  });

  it('access-entry/deletion-locks-out: the re-create commands carry a hostile ARN, username, group and scope exactly', async () => {
    const s = scenario('healthy-api-mode');
    const admin = `arn:aws:iam::${ACCOUNT}:role/platform-admin`;
    if (s.accessEntries.status !== 'ok') throw new Error('fixture');
    s.accessEntries.data = s.accessEntries.data.map((e) =>
      e.principalArn === admin
        ? {
            ...e,
            principalArn: EVIL_DEV_ROLE,
            username: SHELL_INJECTION,
            kubernetesGroups: [SHELL_INJECTION, 'dev'],
            accessPolicies: [
              {
                policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy',
                accessScope: { type: 'namespace', namespaces: [`team-${HCL_INJECTION}`] },
              },
            ],
          }
        : e,
    );
    const fix = fixOf(
      await runAll(['whatif', '--snapshot', write('locks-out', s), '--delete-access-entry', EVIL_DEV_ROLE]),
      'access-entry/deletion-locks-out',
    );
    const calls = argvOf(fix.awsCli);
    expect(calls.map((c) => [c[2], ...flagValue(c, '--principal-arn')])).toEqual([
      ['create-access-entry', EVIL_DEV_ROLE],
      ['associate-access-policy', EVIL_DEV_ROLE],
    ]);
    expect(flagValue(calls[0] ?? [], '--username')).toEqual([SHELL_INJECTION]);
    expect(flagValue(calls[0] ?? [], '--kubernetes-groups')).toEqual([SHELL_INJECTION, 'dev']);
    expect(JSON.parse(flagValue(calls[1] ?? [], '--access-scope')[0] ?? '')).toEqual({
      type: 'namespace',
      namespaces: [`team-${HCL_INJECTION}`],
    });
  });

  it('aws-auth/group-looks-malformed: the YAML fix of `system:bootstrappers *nodes` is a whole entry that re-parses', async () => {
    const s = scenario('c-yaml-slip-in-maproles');
    if (s.awsAuth.status === 'ok') {
      s.awsAuth.data.data = {
        mapRoles: JSON.stringify([
          { rolearn: NODE_ROLE, username: 'system:node:{{EC2PrivateDNSName}}', groups: [YAML_ALIAS] },
        ]),
      };
    }
    const fix = fixOf(
      await runAll(['assess', '--snapshot', write('malformed', s)]),
      'aws-auth/group-looks-malformed',
    );
    const parsed = parseAwsAuth({ mapRoles: fix.awsAuthYaml ?? '' });
    expect(parsed.issues).toEqual([]);
    expect(parsed.keyStatus.mapRoles).toBe('ok');
    expect(parsed.roles.map(({ location: _, ...r }) => r)).toEqual([
      {
        rolearn: NODE_ROLE,
        username: 'system:node:{{EC2PrivateDNSName}}',
        groups: ['system:bootstrappers', '*nodes'],
      },
    ]);
  });

  it('--region: a hostile Region (past snapshot validation, e.g. from the event path) is one exact argument', () => {
    const region = 'eu-west-1$(touch pwned) --name other';
    const s = { ...scenario('c-yaml-slip-in-maproles'), region };
    const findings = assessSnapshot(s);
    const withCli = findings.filter((f) => f.remediation?.awsCli !== undefined);
    expect(withCli.length).toBeGreaterThan(0);
    for (const f of withCli) {
      const calls = argvOf(f.remediation?.awsCli);
      expect(calls.length).toBeGreaterThan(0);
      for (const c of calls) expect(flagValue(c, '--region')).toEqual([region]);
    }
  });

  it('refuses a block that cannot carry a value (a NUL in an ARN) and says so, keeping the others', () => {
    const evil = `arn:aws:iam::${ACCOUNT}:role/nul\u0000role`;
    const s = replaced(scenario('healthy-api-mode'), `arn:aws:iam::${ACCOUNT}:role/platform-admin`, evil);
    if (s.accessEntries.status === 'ok') {
      const e = s.accessEntries.data[0];
      if (e) e.type = 'EC2_LINUX';
      if (e) e.accessPolicies = [];
    }
    const f = assessSnapshot(s).find((x) => x.ruleId === 'access-entry/orphaned');
    expect(f?.remediation?.awsCli).toBeUndefined();
    expect(f?.remediation?.notes?.join(' ')).toMatch(/AWS CLI command is not shown: .*NUL character/);
  });
});
