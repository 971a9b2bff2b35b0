/**
 * Trust-policy evaluation, three-valued: may `principal` call `action` on the role? `allowed`
 * and `denied` are certain; `unknown` names every condition (or principal form) that the snapshot
 * cannot decide, e.g. `aws:PrincipalTag/team` or a policy variable. Deny wins over Allow; no
 * matching Allow is an implicit deny. Pure and total: it never throws.
 *
 * Semantics followed (IAM User Guide, "policy evaluation logic" and "condition operators"):
 * condition keys compare case-insensitively, values case-sensitively (except `…IgnoreCase`, and
 * `Bool`); several keys and operators are ANDed, several values of one key ORed; a key missing from
 * the request makes positive operators false, negated ones (`StringNotEquals`, `ArnNotLike`, …)
 * true, `…IfExists` true; `ForAllValues` over a missing key is true, `ForAnyValue` false.
 */
import { principalKey } from '../../access/principal.ts';
import { arnMatch, globMatch } from './glob.ts';
import { type PolicyCondition, type PolicyStatement, type PrincipalSpec, parsePolicy } from './policy.ts';

/**
 * What the snapshot knows of one request-context key: its values, that the request lacks it, or
 * (`unknown`) that the request carries a value the snapshot cannot tell (e.g. the pod's name).
 */
export type ContextValue = { present: readonly string[] } | 'absent' | 'unknown';

export interface TrustRequest {
  /** `Service` (e.g. `pods.eks.amazonaws.com`), `Federated` (an OIDC provider ARN) or `AWS` (a role ARN). */
  principal: { type: 'Service' | 'Federated' | 'AWS'; id: string };
  action: string;
  /** The keys the snapshot can tell, any case. Every key not listed is unknown … */
  context: Readonly<Record<string, ContextValue>>;
  /**
   * … except keys starting with one of these prefixes (any case), which the request is known to
   * lack: e.g. `aws:RequestTag/` when the caller sends no session tags at all.
   */
  absentPrefixes?: readonly string[];
}

export interface Unevaluated {
  statement: string;
  /** The operator (`StringEquals`), or `Principal`. */
  operator: string;
  key: string;
  why: string;
}

export type TrustDecision =
  | { decision: 'allowed'; statements: string[] }
  | { decision: 'denied'; explicit: boolean; statements: string[] }
  | { decision: 'unknown'; unevaluated: Unevaluated[] }
  | { decision: 'invalid'; reason: string };

export type Tri = true | false | 'unknown';

export interface Outcome {
  value: Tri;
  unevaluated: Unevaluated[];
}

const and = (parts: readonly Outcome[]): Outcome => {
  if (parts.some((p) => p.value === false)) return { value: false, unevaluated: [] };
  const open = parts.filter((p) => p.value === 'unknown');
  return open.length === 0
    ? { value: true, unevaluated: [] }
    : { value: 'unknown', unevaluated: open.flatMap((p) => p.unevaluated) };
};

const certain = (value: boolean): Outcome => ({ value, unevaluated: [] });

// ---------------------------------------------------------------------------------------------
// Principal

const ACCOUNT_ID = /^\d{12}$/;

function principalIdMatches(type: string, id: string, request: TrustRequest['principal']): Tri {
  if (type === 'AWS' && id === '*') return request.type === 'AWS' ? true : 'unknown';
  if (type !== request.type) return false;
  if (type === 'Service') return id.toLowerCase() === request.id.toLowerCase();
  if (type === 'Federated') return id.toLowerCase() === request.id.toLowerCase();
  // AWS: a role ARN, or the account (`123456789012`, `arn:aws:iam::123456789012:root`).
  const account = request.id.split(':')[4];
  if (ACCOUNT_ID.test(id)) return id === account;
  const root = /^arn:[^:]+:iam::(\d{12}):root$/.exec(id);
  if (root) return root[1] === account;
  return principalKey(id) === principalKey(request.id);
}

function principalMatches(spec: PrincipalSpec, request: TrustRequest['principal'], label: string): Outcome {
  if (spec === '*') return certain(true);
  let unknown = false;
  for (const [type, ids] of spec) {
    for (const id of ids) {
      const m = principalIdMatches(type, id, request);
      if (m === true) return certain(true);
      if (m === 'unknown') unknown = true;
    }
  }
  return unknown
    ? {
        value: 'unknown',
        unevaluated: [
          {
            statement: label,
            operator: 'Principal',
            key: 'AWS: *',
            why: `whether {"AWS": "*"} covers the ${request.type} principal ${request.id} is not evaluated`,
          },
        ],
      }
    : certain(false);
}

const not = (o: Outcome): Outcome => (o.value === 'unknown' ? o : certain(!o.value));

// ---------------------------------------------------------------------------------------------
// Conditions

/** The negated operators and the positive operator each negates (bases, lower-case). */
export const NEGATED: Readonly<Record<string, string>> = {
  stringnotequals: 'stringequals',
  stringnotequalsignorecase: 'stringequalsignorecase',
  stringnotlike: 'stringlike',
  arnnotequals: 'arnequals',
  arnnotlike: 'arnlike',
};

/** How a positive operator compares one policy value with one request value. */
export const MATCHERS: Readonly<Record<string, (policyValue: string, value: string) => boolean>> = {
  stringequals: (p, v) => p === v,
  stringequalsignorecase: (p, v) => p.toLowerCase() === v.toLowerCase(),
  stringlike: (p, v) => globMatch(p, v),
  arnequals: (p, v) => arnMatch(p, v),
  arnlike: (p, v) => arnMatch(p, v),
  bool: (p, v) => p.toLowerCase() === v.toLowerCase(),
};

/** The key's value in the request; undefined when the snapshot cannot tell it. */
export function lookupContext(
  request: Pick<TrustRequest, 'context' | 'absentPrefixes'>,
  key: string,
): Exclude<ContextValue, 'unknown'> | undefined {
  const lower = key.toLowerCase();
  for (const [k, v] of Object.entries(request.context))
    if (k.toLowerCase() === lower) return v === 'unknown' ? undefined : v;
  return request.absentPrefixes?.some((p) => lower.startsWith(p.toLowerCase())) ? 'absent' : undefined;
}

/** Whether one condition holds for the request: true, false, or unknown with the reason. */
export function conditionHolds(c: PolicyCondition, request: TrustRequest, label: string): Outcome {
  const open = (why: string): Outcome => ({
    value: 'unknown',
    unevaluated: [{ statement: label, operator: c.operator, key: c.key, why }],
  });
  const value = lookupContext(request, c.key);
  if (value === undefined) return open('the snapshot does not tell this key’s value in the request');
  if (c.base === 'null') {
    if (c.set !== undefined || c.ifExists) return open('a qualified Null condition is not evaluated');
    const isAbsent = value === 'absent' || value.present.length === 0;
    return certain(c.values.some((p) => p.toLowerCase() === String(isAbsent)));
  }
  const positive = NEGATED[c.base] ?? c.base;
  const matcher = MATCHERS[positive];
  if (matcher === undefined) return open(`the operator ${c.operator} is not evaluated`);
  if (c.values.some((p) => p.includes('${'))) return open('a policy variable is not evaluated');
  const negated = positive !== c.base;
  const satisfies = (v: string) => {
    const any = c.values.some((p) => matcher(p, v));
    return negated ? !any : any;
  };
  const values = value === 'absent' ? [] : value.present;
  if (c.set === 'all') return certain(values.every(satisfies));
  if (c.set === 'any') return certain(values.length === 0 ? c.ifExists : values.some(satisfies));
  if (values.length === 0) return certain(c.ifExists || negated);
  if (values.length > 1) return open('a multivalued key without ForAnyValue/ForAllValues is not evaluated');
  return certain(satisfies(values[0] ?? ''));
}

// ---------------------------------------------------------------------------------------------
// Statements

export function actionMatches(s: PolicyStatement, action: string): boolean {
  if (s.action) return s.action.some((p) => globMatch(p, action, true));
  return !(s.notAction ?? []).some((p) => globMatch(p, action, true));
}

/** Whether the statement names the request's principal (its Principal, or not its NotPrincipal). */
export function statementPrincipal(s: PolicyStatement, request: TrustRequest): Outcome {
  return s.principal
    ? principalMatches(s.principal, request.principal, s.label)
    : not(principalMatches(s.notPrincipal ?? '*', request.principal, s.label));
}

function statementApplies(s: PolicyStatement, request: TrustRequest): Outcome {
  if (!actionMatches(s, request.action)) return certain(false);
  const principal = statementPrincipal(s, request);
  return and([principal, ...s.conditions.map((c) => conditionHolds(c, request, s.label))]);
}

/** Evaluates statements already parsed (see `evaluateTrustPolicy` for text). */
export function evaluateStatements(
  statements: readonly PolicyStatement[],
  request: TrustRequest,
): TrustDecision {
  const results = statements.map((s) => ({ s, o: statementApplies(s, request) }));
  const labels = (effect: string, value: Tri) =>
    results.filter((r) => r.s.effect === effect && r.o.value === value).map((r) => r.s.label);
  const denyYes = labels('Deny', true);
  if (denyYes.length > 0) return { decision: 'denied', explicit: true, statements: denyYes };
  const allowYes = labels('Allow', true);
  const denyMaybe = results.filter((r) => r.s.effect === 'Deny' && r.o.value === 'unknown');
  const allowMaybe = results.filter((r) => r.s.effect === 'Allow' && r.o.value === 'unknown');
  if (allowYes.length > 0 && denyMaybe.length === 0) return { decision: 'allowed', statements: allowYes };
  if (allowYes.length === 0 && allowMaybe.length === 0)
    return { decision: 'denied', explicit: false, statements: [] };
  const open = allowYes.length > 0 ? denyMaybe : [...allowMaybe, ...denyMaybe];
  return { decision: 'unknown', unevaluated: open.flatMap((r) => r.o.unevaluated) };
}

/** Evaluates a trust policy given as JSON text: `invalid` when it cannot be read. Never throws. */
export function evaluateTrustPolicy(policy: unknown, request: TrustRequest): TrustDecision {
  const parsed = parsePolicy(policy);
  if (!parsed.ok) return { decision: 'invalid', reason: parsed.reason };
  return evaluateStatements(parsed.statements, request);
}

/** One line for a finding: what could not be evaluated. */
export function describeUnevaluated(u: readonly Unevaluated[]): string {
  const seen = [...new Set(u.map((x) => `${x.operator} ${x.key} (${x.statement}: ${x.why})`))];
  return seen.slice(0, 3).join('; ') + (seen.length > 3 ? `; and ${seen.length - 3} more` : '');
}
