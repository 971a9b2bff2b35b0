/**
 * The attributes the translation reads (translate.ts, translate-workload-identity.ts), by resource
 * type, with the type the provider's schema gives each: `terraform show -json` prints a string
 * attribute as a JSON string or `null` (unset), a list or set as an array, a map as an object, a
 * nested block as an array of objects, and `after_unknown` with the same nesting and `true` where
 * a value is known only after apply. A value of another type cannot come from Terraform: read as
 * "absent" it would turn a change into no change (`cluster_name: 7` matched no cluster, and the
 * plan read as "nothing auth-relevant"), so it is bad input, named by its JSON path.
 *
 * One table, two checks that must agree (test/core/terraform-plan-validate.property.test.ts): the
 * zod schemas built from it (for the message and the path) and `attributesValid`, a walk by hand
 * (for speed: it runs on every plan, zod only on one already known to be wrong).
 */
import * as z from '../zod-mini.ts';

type Leaf = 'string' | 'bool';
export type AttributeType =
  | Leaf
  | 'strings'
  | 'string-map'
  | { block: Readonly<Record<string, Leaf | 'strings'>> };

const S = 'string';
const METADATA = { block: { name: S, namespace: S } } as const;
/** `field_manager` and `force` are `_v1_data`'s, read of every ConfigMap type (null elsewhere). */
const CONFIG_MAP = { metadata: METADATA, data: 'string-map', field_manager: S, force: 'bool' } as const;

/** Managed resources only: the translation skips data sources. */
export const READ_ATTRIBUTES: ReadonlyMap<string, Readonly<Record<string, AttributeType>>> = new Map<
  string,
  Readonly<Record<string, AttributeType>>
>([
  ['aws_eks_cluster', { name: S, access_config: { block: { authentication_mode: S } } }],
  ['aws_eks_node_group', { cluster_name: S, node_group_name: S, node_role_arn: S, ami_type: S }],
  ['aws_eks_fargate_profile', { cluster_name: S, fargate_profile_name: S, pod_execution_role_arn: S }],
  [
    'aws_eks_access_entry',
    { cluster_name: S, principal_arn: S, type: S, user_name: S, kubernetes_groups: 'strings' },
  ],
  [
    'aws_eks_access_policy_association',
    {
      cluster_name: S,
      principal_arn: S,
      policy_arn: S,
      access_scope: { block: { type: S, namespaces: 'strings' } },
    },
  ],
  [
    'aws_eks_pod_identity_association',
    {
      cluster_name: S,
      id: S,
      association_id: S,
      association_arn: S,
      namespace: S,
      service_account: S,
      role_arn: S,
      target_role_arn: S,
      disable_session_tags: 'bool',
    },
  ],
  ['aws_eks_addon', { cluster_name: S, addon_name: S, addon_version: S }],
  ['aws_iam_role', { arn: S, name: S, path: S, assume_role_policy: S }],
  ['aws_iam_policy', { arn: S, policy: S }],
  ['aws_iam_role_policy_attachment', { role: S, policy_arn: S }],
  ['aws_iam_role_policy', { role: S, name: S, policy: S }],
  ['aws_iam_openid_connect_provider', { arn: S, url: S }],
  ['kubernetes_config_map', CONFIG_MAP],
  ['kubernetes_config_map_v1', CONFIG_MAP],
  ['kubernetes_config_map_v1_data', CONFIG_MAP],
]);

/** The attributes read of a resource change, or undefined when the translation reads none. */
export function readAttributes(
  mode: unknown,
  type: unknown,
): Readonly<Record<string, AttributeType>> | undefined {
  return mode === 'managed' && typeof type === 'string' ? READ_ATTRIBUTES.get(type) : undefined;
}

// ---------------------------------------------------------------------------------------------
// The zod schemas

const MESSAGES = {
  string: 'expected a string',
  bool: 'expected true or false',
  strings: 'expected a list of strings',
  'string-map': 'expected a map of strings',
  block: 'expected a list of blocks (objects)',
  object: 'expected an object',
  values: 'expected an object or null',
  mark: 'expected true or false (after_unknown marks a value known only after apply)',
  marks: 'expected true, false, or their nesting as in after (after_unknown)',
} as const;

function valueSchema(t: AttributeType): z.ZodMiniType {
  if (t === 'string') return z.nullable(z.string({ error: MESSAGES.string }));
  if (t === 'bool') return z.nullable(z.boolean({ error: MESSAGES.bool }));
  if (t === 'strings')
    return z.nullable(z.array(z.string({ error: MESSAGES.string }), { error: MESSAGES.strings }));
  if (t === 'string-map')
    return z.nullable(
      z.record(z.string(), z.string({ error: MESSAGES.string }), { error: MESSAGES['string-map'] }),
    );
  const fields = Object.fromEntries(Object.entries(t.block).map(([k, v]) => [k, z.optional(valueSchema(v))]));
  return z.nullable(z.array(z.looseObject(fields, { error: MESSAGES.object }), { error: MESSAGES.block }));
}

const mark = z.boolean({ error: MESSAGES.mark });

function markSchema(t: AttributeType): z.ZodMiniType {
  if (t === 'string' || t === 'bool') return mark;
  if (t === 'strings') return z.union([mark, z.array(mark)], { error: MESSAGES.marks });
  if (t === 'string-map') return z.union([mark, z.record(z.string(), mark)], { error: MESSAGES.marks });
  const fields = Object.fromEntries(Object.entries(t.block).map(([k, v]) => [k, z.optional(markSchema(v))]));
  return z.union([mark, z.array(z.union([mark, z.looseObject(fields)], { error: MESSAGES.marks }))], {
    error: MESSAGES.marks,
  });
}

interface SideSchemas {
  values: z.ZodMiniType;
  marks: z.ZodMiniType;
}

const SCHEMAS = new Map<string, SideSchemas>(
  [...READ_ATTRIBUTES].map(([type, attrs]) => {
    const entries = Object.entries(attrs);
    const values = z.looseObject(
      Object.fromEntries(entries.map(([k, t]) => [k, z.optional(valueSchema(t))])),
      { error: MESSAGES.values },
    );
    const marks = z.looseObject(Object.fromEntries(entries.map(([k, t]) => [k, z.optional(markSchema(t))])), {
      error: MESSAGES.object,
    });
    return [type, { values: z.optional(z.nullable(values)), marks: z.optional(marks) }] as const;
  }),
);

/**
 * The zod check of a resource change's attributes: `before` and `after` typed as the table says,
 * `after_unknown` nested the same way. Each issue's path runs from the resource change.
 */
export function checkAttributes(
  ctx: z.core.ParsePayload<{ mode: string; type: string; change: object }>,
): void {
  // Defensive: zod may run a check on a value whose shape already failed.
  const rc = ctx.value as unknown as Record<string, unknown>;
  const schemas = rc.mode === 'managed' && typeof rc.type === 'string' ? SCHEMAS.get(rc.type) : undefined;
  const change = rc.change;
  if (schemas === undefined || !isObject(change)) return;
  for (const [side, schema] of [
    ['before', schemas.values],
    ['after', schemas.values],
    ['after_unknown', schemas.marks],
  ] as const) {
    const result = schema.safeParse(change[side], { reportInput: true });
    if (result.success) continue;
    for (const issue of result.error.issues)
      ctx.issues.push({ ...issue, path: ['change', side, ...issue.path] } as z.core.$ZodRawIssue);
  }
}

// ---------------------------------------------------------------------------------------------
// The same checks by hand

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function valueValid(t: AttributeType, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (t === 'string') return typeof v === 'string';
  if (t === 'bool') return typeof v === 'boolean';
  if (t === 'strings') return Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (t === 'string-map') return isObject(v) && Object.values(v).every((x) => typeof x === 'string');
  return (
    Array.isArray(v) &&
    v.every((o) => isObject(o) && Object.entries(t.block).every(([k, ft]) => valueValid(ft, o[k])))
  );
}

function markValid(t: AttributeType, v: unknown): boolean {
  if (v === undefined || typeof v === 'boolean') return true;
  if (t === 'string' || t === 'bool') return false;
  if (t === 'strings') return Array.isArray(v) && v.every((x) => typeof x === 'boolean');
  if (t === 'string-map') return isObject(v) && Object.values(v).every((x) => typeof x === 'boolean');
  return (
    Array.isArray(v) &&
    v.every(
      (o) =>
        typeof o === 'boolean' ||
        (isObject(o) && Object.entries(t.block).every(([k, ft]) => markValid(ft, o[k]))),
    )
  );
}

function sideValid(
  attrs: Readonly<Record<string, AttributeType>>,
  side: unknown,
  valid: (t: AttributeType, v: unknown) => boolean,
): boolean {
  if (!isObject(side)) return false;
  for (const key in attrs) {
    const t = attrs[key];
    if (t !== undefined && !valid(t, side[key])) return false;
  }
  return true;
}

/** What `checkAttributes` accepts, for a resource change whose structure is already valid. */
export function attributesValid(
  attrs: Readonly<Record<string, AttributeType>>,
  change: Record<string, unknown>,
): boolean {
  const { before, after, after_unknown: marks } = change;
  return (
    (before === undefined || before === null || sideValid(attrs, before, valueValid)) &&
    (after === undefined || after === null || sideValid(attrs, after, valueValid)) &&
    (marks === undefined || sideValid(attrs, marks, markValid))
  );
}
