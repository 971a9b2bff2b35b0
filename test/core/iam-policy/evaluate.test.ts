import { describe, expect, it } from 'vitest';
import {
  evaluateTrustPolicy,
  type TrustRequest,
} from '../../../shared/core/workload-identity/iam-policy/evaluate.ts';
import { arnMatch, globMatch } from '../../../shared/core/workload-identity/iam-policy/glob.ts';

const ACCOUNT = '111122223333';
const CLUSTER = `arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/prod`;
const ISSUER = 'oidc.eks.eu-west-1.amazonaws.com/id/ABCDEF0123456789';
const PROVIDER = `arn:aws:iam::${ACCOUNT}:oidc-provider/${ISSUER}`;

const pods = (action: string): TrustRequest => ({
  principal: { type: 'Service', id: 'pods.eks.amazonaws.com' },
  action,
  context: { 'aws:SourceAccount': { present: [ACCOUNT] }, 'aws:SourceArn': { present: [CLUSTER] } },
});
const irsa = (ns: string, sa: string): TrustRequest => ({
  principal: { type: 'Federated', id: PROVIDER },
  action: 'sts:AssumeRoleWithWebIdentity',
  context: {
    [`${ISSUER}:sub`]: { present: [`system:serviceaccount:${ns}:${sa}`] },
    [`${ISSUER}:aud`]: { present: ['sts.amazonaws.com'] },
  },
});
const policy = (...Statement: unknown[]) => JSON.stringify({ Version: '2012-10-17', Statement });
const decision = (p: string, r: TrustRequest) => evaluateTrustPolicy(p, r).decision;

const POD_IDENTITY = {
  Effect: 'Allow',
  Principal: { Service: 'pods.eks.amazonaws.com' },
  Action: ['sts:AssumeRole', 'sts:TagSession'],
};

describe('evaluateTrustPolicy: principals and actions', () => {
  it('allows the documented Pod Identity trust for both actions and refuses others', () => {
    const p = policy(POD_IDENTITY);
    expect(decision(p, pods('sts:AssumeRole'))).toBe('allowed');
    expect(decision(p, pods('sts:TagSession'))).toBe('allowed');
    expect(decision(p, pods('sts:AssumeRoleWithWebIdentity'))).toBe('denied');
    expect(decision(p, irsa('default', 'app'))).toBe('denied');
  });

  it('takes Statement as an object, Principal as a string list, actions case-insensitively and with wildcards', () => {
    const p = JSON.stringify({
      Statement: {
        Effect: 'Allow',
        Principal: { Service: ['ec2.amazonaws.com', 'PODS.eks.amazonaws.com'] },
        Action: 'STS:Assume*',
      },
    });
    expect(decision(p, pods('sts:AssumeRole'))).toBe('allowed');
    expect(decision(p, pods('sts:TagSession'))).toBe('denied');
    expect(decision(policy({ ...POD_IDENTITY, Action: 'sts:?agSession' }), pods('sts:TagSession'))).toBe(
      'allowed',
    );
  });

  it('matches Principal "*" for everyone and {"AWS": "*"} for a service principal only as unknown', () => {
    expect(decision(policy({ ...POD_IDENTITY, Principal: '*' }), pods('sts:AssumeRole'))).toBe('allowed');
    const r = evaluateTrustPolicy(
      policy({ ...POD_IDENTITY, Principal: { AWS: '*' } }),
      pods('sts:AssumeRole'),
    );
    expect(r.decision).toBe('unknown');
  });

  it('applies NotAction and NotPrincipal as complements', () => {
    expect(
      decision(
        policy({ ...POD_IDENTITY, Action: undefined, NotAction: 'sts:TagSession' }),
        pods('sts:AssumeRole'),
      ),
    ).toBe('allowed');
    expect(
      decision(
        policy({ ...POD_IDENTITY, Action: undefined, NotAction: 'sts:TagSession' }),
        pods('sts:TagSession'),
      ),
    ).toBe('denied');
    const deny = { Effect: 'Deny', NotPrincipal: { Service: 'pods.eks.amazonaws.com' }, Action: '*' };
    expect(decision(policy(POD_IDENTITY, deny), pods('sts:AssumeRole'))).toBe('allowed');
    const denyOthers = { Effect: 'Deny', NotPrincipal: { Service: 'ec2.amazonaws.com' }, Action: '*' };
    expect(evaluateTrustPolicy(policy(POD_IDENTITY, denyOthers), pods('sts:AssumeRole'))).toMatchObject({
      decision: 'denied',
      explicit: true,
    });
  });

  it('lets a Deny win over an Allow, and says an implicit deny is not explicit', () => {
    const deny = { Sid: 'NoTags', Effect: 'Deny', Principal: '*', Action: 'sts:TagSession' };
    expect(evaluateTrustPolicy(policy(POD_IDENTITY, deny), pods('sts:TagSession'))).toEqual({
      decision: 'denied',
      explicit: true,
      statements: ['NoTags'],
    });
    expect(evaluateTrustPolicy(policy(), pods('sts:AssumeRole'))).toEqual({
      decision: 'denied',
      explicit: false,
      statements: [],
    });
  });

  it('matches a role-chaining principal by role ARN or by its account', () => {
    const source = `arn:aws:iam::${ACCOUNT}:role/team/source`;
    const req = { principal: { type: 'AWS' as const, id: source }, action: 'sts:AssumeRole', context: {} };
    const allow = (p: unknown) =>
      policy({ Effect: 'Allow', Principal: { AWS: p }, Action: 'sts:AssumeRole' });
    expect(decision(allow(`arn:aws:iam::${ACCOUNT}:role/source`), req)).toBe('allowed');
    expect(decision(allow(ACCOUNT), req)).toBe('allowed');
    expect(decision(allow(`arn:aws:iam::${ACCOUNT}:root`), req)).toBe('allowed');
    expect(decision(allow('arn:aws:iam::999999999999:root'), req)).toBe('denied');
  });
});

describe('evaluateTrustPolicy: conditions', () => {
  const web = (condition: unknown) =>
    policy({
      Effect: 'Allow',
      Principal: { Federated: PROVIDER },
      Action: 'sts:AssumeRoleWithWebIdentity',
      Condition: condition,
    });

  it('checks the IRSA sub and aud with StringEquals, keys case-insensitively, values case-sensitively', () => {
    const p = web({
      StringEquals: {
        [`${ISSUER.toUpperCase()}:SUB`]: 'system:serviceaccount:default:app',
        [`${ISSUER}:aud`]: 'sts.amazonaws.com',
      },
    });
    expect(decision(p, irsa('default', 'app'))).toBe('allowed');
    expect(decision(p, irsa('default', 'APP'))).toBe('denied');
    expect(decision(p, irsa('other', 'app'))).toBe('denied');
  });

  it('refuses a trust that names another cluster’s issuer (the blue/green breakage)', () => {
    const blue = 'oidc.eks.eu-west-1.amazonaws.com/id/BLUE';
    const p = policy({
      Effect: 'Allow',
      Principal: { Federated: `arn:aws:iam::${ACCOUNT}:oidc-provider/${blue}` },
      Action: 'sts:AssumeRoleWithWebIdentity',
      Condition: { StringEquals: { [`${blue}:sub`]: 'system:serviceaccount:default:app' } },
    });
    expect(decision(p, irsa('default', 'app'))).toBe('denied');
  });

  it('matches StringLike with * and ?, and StringNotLike as its complement', () => {
    expect(
      decision(
        web({ StringLike: { [`${ISSUER}:sub`]: 'system:serviceaccount:team-?:*' } }),
        irsa('team-a', 'x'),
      ),
    ).toBe('allowed');
    expect(
      decision(
        web({ StringLike: { [`${ISSUER}:sub`]: 'system:serviceaccount:team-?:*' } }),
        irsa('team-ab', 'x'),
      ),
    ).toBe('denied');
    expect(
      decision(web({ StringNotLike: { [`${ISSUER}:sub`]: '*:kube-system:*' } }), irsa('default', 'x')),
    ).toBe('allowed');
    expect(
      decision(
        web({ StringNotEquals: { [`${ISSUER}:sub`]: 'system:serviceaccount:default:x' } }),
        irsa('default', 'x'),
      ),
    ).toBe('denied');
  });

  it('ORs the values of one key and ANDs keys and operators', () => {
    const sub = `${ISSUER}:sub`;
    const p = web({
      StringEquals: { [sub]: ['system:serviceaccount:a:x', 'system:serviceaccount:b:y'] },
      StringLike: { [`${ISSUER}:aud`]: 'sts.*' },
    });
    expect(decision(p, irsa('b', 'y'))).toBe('allowed');
    const both = web({
      StringEquals: { [sub]: 'system:serviceaccount:b:y' },
      StringNotEquals: { [sub]: 'system:serviceaccount:b:y' },
    });
    expect(decision(both, irsa('b', 'y'))).toBe('denied');
  });

  it('evaluates aws:SourceAccount and ArnLike aws:SourceArn for Pod Identity', () => {
    const cond = (c: unknown) => policy({ ...POD_IDENTITY, Condition: c });
    expect(decision(cond({ StringEquals: { 'aws:SourceAccount': ACCOUNT } }), pods('sts:AssumeRole'))).toBe(
      'allowed',
    );
    expect(
      decision(cond({ StringEquals: { 'aws:sourceaccount': '999999999999' } }), pods('sts:AssumeRole')),
    ).toBe('denied');
    expect(
      decision(
        cond({ ArnLike: { 'aws:SourceArn': `arn:aws:eks:*:${ACCOUNT}:cluster/*` } }),
        pods('sts:AssumeRole'),
      ),
    ).toBe('allowed');
    expect(
      decision(
        cond({ ArnEquals: { 'aws:SourceArn': `arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/green` } }),
        pods('sts:AssumeRole'),
      ),
    ).toBe('denied');
    // A `*` in one ARN part does not span the colons of the others.
    expect(
      decision(cond({ ArnLike: { 'aws:SourceArn': `arn:aws:eks:*:cluster/prod` } }), pods('sts:AssumeRole')),
    ).toBe('denied');
  });

  it('applies the missing-key rules: positive false, negated true, IfExists true, Null, ForAllValues/ForAnyValue', () => {
    const absent: TrustRequest = { ...pods('sts:AssumeRole'), context: { 'aws:SourceArn': 'absent' } };
    const cond = (c: unknown) => policy({ ...POD_IDENTITY, Condition: c });
    const arn = 'aws:SourceArn';
    expect(decision(cond({ ArnLike: { [arn]: '*' } }), absent)).toBe('denied');
    expect(decision(cond({ ArnNotLike: { [arn]: '*' } }), absent)).toBe('allowed');
    expect(decision(cond({ ArnLikeIfExists: { [arn]: 'x' } }), absent)).toBe('allowed');
    expect(decision(cond({ Null: { [arn]: 'true' } }), absent)).toBe('allowed');
    expect(decision(cond({ Null: { [arn]: 'false' } }), absent)).toBe('denied');
    expect(decision(cond({ 'ForAllValues:StringEquals': { [arn]: 'x' } }), absent)).toBe('allowed');
    expect(decision(cond({ 'ForAnyValue:StringEquals': { [arn]: 'x' } }), absent)).toBe('denied');
    expect(
      decision(
        cond({ 'ForAnyValue:StringEquals': { 'aws:SourceAccount': ['1', ACCOUNT] } }),
        pods('sts:AssumeRole'),
      ),
    ).toBe('allowed');
    expect(decision(cond({ Bool: { 'aws:SourceAccount': 'true' } }), pods('sts:AssumeRole'))).toBe('denied');
  });

  it('says unknown, naming the condition, for keys the snapshot cannot tell and for policy variables', () => {
    const r = evaluateTrustPolicy(
      policy({ ...POD_IDENTITY, Condition: { StringEquals: { 'aws:PrincipalTag/team': 'a' } } }),
      pods('sts:AssumeRole'),
    );
    expect(r).toMatchObject({
      decision: 'unknown',
      unevaluated: [{ operator: 'StringEquals', key: 'aws:PrincipalTag/team' }],
    });
    const tag = evaluateTrustPolicy(
      policy({
        ...POD_IDENTITY,
        Condition: { StringLike: { 'aws:RequestTag/kubernetes-namespace': 'prod-*' } },
      }),
      pods('sts:TagSession'),
    );
    expect(tag.decision).toBe('unknown');
    const variable = policy({
      ...POD_IDENTITY,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an IAM policy variable, literally
      Condition: { StringEquals: { 'aws:SourceAccount': '${aws:PrincipalAccount}' } },
    });
    expect(decision(variable, pods('sts:AssumeRole'))).toBe('unknown');
    expect(
      decision(
        policy({ ...POD_IDENTITY, Condition: { DateGreaterThan: { 'aws:SourceAccount': '1' } } }),
        pods('sts:AssumeRole'),
      ),
    ).toBe('unknown');
  });

  it('stays certain when the unknown condition cannot change the outcome', () => {
    const unknownDeny = {
      Effect: 'Deny',
      Principal: '*',
      Action: '*',
      Condition: { Bool: { 'aws:MultiFactorAuthPresent': 'false' } },
    };
    // No Allow at all: denied whatever the Deny's condition.
    expect(decision(policy(unknownDeny), pods('sts:AssumeRole'))).toBe('denied');
    // A certain Deny: denied whatever the Allow's condition.
    const tagged = { ...POD_IDENTITY, Condition: { StringEquals: { 'aws:PrincipalTag/x': 'y' } } };
    expect(
      decision(policy(tagged, { Effect: 'Deny', Principal: '*', Action: '*' }), pods('sts:AssumeRole')),
    ).toBe('denied');
    // A certain Allow with an undecidable Deny: unknown.
    expect(decision(policy(POD_IDENTITY, unknownDeny), pods('sts:AssumeRole'))).toBe('unknown');
  });
});

describe('evaluateTrustPolicy: malformed input', () => {
  it.each([
    ['not JSON', '{"Statement": ['],
    ['no Statement', '{}'],
    ['an array', '[]'],
    ['Effect missing', policy({ Principal: '*', Action: '*' })],
    ['Action and NotAction', policy({ Effect: 'Allow', Principal: '*', Action: '*', NotAction: 'x' })],
    ['no principal', policy({ Effect: 'Allow', Action: '*' })],
    [
      'an object as condition value',
      policy({ ...POD_IDENTITY, Condition: { StringEquals: { k: { a: 1 } } } }),
    ],
    ['a bad qualifier', policy({ ...POD_IDENTITY, Condition: { 'ForSome:StringEquals': { k: 'a' } } })],
    ['a number as action', policy({ ...POD_IDENTITY, Action: 5 })],
  ])('gives invalid with a reason for %s', (_, text) => {
    const r = evaluateTrustPolicy(text, pods('sts:AssumeRole'));
    expect(r.decision).toBe('invalid');
    expect(r.decision === 'invalid' && r.reason.length).toBeGreaterThan(0);
  });

  it('gives invalid for deep nesting and huge input instead of throwing', () => {
    expect(decision(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, pods('sts:AssumeRole'))).toBe('invalid');
    expect(decision('x'.repeat(1_000_000), pods('sts:AssumeRole'))).toBe('invalid');
  });
});

describe('glob', () => {
  it('matches IAM wildcards only, in linear time on hostile patterns', () => {
    expect(globMatch('a*b?c', 'aXXbYc')).toBe(true);
    expect(globMatch('a.b', 'aXb')).toBe(false);
    expect(globMatch('[ab]', 'a')).toBe(false);
    expect(globMatch(`${'*a'.repeat(50)}b`, 'a'.repeat(5_000))).toBe(false);
    expect(arnMatch('arn:aws:iam::*:role/*', 'arn:aws:iam::1:role/a:b')).toBe(true);
  });
});
