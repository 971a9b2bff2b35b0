/**
 * Issue 8: a hostile aws-auth of thousands of principals gives bounded findings. The detail names
 * the total, lists the first few (node roles first) and counts the rest; the evidence keeps the
 * listed ones plus the count; the API-mode fix writes every command for a realistic count and, past
 * MAX_FIX_PRINCIPALS, the `migrate` command that writes the whole plan. Fingerprints do not depend
 * on the count.
 */
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../shared/cli/args.ts';
import { MAX_FIX_PRINCIPALS } from '../../shared/core/migrate/unmigrated.ts';
import type { Finding } from '../../shared/core/model.ts';
import { assessSnapshot, whatIf } from '../../shared/core/predict/engine.ts';
import { MAX_LISTED } from '../../shared/core/rules/listing.ts';
import { ACCOUNT, buildSnapshot, NODE_ROLE, nodeMapping } from '../support/snapshot-builder.ts';

const role = (i: number) =>
  `- rolearn: arn:aws:iam::${ACCOUNT}:role/dev-${String(i).padStart(5, '0')}\n  username: dev-${i}\n  groups:\n  - developers\n`;
const roles = (n: number) => Array.from({ length: n }, (_, i) => role(i)).join('');

function dropsFinding(extraRoles: number): Finding {
  const snapshot = buildSnapshot({ mode: 'API_AND_CONFIG_MAP', mapRoles: nodeMapping() + roles(extraRoles) });
  const found = whatIf(snapshot, { kind: 'set-auth-mode', mode: 'API' }).findings.filter(
    (f) => f.ruleId === 'cluster/auth-mode-drops-principals',
  );
  expect(found).toHaveLength(1);
  return found[0] as Finding;
}

describe('cluster/auth-mode-drops-principals under thousands of principals', () => {
  const total = 6_884;
  const f = dropsFinding(total - 1);

  it('names the total, lists the first few with the node role first, and counts the rest', () => {
    const lines = f.detail.split('\n');
    expect(lines[0]).toBe(
      `Principals dropped (${total}: ${total} role); the first ${MAX_LISTED}, node and Fargate roles first:`,
    );
    expect(lines[1]).toContain(NODE_ROLE);
    expect(lines.filter((l) => l.startsWith('role '))).toHaveLength(MAX_LISTED);
    expect(lines.at(-1)).toBe(`… and ${total - MAX_LISTED} more principal(s).`);
    expect(f.detail.length).toBeLessThan(2_000);
    expect(f.title).toContain(`drops ${total} aws-auth principal(s)`);
  });

  it('keeps the listed principals and the count in the evidence', () => {
    expect(f.evidence.dropped).toHaveLength(MAX_LISTED);
    expect(f.evidence.droppedCount).toBe(total);
  });

  it('points the fix at migrate, which the CLI parses as the whole plan for this cluster', () => {
    const cli = f.remediation?.awsCli ?? '';
    // no shell line under the Terraform label: a note names the command that writes the file
    expect(f.remediation?.terraform).toBeUndefined();
    const tf =
      /`(eks-auth-sentinel migrate [^`]*) > access\.tf`/.exec(f.remediation?.notes?.[1] ?? '')?.[1] ?? '';
    expect(cli).not.toContain('create-access-entry');
    expect(cli.length + tf.length).toBeLessThan(1_000);
    expect(f.remediation?.notes?.[0]).toContain(`${total} principals need an access entry`);
    for (const [block, format] of [
      [cli, 'aws-cli'],
      [tf, 'terraform'],
    ] as const) {
      const command = block.split('\n').filter((l) => !l.startsWith('#'));
      expect(command).toHaveLength(1);
      const [program, ...argv] = (command[0] ?? '').split(' ');
      expect(program).toBe('eks-auth-sentinel');
      expect(parseCommandLine(argv)).toMatchObject({
        kind: 'migrate',
        migrateFormat: format,
        source: { kind: 'live', clusterName: 'prod', region: 'eu-west-1' },
      });
    }
  });

  it('writes every command up to MAX_FIX_PRINCIPALS principals, and migrate from one more', () => {
    const atLimit = dropsFinding(MAX_FIX_PRINCIPALS - 1).remediation?.awsCli ?? '';
    expect(atLimit.match(/create-access-entry/g)).toHaveLength(MAX_FIX_PRINCIPALS);
    expect(atLimit).not.toContain('eks-auth-sentinel migrate');
    const over = dropsFinding(MAX_FIX_PRINCIPALS).remediation?.awsCli ?? '';
    expect(over).not.toContain('create-access-entry');
    expect(over).toContain('eks-auth-sentinel migrate');
  });

  it('keeps the fingerprint whatever the count', () => {
    expect(dropsFinding(2).fingerprint).toBe(f.fingerprint);
  });
});

describe('cluster/api-mode-ignores-aws-auth under thousands of principals', () => {
  it('lists the first few, counts the rest, and points the fix at migrate', () => {
    const total = 3_000;
    const snapshot = buildSnapshot({ mode: 'API', mapRoles: nodeMapping() + roles(total - 1) });
    const f = assessSnapshot(snapshot).find(
      (x) => x.ruleId === 'cluster/api-mode-ignores-aws-auth',
    ) as Finding;
    const lines = f.detail.split('\n');
    expect(lines[1]).toBe(
      `Principals that lost access (${total}: ${total} role); the first ${MAX_LISTED}, node and Fargate roles first:`,
    );
    expect(lines[2]).toContain(NODE_ROLE);
    expect(lines.at(-1)).toBe(`… and ${total - MAX_LISTED} more principal(s).`);
    expect(f.evidence.lost).toHaveLength(MAX_LISTED);
    expect(f.evidence.lostCount).toBe(total);
    expect(f.remediation?.awsCli).toContain('eks-auth-sentinel migrate');
    expect(f.remediation?.awsCli).not.toContain('create-access-entry');
  });
});

describe('aws-auth/shadowed-duplicate under one ARN mapped thousands of times', () => {
  it('lists the first dead entries, counts the rest, and keeps the fingerprint', () => {
    const n = 5_000;
    const shadowed = (count: number) =>
      assessSnapshot(buildSnapshot({ mapRoles: nodeMapping() + role(7).repeat(count) })).find(
        (x) => x.ruleId === 'aws-auth/shadowed-duplicate',
      ) as Finding;
    const f = shadowed(n);
    expect(f.title).toContain(`mapped ${n} times`);
    expect(f.detail).toMatch(new RegExp(`; … and ${n - 1 - MAX_LISTED} more\\.`));
    expect(f.detail.match(/entry \d+/g)).toHaveLength(MAX_LISTED + 1);
    expect(f.evidence.entries).toHaveLength(MAX_LISTED + 1);
    expect(f.evidence.entryCount).toBe(n);
    expect(shadowed(2).fingerprint).toBe(f.fingerprint);
  });
});

describe('aws-auth/group-looks-malformed under thousands of malformed groups', () => {
  it('names the first few groups in the title and counts the rest', () => {
    const groups = Array.from({ length: 3_000 }, (_, i) => `  - a${i} - b${i}\n`).join('');
    const mapRoles = `${nodeMapping()}- rolearn: arn:aws:iam::${ACCOUNT}:role/x\n  username: x\n  groups:\n${groups}`;
    const f = assessSnapshot(buildSnapshot({ mapRoles })).find(
      (x) => x.ruleId === 'aws-auth/group-looks-malformed',
    ) as Finding;
    expect(f.title).toMatch(/: "a0 - b0", "a1 - b1", "a2 - b2" and 2997 more$/);
  });
});
