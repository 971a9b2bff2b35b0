import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeAwsAuth } from '../../shared/core/aws-auth/index.ts';
import type { AccessEntry, ClusterSnapshot, ComputeNode, Finding } from '../../shared/core/model.ts';
import type { Change } from '../../shared/core/predict/change.ts';
import { assessSnapshot, diffSnapshots, whatIf } from '../../shared/core/predict/engine.ts';
import { SimulationError } from '../../shared/core/predict/simulate.ts';
import { buildSnapshot } from '../support/snapshot-builder.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 10_000);
const ACCOUNT = '111122223333';
const roleNames = ['node-a', 'node-b', 'fargate-x', 'admin', 'team/pathy', 'Node-A'];
const roleArn = fc.constantFrom(...roleNames.map((n) => `arn:aws:iam::${ACCOUNT}:role/${n}`));
const group = fc.constantFrom(
  'system:nodes',
  'system:bootstrappers',
  'system:node-proxier',
  'system:masters',
  'dev',
  'a - b',
);
const username = fc.constantFrom(
  'system:node:{{EC2PrivateDNSName}}',
  'system:node:{{SessionName}}',
  'admin',
  'x',
);

const roleMapping = fc.record({ rolearn: roleArn, username, groups: fc.array(group, { maxLength: 4 }) });
const entry: fc.Arbitrary<AccessEntry> = fc.record({
  principalArn: roleArn,
  type: fc.constantFrom('STANDARD', 'EC2_LINUX', 'FARGATE_LINUX', 'EC2_WINDOWS'),
  kubernetesGroups: fc.constant([]),
  accessPolicies: fc.constant([]),
  createdAt: fc.constantFrom('2025-01-01T00:00:00Z', '2026-06-01T00:00:00Z'),
});
const node: fc.Arbitrary<ComputeNode> = fc.record({
  kind: fc.constantFrom('managed', 'karpenter', 'self-managed', 'fargate'),
  id: fc.stringMatching(/^i-[0-9a-f]{17}$/),
  roleArn,
  nodegroup: fc.constantFrom('ng-1', 'ng-2'),
  fargateProfile: fc.constantFrom('fp-1'),
});
const sourceStatus = fc.constantFrom('ok', 'ok', 'ok', 'error', 'absent');

const snapshotArb: fc.Arbitrary<ClusterSnapshot> = fc
  .record({
    mode: fc.constantFrom('CONFIG_MAP', 'API_AND_CONFIG_MAP', 'API'),
    roles: fc.array(roleMapping, { maxLength: 6 }),
    entries: fc.uniqueArray(entry, { maxLength: 4, selector: (e) => e.principalArn.toLowerCase() }),
    nodegroups: fc.uniqueArray(fc.record({ name: fc.constantFrom('ng-1', 'ng-2', 'ng-3'), role: roleArn }), {
      maxLength: 3,
      selector: (n) => n.name,
    }),
    profiles: fc.array(roleArn, { maxLength: 2 }),
    nodes: fc.uniqueArray(node, { maxLength: 8, selector: (n) => n.id }),
    awsAuthStatus: sourceStatus,
    entriesStatus: sourceStatus,
    computeStatus: sourceStatus,
    roleCreate: fc.constantFrom('2024-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
  })
  .map((r) => {
    const s = buildSnapshot({
      mode: r.mode,
      data: r.roles.length ? encodeAwsAuth({ roles: r.roles, users: [], accounts: [] }) : {},
      entries: r.entries,
      nodegroups: r.nodegroups.map((n) => ({
        name: n.name,
        status: 'ACTIVE',
        nodeRole: n.role,
        healthIssues: [],
      })),
      fargateProfiles: r.profiles.map((p, i) => ({
        name: `fp-${i}`,
        status: 'ACTIVE',
        podExecutionRoleArn: p,
        selectors: [],
      })),
      compute: r.nodes,
    });
    if (r.awsAuthStatus === 'error') s.awsAuth = { status: 'error', error: 'boom' };
    if (r.awsAuthStatus === 'absent') s.awsAuth = { status: 'absent' };
    if (r.entriesStatus === 'error' && r.mode !== 'CONFIG_MAP')
      s.accessEntries = { status: 'error', error: 'boom' };
    if (r.computeStatus === 'error') s.compute = { status: 'error', error: 'boom' };
    s.iamRoles = {
      status: 'ok',
      data: roleNames.map((n) => ({
        arn: `arn:aws:iam::${ACCOUNT}:role/${n}`,
        state: 'exists',
        createDate: r.roleCreate,
      })),
    };
    return s;
  });

const key = (fs: Finding[]) => fs.map((f) => `${f.fingerprint}:${f.severity}`).sort();

function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  let x = seed || 1;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe('engine properties', () => {
  it('diff(s, s) is empty apart from the monitor reporting its own blindness', () => {
    fc.assert(
      fc.property(snapshotArb, (s) => {
        const fs = diffSnapshots(s, structuredClone(s)).filter(
          (f) => f.ruleId !== 'monitor/source-unavailable',
        );
        expect(fs).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  it('rule output does not depend on the order of node groups, profiles, entries, nodes or roles', () => {
    fc.assert(
      fc.property(snapshotArb, fc.integer({ min: 1, max: 1 << 30 }), (s, seed) => {
        const t = structuredClone(s);
        if (t.nodegroups.status === 'ok') t.nodegroups.data = shuffled(t.nodegroups.data, seed);
        if (t.fargateProfiles.status === 'ok')
          t.fargateProfiles.data = shuffled(t.fargateProfiles.data, seed + 1);
        if (t.accessEntries.status === 'ok') t.accessEntries.data = shuffled(t.accessEntries.data, seed + 2);
        if (t.compute.status === 'ok') t.compute.data = shuffled(t.compute.data, seed + 3);
        if (t.iamRoles.status === 'ok') t.iamRoles.data = shuffled(t.iamRoles.data, seed + 4);
        expect(key(assessSnapshot(t))).toEqual(key(assessSnapshot(s)));
      }),
      { numRuns: RUNS },
    );
  });

  it('what-if throws only its own SimulationError and never reports a finding twice', () => {
    const change: fc.Arbitrary<Change> = fc.oneof(
      fc.record({
        kind: fc.constant('delete-nodegroup' as const),
        nodegroupName: fc.constantFrom('ng-1', 'ng-2', 'ng-3'),
      }),
      fc.record({ kind: fc.constant('delete-access-entry' as const), principalArn: roleArn }),
      fc.record({
        kind: fc.constant('set-auth-mode' as const),
        mode: fc.constantFrom('CONFIG_MAP', 'API_AND_CONFIG_MAP', 'API'),
      }),
      fc.record({
        kind: fc.constant('create-fargate-profile' as const),
        fargateProfileName: fc.constant('fp-new'),
        podExecutionRoleArn: roleArn,
      }),
    );
    fc.assert(
      fc.property(snapshotArb, change, (s, c) => {
        let r: ReturnType<typeof whatIf>;
        try {
          r = whatIf(s, c);
        } catch (e) {
          expect(e).toBeInstanceOf(SimulationError);
          return;
        }
        const prints = r.findings.map((f) => f.fingerprint);
        expect(new Set(prints).size).toBe(prints.length);
      }),
      { numRuns: RUNS / 5 },
    );
  });
});
