import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AttributeType, READ_ATTRIBUTES } from '../../shared/core/plan/attributes.ts';
import { type ResourceChange, translatePlan, validatePlan } from '../../shared/core/plan/index.ts';
import { REPO_ROOT } from '../support/fake-io.ts';
import { rc } from '../support/terraform-plan.ts';

const PLANS = join(REPO_ROOT, 'test/fixtures/terraform-plan');

/** A value of another type than the attribute's, and the message that names it. */
function wrongValue(t: AttributeType): [unknown, string] {
  if (t === 'string') return [7, 'expected a string'];
  if (t === 'bool') return ['true', 'expected true or false'];
  if (t === 'strings') return ['system:nodes', 'expected a list of strings'];
  if (t === 'string-map') return [['mapRoles'], 'expected a map of strings'];
  return [{ type: 'cluster' }, 'expected a list of blocks (objects)'];
}

describe('the attributes of a plan the translation reads', () => {
  it('refuses a value of the wrong type in any of them, naming its JSON path (before, after, after_unknown)', () => {
    for (const [type, attrs] of READ_ATTRIBUTES) {
      for (const [field, t] of Object.entries(attrs)) {
        const [bad, message] = wrongValue(t);
        for (const side of ['before', 'after'] as const) {
          const change = rc('x.y', type, ['update'], {}, {});
          change.change[side] = { [field]: bad };
          const v = validatePlan({
            format_version: '1.2',
            resource_changes: [rc('a.b', 'null_resource', ['create'], null, {}), change],
          });
          expect({ type, field, side, v }).toEqual({
            type,
            field,
            side,
            v: {
              ok: false,
              error: message,
              path: `$.resource_changes[1].change.${side}.${field}`,
            },
          });
        }
        const marked = rc('x.y', type, ['create'], null, {}, { [field]: 'true' });
        const v = validatePlan({ format_version: '1.2', resource_changes: [marked] });
        expect({ type, field, v: v.ok ? 'accepted' : v.path }).toEqual({
          type,
          field,
          v: `$.resource_changes[0].change.after_unknown.${field}`,
        });
      }
    }
  });

  it('names the element of a list or block that is wrong', () => {
    const groups = rc('x.y', 'aws_eks_access_entry', ['create'], null, { kubernetes_groups: ['a', 7] });
    expect(validatePlan({ format_version: '1.2', resource_changes: [groups] })).toMatchObject({
      ok: false,
      error: 'expected a string',
      path: '$.resource_changes[0].change.after.kubernetes_groups[1]',
    });
    const mode = rc(
      'x.y',
      'aws_eks_cluster',
      ['update'],
      {},
      { access_config: [{ authentication_mode: 1 }] },
    );
    expect(validatePlan({ format_version: '1.2', resource_changes: [mode] })).toMatchObject({
      ok: false,
      path: '$.resource_changes[0].change.after.access_config[0].authentication_mode',
    });
    const data = rc('x.y', 'kubernetes_config_map_v1', ['update'], {}, { data: { 'map Roles': 1 } });
    expect(validatePlan({ format_version: '1.2', resource_changes: [data] })).toMatchObject({
      ok: false,
      path: '$.resource_changes[0].change.after.data["map Roles"]',
    });
  });

  it('accepts null (unset) for every attribute, and leaves data sources and other types alone', () => {
    for (const [type, attrs] of READ_ATTRIBUTES) {
      const nulls = Object.fromEntries(Object.keys(attrs).map((k) => [k, null]));
      expect(
        validatePlan({ format_version: '1.2', resource_changes: [rc('x.y', type, ['update'], nulls, nulls)] })
          .ok,
      ).toBe(true);
      const data = { ...rc('data.x.y', type, ['read'], null, { cluster_name: 7, name: 7 }), mode: 'data' };
      expect(validatePlan({ format_version: '1.2', resource_changes: [data] }).ok).toBe(true);
    }
    const other = rc('x.y', 'aws_s3_bucket', ['create'], null, { cluster_name: 7 });
    expect(validatePlan({ format_version: '1.2', resource_changes: [other] }).ok).toBe(true);
  });

  it('are all in the table: every attribute the translation reads of a managed resource is listed', () => {
    const read = new Map<string, Set<string>>();
    /** `value` as seen by the translation, recording the attribute names (and block fields) it reads. */
    const watch = (type: string, value: unknown, prefix = ''): unknown => {
      if (typeof value !== 'object' || value === null) return value;
      return new Proxy(value, {
        get(target, key, receiver) {
          const inner = Reflect.get(target, key, receiver);
          // An array's indices, length and methods are not attributes; its elements are watched.
          if (typeof key === 'symbol' || Array.isArray(target))
            return Array.isArray(target) && /^\d+$/.test(String(key)) ? watch(type, inner, prefix) : inner;
          const path = prefix === '' ? key : `${prefix}.${key}`;
          const set = read.get(type) ?? new Set<string>();
          read.set(type, set.add(path));
          // A map's keys are data, not attributes: record the map, not its keys.
          return READ_ATTRIBUTES.get(type)?.[key] === 'string-map' ? inner : watch(type, inner, path);
        },
      });
    };
    const translate = (changes: readonly ResourceChange[]) =>
      translatePlan(
        changes.map((c) => ({
          ...c,
          before: watch(c.type, c.before),
          after: watch(c.type, c.after),
          afterUnknown: watch(c.type, c.afterUnknown),
        })),
      );
    for (const file of readdirSync(PLANS).filter((f) => f.endsWith('.json'))) {
      const v = validatePlan(JSON.parse(readFileSync(join(PLANS, file), 'utf8')));
      if (v.ok) translate(v.plan.resourceChanges);
    }
    // Every type with every action shape, every attribute present: each branch of each translator.
    const actions = [['create'], ['delete'], ['update'], ['delete', 'create'], ['create', 'delete']];
    fc.assert(
      fc.property(
        fc.constantFrom(...READ_ATTRIBUTES.keys()),
        fc.constantFrom(...actions),
        fc.boolean(),
        (type, acts, unknown) => {
          const values = {
            cluster_name: 'prod',
            name: 'aws-auth',
            namespace: 'kube-system',
            addon_name: 'eks-pod-identity-agent',
            arn: 'arn:aws:iam::111122223333:role/x',
            role: 'x',
            policy_arn: 'arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy',
            metadata: [{ name: 'aws-auth', namespace: 'kube-system' }],
            access_scope: [{ type: 'namespace', namespaces: ['a'] }],
            access_config: [{ authentication_mode: 'API' }],
            data: { mapRoles: '' },
          };
          const full = Object.fromEntries(
            Object.entries(READ_ATTRIBUTES.get(type) ?? {}).map(([k, t]) => [
              k,
              (values as Record<string, unknown>)[k] ??
                (t === 'bool' ? true : t === 'strings' ? ['a'] : `${k}-1`),
            ]),
          );
          const v = validatePlan({
            format_version: '1.2',
            resource_changes: [
              rc('x.y', type, acts, full, { ...full, name: 'other' }, unknown ? { arn: true } : {}),
            ],
          });
          if (v.ok) translate(v.plan.resourceChanges);
        },
      ),
      { numRuns: 400 },
    );
    // A detached customer managed policy: its document is read from the plan's aws_iam_policy.
    const policyArn = 'arn:aws:iam::111122223333:policy/pod-identity';
    const detach = validatePlan({
      format_version: '1.2',
      resource_changes: [
        rc(
          'aws_iam_role_policy_attachment.a',
          'aws_iam_role_policy_attachment',
          ['delete'],
          { role: 'node', policy_arn: policyArn },
          null,
        ),
        rc(
          'aws_iam_policy.p',
          'aws_iam_policy',
          ['no-op'],
          { arn: policyArn, policy: '{}' },
          { arn: policyArn, policy: '{}' },
        ),
      ],
    });
    if (detach.ok) translate(detach.plan.resourceChanges);
    const unlisted: string[] = [];
    for (const [type, paths] of read) {
      const attrs = READ_ATTRIBUTES.get(type) ?? {};
      for (const path of paths) {
        const [top = '', nested] = path.split('.');
        const t = attrs[top];
        const listed =
          t !== undefined && (nested === undefined || (typeof t === 'object' && nested in t.block));
        if (!listed) unlisted.push(`${type}.${path}`);
      }
    }
    expect(unlisted).toEqual([]);
    expect([...read.keys()].sort()).toEqual([...READ_ATTRIBUTES.keys()].sort());
  });

  it('a resource type named like an Object property (__proto__, constructor) is just another type', () => {
    for (const type of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const v = validatePlan({
        format_version: '1.2',
        resource_changes: [rc('x.y', type, ['create'], null, {})],
      });
      expect(v.ok).toBe(true);
      if (v.ok) expect(translatePlan(v.plan.resourceChanges)).toEqual({ steps: [], unknowns: [], notes: [] });
    }
  });
});
