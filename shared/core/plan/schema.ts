/**
 * The JSON of a Terraform (or OpenTofu) plan, as `terraform show -json PLANFILE` prints it
 * (Terraform's "JSON Output Format", plan representation): `format_version` (major 1; a newer
 * minor adds fields, which are ignored), and `resource_changes[]`, each with `address`, `type`,
 * `name`, `mode`, optional `module_address`, `index`, `deposed`, `action_reason`, and
 * `change{actions, before, after, after_unknown}`. Only what the simulation reads is validated,
 * down to the attributes of the resource types it translates (attributes.ts); every other key is
 * kept out of the typed result (forward compatible, as the format asks).
 *
 * Pure: `validatePlan` never throws and never echoes the input beyond a short preview.
 */

import { configMapOverLimit, overLimitText } from '../aws-auth/index.ts';
import { formatJsonPath, toOneLine } from '../snapshot/snapshot-schema.ts';
import * as z from '../zod-mini.ts';
import { attributesValid, checkAttributes, readAttributes } from './attributes.ts';

/** `no-op`, `create`, `read`, `update`, `delete`, `forget` (Terraform 1.7+, a `removed` block). */
export const PLAN_ACTIONS = ['no-op', 'create', 'read', 'update', 'delete', 'forget'] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

const resourceChangeSchema = z
  .object({
    address: z.string().check(z.minLength(1)),
    module_address: z.optional(z.string()),
    mode: z.string(),
    type: z.string(),
    name: z.string(),
    index: z.optional(z.unknown()),
    deposed: z.optional(z.string()),
    action_reason: z.optional(z.string()),
    change: z.object({
      actions: z.array(z.enum(PLAN_ACTIONS)).check(z.minLength(1)),
      before: z.optional(z.unknown()),
      after: z.optional(z.unknown()),
      after_unknown: z.optional(z.unknown()),
      before_sensitive: z.optional(z.unknown()),
      after_sensitive: z.optional(z.unknown()),
    }),
  })
  .check(checkAttributes);

/** Exported for the test that `isValidPlan` agrees with it. */
export const planSchema = z.object({
  format_version: z.string(),
  terraform_version: z.optional(z.string()),
  errored: z.optional(z.boolean()),
  complete: z.optional(z.boolean()),
  resource_changes: z.array(resourceChangeSchema),
});

/** One entry of `resource_changes`, typed; `position` is its index in the file. */
export interface ResourceChange {
  position: number;
  address: string;
  moduleAddress?: string;
  mode: string;
  type: string;
  name: string;
  deposed?: string;
  actionReason?: string;
  actions: PlanAction[];
  before: unknown;
  after: unknown;
  /** `after_unknown` as printed: `true` for a value known only after apply, nested like `after`. */
  afterUnknown: unknown;
  /** `before_sensitive` / `after_sensitive`: `true` at a value (or a block) the plan marks sensitive. */
  beforeSensitive: unknown;
  afterSensitive: unknown;
}

export interface TerraformPlan {
  formatVersion: string;
  terraformVersion?: string;
  /** `complete: false` (deferred changes, Terraform 1.8+): more changes follow in a later plan. */
  complete: boolean;
  resourceChanges: ResourceChange[];
}

export type PlanValidation =
  | { ok: true; plan: TerraformPlan }
  | {
      ok: false;
      /** What is wrong, one line. */
      error: string;
      /** Where: a JSON path (`$.resource_changes[3].change.actions[0]`). */
      path: string;
    };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What the document is, when it is plainly not a plan: said instead of a schema error. */
function otherFormat(value: Record<string, unknown>): string | undefined {
  if ('schemaVersion' in value && 'clusterName' in value)
    return 'this is a ClusterSnapshot, not a Terraform plan (pass it as --snapshot FILE)';
  if ('eventName' in value || 'detail-type' in value)
    return 'this is a CloudTrail record or EventBridge event, not a Terraform plan (pass it as --event FILE)';
  if ('apiVersion' in value && 'kind' in value)
    return 'this is a Kubernetes object, not a Terraform plan (an aws-auth ConfigMap goes to --aws-auth FILE)';
  if ('version' in value && 'serial' in value && 'resources' in value)
    return 'this is a raw Terraform state file, not the JSON of a plan (run terraform show -json PLANFILE)';
  return undefined;
}

const ACTIONS: ReadonlySet<unknown> = new Set(PLAN_ACTIONS);
const isOptionalString = (v: unknown): boolean => v === undefined || typeof v === 'string';

/**
 * `planSchema` accepts `value`, checked by hand: zod builds a copy of each of 2,000 resource
 * changes to check five strings and the attributes read (a visible share of `whatif --terraform-plan`). The same checks;
 * on `false` (or a throwing getter) zod runs as before and says what is wrong and where.
 */
export function isValidPlan(value: Record<string, unknown>): boolean {
  try {
    const { resource_changes: changes, errored, complete } = value;
    if (typeof value.format_version !== 'string' || !isOptionalString(value.terraform_version)) return false;
    if (
      (errored !== undefined && typeof errored !== 'boolean') ||
      (complete !== undefined && typeof complete !== 'boolean')
    )
      return false;
    if (!Array.isArray(changes)) return false;
    for (const rc of changes) {
      if (!isObject(rc)) return false;
      const { address, change } = rc;
      if (typeof address !== 'string' || address.length < 1) return false;
      if (typeof rc.mode !== 'string' || typeof rc.type !== 'string' || typeof rc.name !== 'string')
        return false;
      if (
        !isOptionalString(rc.module_address) ||
        !isOptionalString(rc.deposed) ||
        !isOptionalString(rc.action_reason)
      )
        return false;
      if (!isObject(change)) return false;
      const { actions } = change;
      if (!Array.isArray(actions) || actions.length < 1 || !actions.every((a) => ACTIONS.has(a)))
        return false;
      const attrs = readAttributes(rc.mode, rc.type);
      if (attrs !== undefined && !attributesValid(attrs, change)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

const CONFIG_MAP_TYPES = new Set([
  'kubernetes_config_map',
  'kubernetes_config_map_v1',
  'kubernetes_config_map_v1_data',
]);

/**
 * A ConfigMap change whose `data` is over the 1 MiB Kubernetes allows (aws-auth/size-limit.ts):
 * refused before anything parses its values, with the resource and the JSON path of the largest.
 */
function configMapTooLarge(
  changes: z.infer<typeof planSchema>['resource_changes'],
): { error: string; path: string } | undefined {
  for (const [i, rc] of changes.entries()) {
    if (rc.mode !== 'managed' || !CONFIG_MAP_TYPES.has(rc.type)) continue;
    for (const side of ['before', 'after'] as const) {
      const values = rc.change[side];
      const data = isObject(values) ? values.data : undefined;
      const over = configMapOverLimit(data);
      if (over === undefined) continue;
      return {
        error: `${toOneLine(rc.address, 200)}: ${overLimitText(over)}`,
        path: formatJsonPath(['resource_changes', i, 'change', side, 'data', over.key]),
      };
    }
  }
  return undefined;
}

/** Validate a parsed JSON value as the JSON of a plan. Never throws. */
export function validatePlan(value: unknown): PlanValidation {
  if (!isObject(value)) {
    return {
      ok: false,
      error: `expected the JSON object of terraform show -json PLANFILE, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
      path: '$',
    };
  }
  const other = otherFormat(value);
  if (other !== undefined) return { ok: false, error: other, path: '$' };
  const version = value.format_version;
  if (typeof version !== 'string') {
    return {
      ok: false,
      error: 'no format_version: not the JSON of terraform show -json PLANFILE',
      path: '$.format_version',
    };
  }
  const major = /^(\d+)\.\d+/.exec(version)?.[1];
  if (major !== '1') {
    return {
      ok: false,
      error: `format_version ${toOneLine(version, 20)} is not supported (this build reads major version 1)`,
      path: '$.format_version',
    };
  }
  if (value.errored === true) {
    return { ok: false, error: 'the plan errored: Terraform could not finish planning', path: '$.errored' };
  }
  if (!('resource_changes' in value)) {
    const state = 'values' in value && !('planned_values' in value);
    return {
      ok: false,
      error: state
        ? 'this is the JSON of a Terraform state (terraform show -json without a plan file), not of a plan: no resource_changes'
        : 'the plan has no resource_changes: Terraform lists every managed resource there, no-op included; was the file cut or filtered?',
      path: '$.resource_changes',
    };
  }
  const valid = isValidPlan(value) ? (value as z.infer<typeof planSchema>) : undefined;
  const result = valid === undefined ? planSchema.safeParse(value, { reportInput: true }) : undefined;
  if (result !== undefined && !result.success) {
    const [issue] = result.error.issues;
    const missing = issue?.code === 'invalid_type' && issue.input === undefined;
    return {
      ok: false,
      error: missing ? `required ${issue.expected} is missing` : (issue?.message ?? 'rejected'),
      path: formatJsonPath(issue?.path ?? []),
    };
  }
  const plan = valid ?? (result?.data as z.infer<typeof planSchema>);
  const tooLarge = configMapTooLarge(plan.resource_changes);
  if (tooLarge !== undefined) return { ok: false, ...tooLarge };
  return {
    ok: true,
    plan: {
      formatVersion: plan.format_version,
      ...(plan.terraform_version === undefined ? {} : { terraformVersion: plan.terraform_version }),
      complete: plan.complete !== false,
      resourceChanges: plan.resource_changes.map((rc, position) => ({
        position,
        address: rc.address,
        ...(rc.module_address === undefined ? {} : { moduleAddress: rc.module_address }),
        mode: rc.mode,
        type: rc.type,
        name: rc.name,
        ...(rc.deposed === undefined ? {} : { deposed: rc.deposed }),
        ...(rc.action_reason === undefined ? {} : { actionReason: rc.action_reason }),
        actions: [...rc.change.actions],
        before: rc.change.before ?? null,
        after: rc.change.after ?? null,
        afterUnknown: rc.change.after_unknown ?? {},
        beforeSensitive: rc.change.before_sensitive ?? false,
        afterSensitive: rc.change.after_sensitive ?? false,
      })),
    },
  };
}
