/**
 * A plan's run of node-group and Fargate steps edits mapRoles decoded and encodes it once
 * (`MapRolesDraft`, shared/core/predict/map-roles-edit.ts). That must be invisible: the state after the steps
 * and every effect are those of applying the changes one by one, each parsing the aws-auth the
 * previous one wrote and encoding its own edit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { type SimulatedStep, simulateSteps } from '../../shared/core/plan/simulate-steps.ts';
import type { Change } from '../../shared/core/predict/change.ts';
import {
  type SimulationEffect,
  SimulationError,
  simulateChange,
} from '../../shared/core/predict/simulate.ts';
import {
  ACCOUNT,
  adminMapping,
  buildSnapshot,
  fargateMapping,
  fargateProfile,
  managedNodes,
  nodegroup,
  nodeMapping,
} from '../support/snapshot-builder.ts';

const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 1_000) };

const role = (name: string) => `arn:aws:iam::${ACCOUNT}:role/${name}`;
const ROLES = ['node-a', 'node-b', 'node-c', 'fargate-a', 'fargate-b'].map(role);
const NAMES = ['ng-1', 'ng-2', 'ng-3'];
const PROFILES = ['fp-1', 'fp-2'];

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({
    kind: fc.constant('delete-nodegroup' as const),
    nodegroupName: fc.constantFrom(...NAMES),
    nodeRole: fc.constantFrom(...ROLES),
  }),
  fc.record({
    kind: fc.constant('create-nodegroup' as const),
    nodegroupName: fc.constantFrom(...NAMES, 'ng-new'),
    nodeRole: fc.constantFrom(...ROLES, `arn:aws:iam::${ACCOUNT}:role/team/with-path`, ''),
  }),
  fc.record({
    kind: fc.constant('create-fargate-profile' as const),
    fargateProfileName: fc.constantFrom(...PROFILES, 'fp-new'),
    podExecutionRoleArn: fc.constantFrom(...ROLES, ''),
  }),
  fc.record({
    kind: fc.constant('delete-fargate-profile' as const),
    fargateProfileName: fc.constantFrom(...PROFILES),
    podExecutionRoleArn: fc.constantFrom(...ROLES),
  }),
  fc.constantFrom<Change>(
    { kind: 'set-auth-mode', mode: 'API_AND_CONFIG_MAP' },
    { kind: 'set-auth-mode', mode: 'API' },
  ),
);

/** mapRoles as people write it (comments, other indentation, duplicates), or not parsing at all. */
const mapRoles = fc.oneof(
  fc
    .subarray(
      [
        nodeMapping(role('node-a')),
        nodeMapping(role('node-b')),
        fargateMapping(role('fargate-a')),
        adminMapping(),
        '# managed by terraform\n',
        `- rolearn: ${role('node-a')}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups: [system:nodes]\n`,
        `- rolearn: "${role('fargate-b')}"\n  username: 'system:node:{{SessionName}}'\n  groups:\n  - system:nodes\n`,
      ],
      { minLength: 0 },
    )
    .map((parts) => parts.join('')),
  fc.constant('- rolearn: [unclosed\n'),
);

const snapshot = fc
  .record({
    mode: fc.constantFrom('CONFIG_MAP' as const, 'API_AND_CONFIG_MAP' as const),
    mapRoles,
    withUsers: fc.boolean(),
    absent: fc.boolean(),
  })
  .map(({ mode, mapRoles, withUsers, absent }): ClusterSnapshot => {
    const s = buildSnapshot({
      mode,
      data: {
        ...(mapRoles === '' ? {} : { mapRoles }),
        ...(withUsers ? { mapUsers: `- userarn: arn:aws:iam::${ACCOUNT}:user/ops\n  username: ops\n` } : {}),
      },
      managedFields: [{ manager: 'Terraform', operation: 'Apply', dataKeys: ['mapRoles'] }],
      nodegroups: [nodegroup('ng-1', role('node-a')), nodegroup('ng-2', role('node-b'))],
      fargateProfiles: [fargateProfile('fp-1', role('fargate-a'))],
      compute: [...managedNodes(2, 'ng-1', role('node-a')), ...managedNodes(1, 'ng-2', role('node-b'))],
    });
    return absent ? { ...s, awsAuth: { status: 'absent' } } : s;
  });

/** The changes applied one by one, as simulateSteps applies a step outside any batch. */
function oneByOne(start: ClusterSnapshot, changes: readonly Change[]) {
  let state = start;
  const effects: SimulationEffect[] = [];
  for (const c of changes) {
    try {
      const sim = simulateChange(state, c);
      effects.push(...sim.effects);
      state = sim.after;
    } catch (error) {
      if (!(error instanceof SimulationError)) throw error;
      effects.push({ summary: `not simulated: ${error.message}`, assumed: false });
    }
  }
  return { after: state, effects };
}

type AwsAuthWrite = Extract<SimulatedStep['action'], { kind: 'aws-auth' }>;

/** A Terraform write of aws-auth after the run: replacing mapRoles or not, or deleting the ConfigMap. */
const write: fc.Arbitrary<AwsAuthWrite> = fc
  .record({
    scope: fc.constantFrom('whole' as const, 'keys' as const),
    data: fc.oneof(
      fc.constant(null),
      mapRoles.map((m) => ({ mapRoles: m })),
      fc.constant({ mapUsers: `- userarn: arn:aws:iam::${ACCOUNT}:user/dev\n  username: dev\n` }),
    ),
    removeMapRoles: fc.boolean(),
  })
  .map(({ scope, data, removeMapRoles }) => ({
    kind: 'aws-auth',
    scope,
    data,
    removedKeys: removeMapRoles ? ['mapRoles'] : [],
    manager: 'Terraform',
    force: true,
  }));

describe('simulateSteps: node-group and Fargate runs (property)', () => {
  it('leaves the same state and effects as the changes applied one by one', () => {
    fc.assert(
      fc.property(snapshot, fc.array(change, { minLength: 1, maxLength: 8 }), (start, changes) => {
        const expected = oneByOne(start, changes);
        const got = simulateSteps(
          start,
          changes.map((c) => ({ action: { kind: 'change' as const, change: c } })),
        );
        expect(got.after).toEqual(expected.after);
        expect(got.effects).toEqual(expected.effects);
      }),
      RUNS,
    );
  });

  it('reports what a later aws-auth write takes away as from the state the changes one by one leave', () => {
    fc.assert(
      fc.property(snapshot, fc.array(change, { minLength: 1, maxLength: 6 }), write, (start, changes, w) => {
        const expected = oneByOne(start, changes);
        const thenWrite = simulateSteps(expected.after, [{ action: w }]);
        const got = simulateSteps(start, [
          ...changes.map((c) => ({ action: { kind: 'change' as const, change: c } })),
          { action: w },
        ]);
        expect(got.after).toEqual(thenWrite.after);
        expect(got.effects).toEqual([...expected.effects, ...thenWrite.effects]);
      }),
      RUNS,
    );
  });
});

describe('simulateChange: the parse it hands over (property)', () => {
  it('is the parse of the aws-auth it leaves, whenever it hands one over', () => {
    fc.assert(
      fc.property(snapshot, fc.array(change, { minLength: 1, maxLength: 6 }), (start, changes) => {
        let state = start;
        let parsed = state.awsAuth.status === 'ok' ? parseAwsAuth(state.awsAuth.data.data) : undefined;
        for (const c of changes) {
          let sim: ReturnType<typeof simulateChange>;
          try {
            sim = simulateChange(state, c, parsed === undefined ? {} : { awsAuth: parsed });
          } catch (error) {
            if (!(error instanceof SimulationError)) throw error;
            continue;
          }
          const written = sim.after.awsAuth;
          if (sim.awsAuth !== undefined) {
            if (written.status !== 'ok')
              throw new Error('a parse handed over for an aws-auth that is not ok');
            expect(sim.awsAuth).toEqual(parseAwsAuth(written.data.data));
          }
          state = sim.after;
          parsed = sim.awsAuth;
        }
      }),
      RUNS,
    );
  });

  it('hands one over for a node group deletion that rewrites a clean mapRoles', () => {
    const start = buildSnapshot({
      data: { mapRoles: [nodeMapping(role('node-a')), nodeMapping(role('node-b'))].join('') },
      nodegroups: [nodegroup('ng-1', role('node-a')), nodegroup('ng-2', role('node-b'))],
    });
    if (start.awsAuth.status !== 'ok') throw new Error('aws-auth');
    const sim = simulateChange(
      start,
      { kind: 'delete-nodegroup', nodegroupName: 'ng-1', nodeRole: role('node-a') },
      { awsAuth: parseAwsAuth(start.awsAuth.data.data) },
    );
    expect(sim.removedFromAwsAuth).toHaveLength(1);
    expect(sim.awsAuth?.roles.map((r) => r.rolearn)).toEqual([role('node-b')]);
  });
});
