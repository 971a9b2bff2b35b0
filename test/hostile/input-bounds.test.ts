/**
 * Issue 17, "Secrets and bounds": a 45 MB `mapRoles` inside a plan (under the 50 MiB file limit)
 * was parsed whole — 77.7 s and 3.1 GB peak RSS — while Kubernetes never stores a ConfigMap over
 * 1 MiB of data. An aws-auth value over that limit, in a plan, a file or a live read, is refused
 * with what and where before any YAML parse. The CLI runs as a child process under
 * `/usr/bin/time -v`: exit 2, the message, and a peak RSS of at most 512 MiB on each hostile input.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toAwsAuth } from '../../shared/adapters/kubernetes-shapes.ts';
import { CONFIG_MAP_MAX_BYTES, configMapOverLimit } from '../../shared/core/aws-auth/size-limit.ts';
import { CollectionError } from '../../shared/errors.ts';
import { REPO_ROOT } from '../support/fake-io.ts';
import { NODE_ENTRY } from './bombs.ts';

const MAX_RSS_KB = 512 * 1024;
const SNAPSHOT = 'scenarios/a-karpenter-shares-last-nodegroup-role.json';
const dir = mkdtempSync(join(tmpdir(), 'input-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Realistic entries, repeated to `bytes`. */
function mapRolesOf(bytes: number): string {
  return NODE_ENTRY.repeat(Math.ceil(bytes / NODE_ENTRY.length));
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function planWith(mapRoles: string): string {
  return JSON.stringify({
    format_version: '1.2',
    resource_changes: [
      {
        address: 'kubernetes_config_map_v1.aws_auth',
        mode: 'managed',
        type: 'kubernetes_config_map_v1',
        name: 'aws_auth',
        change: {
          actions: ['update'],
          before: {
            metadata: [{ name: 'aws-auth', namespace: 'kube-system' }],
            data: { mapRoles: NODE_ENTRY },
          },
          after: { metadata: [{ name: 'aws-auth', namespace: 'kube-system' }], data: { mapRoles } },
          after_unknown: {},
        },
      },
    ],
  });
}

/** The CLI in a child process under `/usr/bin/time -v`: exit code, stderr, peak RSS in KiB. */
function measured(argv: string[]): {
  code: number | null;
  stderr: string;
  maxRssKb: number;
  seconds: number;
} {
  const started = Date.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-v', process.execPath, '--import', 'tsx', join(REPO_ROOT, 'shared', 'cli', 'main.ts'), ...argv],
    { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } },
  );
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1];
  const exit = /Exit status: (\d+)/.exec(r.stderr)?.[1];
  return {
    code: exit === undefined ? r.status : Number(exit),
    stderr: r.stderr,
    maxRssKb: Number(rss ?? Number.NaN),
    seconds: (Date.now() - started) / 1000,
  };
}

describe('aws-auth values over the ConfigMap limit are refused before any parse (issue 17)', () => {
  it('a 45 MB mapRoles in a plan: exit 2 naming the resource and the JSON path, peak RSS ≤ 512 MiB', () => {
    const plan = write('plan-45mb.json', planWith(mapRolesOf(45 * 1000 * 1000)));
    const r = measured(['whatif', '--snapshot', SNAPSHOT, '--terraform-plan', plan]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('kubernetes_config_map_v1.aws_auth');
    expect(r.stderr).toContain('$.resource_changes[0].change.after.data.mapRoles');
    expect(r.stderr).toMatch(/over the 1 MiB/);
    expect(r.maxRssKb).toBeLessThanOrEqual(MAX_RSS_KB);
  }, 180_000);

  it('a 45 MB mapRoles file and a 1.5 MiB aws-auth manifest for whatif --aws-auth: exit 2, peak RSS ≤ 512 MiB', () => {
    const bare = write('mapRoles-45mb.yaml', mapRolesOf(45 * 1000 * 1000));
    const indented = mapRolesOf(1.5 * CONFIG_MAP_MAX_BYTES)
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
    const manifest = write(
      'aws-auth-1.5mib.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aws-auth\n  namespace: kube-system\ndata:\n  mapRoles: |\n${indented}\n`,
    );
    for (const file of [bare, manifest]) {
      const r = measured(['whatif', '--snapshot', SNAPSHOT, '--aws-auth', file]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/1 MiB/);
      expect(r.maxRssKb, file).toBeLessThanOrEqual(MAX_RSS_KB);
    }
  }, 180_000);

  it('a live read over the limit is "could not read", never parsed nor empty', () => {
    expect(() => toAwsAuth({ data: { mapRoles: mapRolesOf(CONFIG_MAP_MAX_BYTES + 1) } })).toThrow(
      CollectionError,
    );
    expect(() => toAwsAuth({ data: { mapRoles: mapRolesOf(CONFIG_MAP_MAX_BYTES + 1) } })).toThrow(
      /kube-system\/aws-auth as read: data holds at least .*"mapRoles" the largest/,
    );
    expect(toAwsAuth({ data: { mapRoles: NODE_ENTRY } }).data.mapRoles).toBe(NODE_ENTRY);
  });

  it('the limit counts UTF-8 bytes of all values together, as Kubernetes does', () => {
    const half = 'x'.repeat(CONFIG_MAP_MAX_BYTES / 2);
    expect(configMapOverLimit({ mapRoles: half, mapUsers: half })).toBeUndefined();
    expect(configMapOverLimit({ mapRoles: half, mapUsers: `${half}x` })?.bytes).toBe(
      CONFIG_MAP_MAX_BYTES + 1,
    );
    // 'é' is two bytes: 600 Ki of them is 1.2 MiB.
    expect(configMapOverLimit({ mapRoles: 'é'.repeat(600 * 1024) })).toBeDefined();
  });
});
