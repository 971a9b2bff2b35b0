/**
 * An IAM policy document (a role's trust policy) parsed into plain statements. Pure, and total:
 * any input — bad JSON, wrong shapes, huge or hostile strings — gives a result, never a throw.
 * A document IAM itself would refuse (no Effect, Action and NotAction together, a condition value
 * that is an object) is `invalid` as a whole: nothing is concluded from half a policy.
 */

export type PrincipalSpec = '*' | ReadonlyMap<string, readonly string[]>;

export interface PolicyCondition {
  /** The operator as written, e.g. `ForAnyValue:StringLike` (for messages). */
  operator: string;
  /** The base operator, lower-cased: `stringlike`, `arnequals`, `null`, … */
  base: string;
  set?: 'any' | 'all';
  ifExists: boolean;
  /** The condition key as written (keys compare case-insensitively). */
  key: string;
  values: readonly string[];
}

export interface PolicyStatement {
  /** `Sid` when it has one, else `Statement N` (1-based). Attacker-written text. */
  label: string;
  /** Its position (0-based) in the document's Statement list. */
  index: number;
  effect: 'Allow' | 'Deny';
  principal?: PrincipalSpec;
  notPrincipal?: PrincipalSpec;
  action?: readonly string[];
  notAction?: readonly string[];
  conditions: readonly PolicyCondition[];
}

export type ParsedPolicy = { ok: true; statements: PolicyStatement[] } | { ok: false; reason: string };

/** Trust policies are at most 4,096 characters (IAM's raised quota); leave room for encoding. */
export const MAX_POLICY_CHARS = 65_536;

class Invalid extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function strings(v: unknown, what: string): string[] {
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0) throw new Invalid(`${what} is an empty list`);
  return list.map((x) => {
    if (typeof x !== 'string')
      throw new Invalid(`${what} holds a ${x === null ? 'null' : typeof x}, not a string`);
    return x;
  });
}

function conditionValues(v: unknown, what: string): string[] {
  const list = Array.isArray(v) ? v : [v];
  return list.map((x) => {
    if (typeof x === 'string') return x;
    if (typeof x === 'number' || typeof x === 'boolean') return String(x);
    throw new Invalid(`${what} holds a ${x === null ? 'null' : typeof x} value`);
  });
}

function principalSpec(v: unknown, what: string): PrincipalSpec {
  if (v === '*') return '*';
  if (!isObject(v)) throw new Invalid(`${what} must be "*" or an object`);
  const map = new Map<string, string[]>();
  for (const [type, ids] of Object.entries(v)) map.set(type, strings(ids, `${what}.${type}`));
  if (map.size === 0) throw new Invalid(`${what} is empty`);
  return map;
}

const QUALIFIERS: Record<string, 'any' | 'all'> = { foranyvalue: 'any', forallvalues: 'all' };

function conditions(v: unknown, label: string): PolicyCondition[] {
  if (v === undefined) return [];
  if (!isObject(v)) throw new Invalid(`${label}: Condition must be an object`);
  const out: PolicyCondition[] = [];
  for (const [operator, block] of Object.entries(v)) {
    if (!isObject(block)) throw new Invalid(`${label}: Condition ${operator} must be an object`);
    const colon = operator.indexOf(':');
    const qualifier = colon < 0 ? undefined : QUALIFIERS[operator.slice(0, colon).toLowerCase()];
    if (colon >= 0 && qualifier === undefined)
      throw new Invalid(`${label}: unknown condition qualifier in ${operator}`);
    let base = (colon < 0 ? operator : operator.slice(colon + 1)).toLowerCase();
    const ifExists = base.endsWith('ifexists') && base !== 'ifexists';
    if (ifExists) base = base.slice(0, -'ifexists'.length);
    for (const [key, values] of Object.entries(block)) {
      out.push({
        operator,
        base,
        ...(qualifier ? { set: qualifier } : {}),
        ifExists,
        key,
        values: conditionValues(values, `${label}: ${operator} ${key}`),
      });
    }
  }
  return out;
}

function statement(v: unknown, index: number): PolicyStatement {
  const fallback = `Statement ${index + 1}`;
  if (!isObject(v)) throw new Invalid(`${fallback} is not an object`);
  const label = typeof v.Sid === 'string' && v.Sid !== '' ? v.Sid : fallback;
  if (v.Effect !== 'Allow' && v.Effect !== 'Deny')
    throw new Invalid(`${label}: Effect must be Allow or Deny`);
  if ((v.Principal === undefined) === (v.NotPrincipal === undefined))
    throw new Invalid(`${label}: a trust statement needs exactly one of Principal and NotPrincipal`);
  if ((v.Action === undefined) === (v.NotAction === undefined))
    throw new Invalid(`${label}: needs exactly one of Action and NotAction`);
  return {
    label,
    index,
    effect: v.Effect,
    ...(v.Principal === undefined ? {} : { principal: principalSpec(v.Principal, `${label}: Principal`) }),
    ...(v.NotPrincipal === undefined
      ? {}
      : { notPrincipal: principalSpec(v.NotPrincipal, `${label}: NotPrincipal`) }),
    ...(v.Action === undefined ? {} : { action: strings(v.Action, `${label}: Action`) }),
    ...(v.NotAction === undefined ? {} : { notAction: strings(v.NotAction, `${label}: NotAction`) }),
    conditions: conditions(v.Condition, label),
  };
}

/** Parses a policy document given as JSON text (or as an already parsed value). */
export function parsePolicy(input: unknown): ParsedPolicy {
  let doc: unknown = input;
  if (typeof input === 'string') {
    if (input.length > MAX_POLICY_CHARS)
      return { ok: false, reason: `the policy is ${input.length} characters, over ${MAX_POLICY_CHARS}` };
    try {
      doc = JSON.parse(input);
    } catch {
      return { ok: false, reason: 'the policy is not valid JSON' };
    }
  }
  try {
    if (!isObject(doc)) throw new Invalid('the policy is not a JSON object');
    const raw = doc.Statement;
    if (raw === undefined) throw new Invalid('the policy has no Statement');
    const list = Array.isArray(raw) ? raw : [raw];
    return { ok: true, statements: list.map(statement) };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, reason: error.message };
    // A stack overflow on absurd nesting, or anything else unforeseen: still a result.
    return { ok: false, reason: 'the policy could not be read' };
  }
}
