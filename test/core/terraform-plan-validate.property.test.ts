import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AttributeType, READ_ATTRIBUTES } from '../../shared/core/plan/attributes.ts';
import { isValidPlan, planSchema } from '../../shared/core/plan/schema.ts';

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

/** A value of the attribute's type, as Terraform prints it. */
function goodValue(t: AttributeType): fc.Arbitrary<unknown> {
  if (t === 'string') return fc.constantFrom('prod', '', 'arn:aws:iam::111122223333:role/x');
  if (t === 'bool') return fc.boolean();
  if (t === 'strings') return fc.array(fc.constantFrom('a', 'system:nodes'), { maxLength: 2 });
  if (t === 'string-map') return fc.dictionary(fc.constantFrom('mapRoles', '__proto__', 'k'), fc.string());
  return fc.array(attributes(t.block, goodValue), { maxLength: 2 });
}

/** An `after_unknown` mark of the attribute's type. */
function goodMark(t: AttributeType): fc.Arbitrary<unknown> {
  if (t === 'string' || t === 'bool') return fc.boolean();
  if (t === 'strings') return fc.oneof(fc.boolean(), fc.array(fc.boolean(), { maxLength: 2 }));
  if (t === 'string-map')
    return fc.oneof(fc.boolean(), fc.dictionary(fc.constantFrom('mapRoles', 'k'), fc.boolean()));
  return fc.oneof(
    fc.boolean(),
    fc.array(fc.oneof(fc.boolean(), attributes(t.block, goodMark)), { maxLength: 2 }),
  );
}

/** An object of some of the attributes, each good, null, or (rarely) of a wrong type. */
function attributes(
  attrs: Readonly<Record<string, AttributeType>>,
  good: (t: AttributeType) => fc.Arbitrary<unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, t] of Object.entries(attrs))
    record[k] = fc.oneof(
      { weight: 3, arbitrary: fc.constant(ABSENT) },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 8, arbitrary: good(t) },
      { weight: 1, arbitrary: anyValue },
    );
  return fc.record(record).map(withoutAbsent);
}

const TYPES = [...READ_ATTRIBUTES.keys()];
const typed = fc.constantFrom(...TYPES).chain((type) => {
  const attrs = READ_ATTRIBUTES.get(type) ?? {};
  return fc.record({
    type: fc.constant(type),
    before: field(fc.oneof(fc.constant(null), attributes(attrs, goodValue))),
    after: field(fc.oneof(fc.constant(null), attributes(attrs, goodValue))),
    after_unknown: field(attributes(attrs, goodMark)),
  });
});

const change = (sides: fc.Arbitrary<{ before: unknown; after: unknown; after_unknown: unknown }>) =>
  field(
    fc
      .record({
        actions: field(actions),
        before: fc.constant(ABSENT),
        after: fc.constant(ABSENT),
        after_unknown: fc.constant(ABSENT),
      })
      .chain((c) => sides.map((s) => withoutAbsent({ ...c, ...s }))),
  );
const untyped = fc.record({
  type: fc.constantFrom('aws_eks_access_entry', 'null_resource', '__proto__', 'constructor'),
  before: field(fc.constant({ a: 1 })),
  after: field(fc.constant(null)),
  after_unknown: field(fc.constant({})),
});
const resourceChange = field(
  fc.oneof(typed, untyped).chain(({ type, ...sides }) =>
    fc
      .record({
        address: field(fc.constantFrom('aws_eks_access_entry.a', 'module.m.aws_iam_role.r', '')),
        module_address: fc.oneof(fc.constant(ABSENT), field(fc.constant('module.m'))),
        mode: field(fc.constantFrom('managed', 'managed', 'data')),
        type: field(fc.constant(type)),
        name: field(fc.constant('a')),
        index: fc.oneof(fc.constant(ABSENT), anyValue),
        deposed: fc.oneof(fc.constant(ABSENT), field(fc.constant('00000001'))),
        action_reason: fc.oneof(fc.constant(ABSENT), field(fc.constant('replace_because_cannot_update'))),
        change: change(fc.constant(sides)),
      })
      .map(withoutAbsent),
  ),
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
