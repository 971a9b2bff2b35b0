import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidPlan, planSchema } from '../../shared/core/terraform-plan/schema.ts';

/**
 * `validatePlan` checks a plan by hand (`isValidPlan`) and runs the zod schema only when that
 * fails, for its message and path: the two must accept exactly the same documents.
 */

const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 2_000) };

const ABSENT = Symbol('absent');
const anyValue = fc.oneof(
  fc.constantFrom<unknown>(ABSENT, null, '', 'x', 0, true, [], {}),
  fc.constantFrom('aws_eks_access_entry.a', 'managed', 'aws_eks_node_group'),
);
const field = (good: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: anyValue });
const actions = fc.oneof(
  fc.array(fc.constantFrom('no-op', 'create', 'read', 'update', 'delete', 'forget'), { maxLength: 3 }),
  fc.array(fc.constantFrom<unknown>('create', 'Create', 'replace', 1, null), { maxLength: 2 }),
);

function withoutAbsent(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ABSENT));
}

const change = field(
  fc
    .record({
      actions: field(actions),
      before: field(fc.constant({ a: 1 })),
      after: field(fc.constant(null)),
      after_unknown: field(fc.constant({})),
    })
    .map(withoutAbsent),
);
const resourceChange = field(
  fc
    .record({
      address: field(fc.constantFrom('aws_eks_access_entry.a', 'module.m.aws_iam_role.r', '')),
      module_address: fc.oneof(fc.constant(ABSENT), field(fc.constant('module.m'))),
      mode: field(fc.constant('managed')),
      type: field(fc.constant('aws_eks_access_entry')),
      name: field(fc.constant('a')),
      index: fc.oneof(fc.constant(ABSENT), anyValue),
      deposed: fc.oneof(fc.constant(ABSENT), field(fc.constant('00000001'))),
      action_reason: fc.oneof(fc.constant(ABSENT), field(fc.constant('replace_because_cannot_update'))),
      change,
    })
    .map(withoutAbsent),
);
const plan = fc
  .record({
    format_version: field(fc.constant('1.2')),
    terraform_version: fc.oneof(fc.constant(ABSENT), field(fc.constant('1.9.8'))),
    errored: fc.oneof(fc.constant(ABSENT), field(fc.boolean())),
    complete: fc.oneof(fc.constant(ABSENT), field(fc.boolean())),
    resource_changes: field(fc.array(resourceChange, { maxLength: 4 })),
  })
  .map(withoutAbsent);

describe('the hand check of a plan', () => {
  it('accepts exactly what the zod schema accepts', () => {
    let accepted = 0;
    fc.assert(
      fc.property(plan, (p) => {
        const zod = planSchema.safeParse(p).success;
        expect(isValidPlan(p)).toBe(zod);
        if (zod) accepted++;
      }),
      RUNS,
    );
    expect(accepted).toBeGreaterThan(RUNS.numRuns / 20);
  });
});
