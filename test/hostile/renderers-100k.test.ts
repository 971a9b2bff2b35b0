/**
 * Issue 17, "Secrets and bounds": the text renderer crashed (exit 3, "Maximum call stack size
 * exceeded") on a plan with ~70k relevant changes — `lines.push(...effectLines(effects))` spread
 * one argument per effect line. A plan of 100,000 access-entry creates through
 * `whatif --terraform-plan` in every format: exit 0 or 1, the change count said, output bounded,
 * and the effects that do not fit counted in a line of their own (they were clipped mid-list).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/run-cli.ts';
import { createNodeIo } from '../../shared/cli/start.ts';

const N = 100_000;
const dir = mkdtempSync(join(tmpdir(), 'renderers-100k-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function planFile(): string {
  const changes = Array.from({ length: N }, (_, i) => ({
    address: `aws_eks_access_entry.e[${i}]`,
    mode: 'managed',
    type: 'aws_eks_access_entry',
    name: 'e',
    change: {
      actions: ['create'],
      before: null,
      after: {
        cluster_name: 'prod',
        principal_arn: `arn:aws:iam::111122223333:role/r${i}`,
        type: 'STANDARD',
        user_name: `u${i}`,
        kubernetes_groups: ['g'],
      },
      after_unknown: {},
    },
  }));
  const path = join(dir, 'plan-100k.json');
  writeFileSync(path, JSON.stringify({ format_version: '1.2', resource_changes: changes }));
  return path;
}

const PLAN = planFile();

async function run(format: string): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    ...createNodeIo(import.meta.url),
    stdout: (s: string) => void out.push(s),
    stderr: (s: string) => void err.push(s),
  };
  const code = await runCli(
    [
      'whatif',
      '--snapshot',
      'scenarios/a-karpenter-shares-last-nodegroup-role.json',
      '--terraform-plan',
      PLAN,
      '--format',
      format,
    ],
    io,
  );
  return { code, out: out.join(''), err: err.join('') };
}

describe('renderers at 100,000 relevant plan changes (issue 17)', () => {
  it.each(['text', 'markdown', 'json'])(
    '%s: no crash, the count said',
    async (format) => {
      const r = await run(format);
      expect(r.err).not.toMatch(/internal error|call stack/);
      expect([0, 1]).toContain(r.code);
      expect(r.out).toContain(`${N} auth-relevant change(s)`);
      if (format !== 'json') {
        expect(r.out.length).toBeLessThanOrEqual(250_000);
        // The effects that do not fit are counted, never cut off silently.
        expect(r.out).toMatch(/… and \d+ more simulated effect\(s\), not listed here/);
      }
    },
    300_000,
  );
});
