/**
 * Properties of the trust-policy evaluation: total on any input; Deny only ever removes access;
 * statement order is irrelevant; and an `unknown` key never yields a certain answer that one of its
 * possible values would contradict (soundness of the three-valued result).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ContextValue,
  evaluateTrustPolicy,
  type TrustRequest,
} from '../../../shared/core/workload-identity/iam-policy/evaluate.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 2_000);
const KEYS = ['aws:SourceAccount', 'aws:SourceArn', 'issuer:sub', 'aws:PrincipalTag/team'];
const VALUES = [
  '111122223333',
  'arn:aws:eks:eu-west-1:111122223333:cluster/prod',
  'system:serviceaccount:a:b',
  'x',
  '*',
  'a?c',
  'true',
];

const operator = fc.constantFrom(
  'StringEquals',
  'StringNotEquals',
  'StringLike',
  'StringNotLike',
  'StringEqualsIgnoreCase',
  'ArnLike',
  'ArnEquals',
  'ArnNotLike',
  'Bool',
  'Null',
  'StringEqualsIfExists',
  'StringNotLikeIfExists',
  'ForAnyValue:StringLike',
  'ForAllValues:StringEquals',
  'NumericLessThan',
);
const condition = fc.dictionary(
  operator,
  fc.dictionary(
    fc.constantFrom(...KEYS),
    fc.oneof(
      fc.constantFrom(...VALUES),
      fc.array(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 3 }),
    ),
    {
      maxKeys: 2,
    },
  ),
  { maxKeys: 2 },
);
const principal = fc.oneof(
  fc.constant('*'),
  fc.record({ Service: fc.constantFrom('pods.eks.amazonaws.com', 'ec2.amazonaws.com') }),
  fc.record({ AWS: fc.constantFrom('*', '111122223333') }),
  fc.record({ Federated: fc.constantFrom('arn:aws:iam::111122223333:oidc-provider/issuer') }),
);
const action = fc.oneof(
  fc.constantFrom('sts:AssumeRole', 'sts:TagSession', 'sts:*', '*', 'sts:AssumeRoleWith*'),
  fc.array(fc.constantFrom('sts:AssumeRole', 'STS:TAGSESSION', 'iam:*'), { minLength: 1, maxLength: 2 }),
);
const statement = fc
  .record({
    Effect: fc.constantFrom('Allow', 'Deny'),
    principalKind: fc.constantFrom('Principal', 'NotPrincipal'),
    p: principal,
    actionKind: fc.constantFrom('Action', 'NotAction'),
    a: action,
    Condition: fc.option(condition, { nil: undefined }),
  })
  .map(({ Effect, principalKind, p, actionKind, a, Condition }) => ({
    Effect,
    [principalKind]: p,
    [actionKind]: a,
    ...(Condition === undefined ? {} : { Condition }),
  }));
const statements = fc.array(statement, { maxLength: 5 });

const contextValue: fc.Arbitrary<ContextValue> = fc.oneof(
  fc.constant('absent' as const),
  fc.constantFrom(...VALUES).map((v) => ({ present: [v] })),
);
const request = fc.record({
  principal: fc.constantFrom(
    { type: 'Service' as const, id: 'pods.eks.amazonaws.com' },
    { type: 'Federated' as const, id: 'arn:aws:iam::111122223333:oidc-provider/issuer' },
    { type: 'AWS' as const, id: 'arn:aws:iam::111122223333:role/src' },
  ),
  action: fc.constantFrom('sts:AssumeRole', 'sts:TagSession', 'sts:AssumeRoleWithWebIdentity'),
  context: fc.dictionary(fc.constantFrom(...KEYS), contextValue, { maxKeys: KEYS.length }),
}) as fc.Arbitrary<TrustRequest>;

const doc = (Statement: unknown[]) => JSON.stringify({ Version: '2012-10-17', Statement });
const decide = (s: unknown[], r: TrustRequest) => evaluateTrustPolicy(doc(s), r).decision;

describe('evaluateTrustPolicy properties', () => {
  it('never throws, on any JSON value or any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.jsonValue().map((v) => ({ Statement: v })),
        ),
        request,
        (input, r) => {
          const d = evaluateTrustPolicy(typeof input === 'string' ? input : JSON.stringify(input), r);
          expect(['allowed', 'denied', 'unknown', 'invalid']).toContain(d.decision);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('adding a Deny statement never turns a result into allowed (nor denied into anything else)', () => {
    fc.assert(
      fc.property(statements, statement, request, (s, extra, r) => {
        const deny = { ...extra, Effect: 'Deny' };
        const before = decide(s, r);
        const after = decide([...s, deny], r);
        if (before !== 'allowed') expect(after).not.toBe('allowed');
        if (before === 'denied') expect(after).toBe('denied');
      }),
      { numRuns: RUNS },
    );
  });

  it('adding an Allow statement never turns allowed into anything else', () => {
    fc.assert(
      fc.property(statements, statement, request, (s, extra, r) => {
        if (decide(s, r) === 'allowed')
          expect(decide([...s, { ...extra, Effect: 'Allow' }], r)).toBe('allowed');
      }),
      { numRuns: RUNS },
    );
  });

  it('does not depend on statement order', () => {
    fc.assert(
      fc.property(statements, request, fc.integer(), (s, r, seed) => {
        const shuffled = [...s].sort(
          (x, y) =>
            ((JSON.stringify(x).length * 31 + seed) % 7) - ((JSON.stringify(y).length * 17 + seed) % 7),
        );
        expect(decide(shuffled, r)).toBe(decide(s, r));
        expect(decide([...s].reverse(), r)).toBe(decide(s, r));
      }),
      { numRuns: RUNS },
    );
  });

  it('a key marked unknown reads as one not listed, and an absent prefix as absent for every key under it', () => {
    fc.assert(
      fc.property(statements, request, fc.constantFrom(...KEYS), (s, r, key) => {
        const { [key]: _, ...rest } = r.context;
        expect(decide(s, { ...r, context: { ...rest, [key]: 'unknown' } })).toBe(
          decide(s, { ...r, context: rest }),
        );
        const prefix = key.slice(0, key.indexOf(':') + 1);
        const under = Object.fromEntries(Object.entries(rest).filter(([k]) => !k.startsWith(prefix)));
        const absent = Object.fromEntries(
          KEYS.filter((k) => k.startsWith(prefix)).map((k) => [k, 'absent' as const]),
        );
        expect(decide(s, { ...r, context: under, absentPrefixes: [prefix.toUpperCase()] })).toBe(
          decide(s, { ...r, context: { ...under, ...absent } }),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('an unknown key never yields a certain answer that a possible value of it would contradict', () => {
    fc.assert(
      fc.property(statements, request, fc.constantFrom(...KEYS), (s, r, key) => {
        const { [key]: _, ...rest } = r.context;
        const open = decide(s, { ...r, context: rest });
        if (open !== 'allowed' && open !== 'denied') return;
        for (const v of [...VALUES.map((x) => ({ present: [x] })), 'absent' as const]) {
          expect(decide(s, { ...r, context: { ...rest, [key]: v } })).toBe(open);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
