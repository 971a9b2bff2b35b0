/**
 * Properties of opt-in prevention's plan over random aws-auth edits: an action only ever restores
 * entries from the state before, only for a role something still runs with, and the restored text
 * leaves every other entry exactly as it was.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAwsAuth, type RoleMapping } from '../../shared/core/aws-auth/index.ts';
import type { ComputeNode } from '../../shared/core/model.ts';
import {
  type MapRolesEntry,
  planAwsAuthRemoval,
  type RemediationAction,
  restoreMapRoles,
} from '../../shared/core/remediation/index.ts';
import { ACCOUNT, buildSnapshot } from '../support/snapshot-builder.ts';

const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 2_000) };

const ROLES = ['node-a', 'node-b', 'Node-C', 'admin', 'ci'].map((n) => `arn:aws:iam::${ACCOUNT}:role/${n}`);
const GROUPS = ['system:bootstrappers', 'system:nodes', 'system:masters', 'dev', "it's"];

const entry = fc.record({
  role: fc.constantFrom(...ROLES),
  username: fc.constantFrom('system:node:{{EC2PrivateDNSName}}', 'admin', 'x: y', '{{SessionName}}'),
  groups: fc.subarray(GROUPS),
});

function yaml(e: { role: string; username: string; groups: string[] }): string {
  const groups =
    e.groups.length === 0
      ? '  groups: []\n'
      : `  groups:\n${e.groups.map((g) => `    - ${JSON.stringify(g)}\n`).join('')}`;
  return `- rolearn: ${e.role}\n  username: ${JSON.stringify(e.username)}\n${groups}`;
}

const strip = (m: RoleMapping): MapRolesEntry => {
  const { location: _l, ...rest } = m;
  return rest;
};

const scenario = fc.record({
  entries: fc.array(entry, { minLength: 1, maxLength: 6 }),
  keep: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
  users: fc.array(fc.constantFrom(...ROLES), { maxLength: 4 }),
  mode: fc.constantFrom('CONFIG_MAP' as const, 'API_AND_CONFIG_MAP' as const),
});

describe('planAwsAuthRemoval (property)', () => {
  it('restores only entries seen before, only for roles with dependants, never changing the other entries', () => {
    fc.assert(
      fc.property(scenario, ({ entries, keep, users, mode }) => {
        const mapRoles = entries.map(yaml).join('');
        const after = entries
          .filter((_, i) => keep[i])
          .map(yaml)
          .join('');
        const compute: ComputeNode[] = users.map((roleArn, i) => ({
          kind: 'karpenter',
          id: `i-${i}`,
          nodeName: `n${i}`,
          roleArn,
          os: 'linux',
          ready: 'True',
        }));
        const before = buildSnapshot({ mode, mapRoles, compute, nodegroups: [], entries: [] });
        const beforeRoles = parseAwsAuth({ mapRoles }).roles.map(strip);
        const afterParsed = parseAwsAuth({ mapRoles: after });
        const afterKeys = new Set(afterParsed.roles.map((r) => r.rolearn?.toLowerCase()));
        const plan = planAwsAuthRemoval(before, {
          data: { mapRoles: after },
          resourceVersion: '9',
          managedFields: [],
        });
        const restored: MapRolesEntry[] = [];
        for (const action of plan.actions as Array<
          Extract<RemediationAction, { kind: 'restore-aws-auth-entries' }>
        >) {
          expect(action.kind).toBe('restore-aws-auth-entries');
          // only from the before state
          for (const e of action.entries) expect(beforeRoles).toContainEqual(e);
          // never for a role still mapped
          expect(afterKeys.has(action.principalArn.toLowerCase())).toBe(false);
          // never for a role without dependants
          expect(users.some((u) => u.toLowerCase() === action.principalArn.toLowerCase())).toBe(true);
          restored.push(...action.entries);
        }
        // every removed role that nodes run with is restored or skipped with a reason
        for (const u of new Set(users.map((x) => x.toLowerCase()))) {
          const was = beforeRoles.some((r) => r.rolearn?.toLowerCase() === u);
          if (!was || afterKeys.has(u)) continue;
          const acted = plan.actions.some((a) => a.principalArn.toLowerCase() === u);
          const skipped = plan.skipped.some((s) => s.principalArn.toLowerCase() === u);
          expect(acted || skipped).toBe(true);
        }
        if (restored.length === 0) return;
        const out = restoreMapRoles({ mapRoles: after }, restored);
        expect(out.ok).toBe(true);
        if (!out.ok) return;
        const result = parseAwsAuth({ mapRoles: out.mapRoles }).roles.map(strip);
        // the entries there before the restore are untouched, in order; then exactly the restored ones
        expect(result.slice(0, afterParsed.roles.length)).toEqual(afterParsed.roles.map(strip));
        expect(result.slice(afterParsed.roles.length)).toEqual(restored);
        // a second restore adds nothing (no duplicate after a re-read)
        expect(restoreMapRoles({ mapRoles: out.mapRoles }, restored)).toMatchObject({ ok: true, added: [] });
      }),
      RUNS,
    );
  });
});
