/**
 * Properties of the Pod Identity hops and of the condition repair: a known external ID decides the
 * target hop exactly (equal → allowed, different → denied, not captured → unknown); the first hop
 * never meets a positive condition on sts:ExternalId; the verdict does not depend on statement
 * order; a repair only ever widens the statements it rewrites, changes nothing when every request
 * is already allowed, and is idempotent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assessSnapshot } from '../../../shared/core/predict/engine.ts';
import {
  evaluateTrustPolicy,
  type TrustRequest,
} from '../../../shared/core/workload-identity/iam-policy/evaluate.ts';
import { repairConditions } from '../../../shared/core/workload-identity/iam-policy/repair.ts';
import {
  podIdentityRequest,
  roleChainRequest,
} from '../../../shared/core/workload-identity/pod-identity-requests.ts';
import { ACCOUNT } from '../../support/snapshot-builder.ts';
import { APP_ROLE, association, podIdentitySnapshot, role } from '../../support/workload-identity-builder.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 1_000);
const TARGET = `arn:aws:iam::${ACCOUNT}:role/app-data`;
const s = podIdentitySnapshot();
const doc = (Statement: unknown[]) => JSON.stringify({ Version: '2012-10-17', Statement });

const externalId = fc.oneof(
  fc.constantFrom('e7c1a0b94f2d4c8a9b3e5f6a7d8c9b0a', 'eu-west-1/111122223333/prod/apps/reader', '*', ''),
  // `${` would make the value a policy variable (not evaluated): not an external ID EKS generates.
  fc.string({ maxLength: 12 }).filter((v) => !v.includes('${')),
);

const KEYS = [
  'sts:ExternalId',
  'aws:SourceAccount',
  'aws:SourceArn',
  'aws:PrincipalArn',
  'aws:RequestTag/kubernetes-namespace',
  'aws:RequestTag/kubernetes-pod-name',
  'aws:RequestTag/team',
  'aws:PrincipalTag/kubernetes-namespace',
];
const VALUES = [
  ACCOUNT,
  `arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/prod`,
  APP_ROLE,
  'apps',
  'jobs',
  'x',
  'e1',
  'e2',
  '*',
];
const operator = fc.constantFrom(
  'StringEquals',
  'StringNotEquals',
  'StringLike',
  'StringNotLike',
  'ArnLike',
  'StringEqualsIfExists',
  'Null',
  'ForAnyValue:StringEquals',
);
const condition = fc.dictionary(
  operator,
  fc.dictionary(
    fc.constantFrom(...KEYS),
    fc.oneof(
      fc.constantFrom(...VALUES, 'true', 'false'),
      fc.array(fc.constantFrom(...VALUES), { maxLength: 3 }),
    ),
    { minKeys: 1, maxKeys: 2 },
  ),
  { maxKeys: 2 },
);
const statement = fc
  .record({
    Sid: fc.option(fc.constantFrom('A', 'B', 'Pods'), { nil: undefined }),
    Effect: fc.constantFrom('Allow', 'Allow', 'Allow', 'Deny'),
    Principal: fc.constantFrom(
      { Service: 'pods.eks.amazonaws.com' },
      { AWS: APP_ROLE },
      { AWS: `arn:aws:iam::${ACCOUNT}:root` },
      '*',
    ),
    Action: fc.constantFrom(
      'sts:AssumeRole',
      ['sts:AssumeRole', 'sts:TagSession'],
      'sts:*',
      'sts:TagSession',
    ),
    Condition: fc.option(condition, { nil: undefined }),
  })
  .map((st) => Object.fromEntries(Object.entries(st).filter(([, v]) => v !== undefined)));
const statements = fc.array(statement, { minLength: 1, maxLength: 4 });

const hop = fc
  .record({
    target: fc.boolean(),
    action: fc.constantFrom('sts:AssumeRole', 'sts:TagSession'),
    namespace: fc.constantFrom('apps', 'jobs'),
    tagless: fc.boolean(),
    ext: fc.option(fc.constantFrom('e1', 'e2'), { nil: undefined }),
  })
  .map(({ target, action, namespace, tagless, ext }): TrustRequest => {
    const x = association({
      namespace,
      disableSessionTags: tagless,
      ...(ext === undefined ? {} : { externalId: ext }),
    });
    return target ? roleChainRequest(s, APP_ROLE, action, x) : podIdentityRequest(s, action, x);
  });

const decide = (policy: string, r: TrustRequest) => evaluateTrustPolicy(policy, r).decision;

describe('Pod Identity hops', () => {
  it('a known external ID decides the target hop: equal → allowed, different → denied, not captured → unknown', () => {
    fc.assert(
      fc.property(externalId, externalId, (sent, written) => {
        const policy = doc([
          {
            Effect: 'Allow',
            Principal: { AWS: APP_ROLE },
            Action: 'sts:AssumeRole',
            Condition: { StringEquals: { 'sts:ExternalId': written } },
          },
        ]);
        const x = association({ targetRoleArn: TARGET, externalId: sent });
        expect(decide(policy, roleChainRequest(s, APP_ROLE, 'sts:AssumeRole', x))).toBe(
          sent === written ? 'allowed' : 'denied',
        );
        const old = association({ targetRoleArn: TARGET });
        expect(decide(policy, roleChainRequest(s, APP_ROLE, 'sts:AssumeRole', old))).toBe('unknown');
      }),
      { numRuns: RUNS },
    );
  });

  it('the first hop never meets a positive condition on sts:ExternalId, whatever its value', () => {
    const positive = fc.constantFrom(
      'StringEquals',
      'StringLike',
      'StringEqualsIgnoreCase',
      'ForAnyValue:StringLike',
    );
    fc.assert(
      fc.property(positive, externalId, fc.boolean(), (op, value, tagless) => {
        const policy = doc([
          {
            Effect: 'Allow',
            Principal: { Service: 'pods.eks.amazonaws.com' },
            Action: ['sts:AssumeRole', 'sts:TagSession'],
            Condition: { [op]: { 'sts:ExternalId': value } },
          },
        ]);
        const x = association({ disableSessionTags: tagless, targetRoleArn: TARGET, externalId: value });
        expect(decide(policy, podIdentityRequest(s, 'sts:AssumeRole', x))).toBe('denied');
      }),
      { numRuns: RUNS },
    );
  });

  it('the decision on either hop does not depend on the order of the statements', () => {
    fc.assert(
      fc.property(statements, hop, fc.integer({ min: 0, max: 3 }), (list, r, shift) => {
        const k = shift % list.length;
        const rotated = [...list.slice(k), ...list.slice(0, k)];
        expect(decide(doc(rotated), r)).toBe(decide(doc(list), r));
        expect(decide(doc([...list].reverse()), r)).toBe(decide(doc(list), r));
      }),
      { numRuns: RUNS },
    );
  });

  it('the finding on a role does not depend on the order of its trust statements', () => {
    fc.assert(
      fc.property(statements, (list) => {
        const judge = (l: unknown[]) =>
          assessSnapshot(podIdentitySnapshot({ roles: [role(APP_ROLE, doc(l))] }))
            .filter((f) => f.ruleId === 'pod-identity/role-trust-missing')
            .map((f) => [f.severity, f.evidence.verdict, f.evidence.actions, f.blastRadius?.serviceAccounts]);
        expect(judge([...list].reverse())).toEqual(judge(list));
      }),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });
});

describe('repairConditions', () => {
  const requests = fc.array(hop, { minLength: 1, maxLength: 3 });

  it('only widens: a request allowed before is allowed after, and a rewrite keeps Effect, Principal and Sid', () => {
    fc.assert(
      fc.property(statements, requests, hop, (list, rs, other) => {
        const before = doc(list);
        const r = repairConditions(before, rs);
        if (r === undefined) return;
        const after = JSON.stringify(r.document);
        for (const q of [...rs, other])
          if (decide(before, q) === 'allowed') expect(decide(after, q)).toBe('allowed');
        for (const w of r.rewritten) {
          const was = list[w.index] as Record<string, unknown>;
          const now = w.statement as Record<string, unknown>;
          expect(now.Effect).toBe('Allow');
          expect(now.Principal).toEqual(was.Principal);
          expect(now.Sid).toEqual(was.Sid);
        }
        for (const q of rs) expect(r.remaining.includes(q)).toBe(decide(after, q) !== 'allowed');
      }),
      { numRuns: RUNS },
    );
  });

  it('changes nothing when every request is already allowed, and a second repair changes nothing', () => {
    fc.assert(
      fc.property(statements, requests, (list, rs) => {
        const r = repairConditions(doc(list), rs);
        if (r === undefined) return;
        if (rs.every((q) => decide(doc(list), q) === 'allowed')) {
          expect(r.changes).toEqual([]);
          expect(r.document.Statement).toEqual(list);
        }
        const again = repairConditions(JSON.stringify(r.document), rs);
        expect(again?.changes).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});
