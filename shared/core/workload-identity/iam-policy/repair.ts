/**
 * Trust conditions a caller can never meet, and the statement to use instead. For a request the
 * policy certainly denies (no explicit Deny), the first Allow statement that names the request's
 * principal and action and fails only on conditions that are certainly false for this request is
 * rewritten so that they hold:
 *
 * - a condition on a key the request lacks (e.g. `sts:ExternalId` where the caller sends none) is
 *   dropped: no value written there can ever match;
 * - a positive condition whose values miss the value the request carries (e.g. an old external ID)
 *   gets that value added, the values it had are kept (other callers may rely on them);
 * - a negated condition that excludes the value the request carries loses that value.
 *
 * A later request of the same caller (same principal and context, another action: `sts:TagSession`
 * after `sts:AssumeRole`) that a rewritten statement would allow but for its Action gets the
 * action added there, so one statement reads as the one to use instead. Everything else in the
 * statement (Sid, Principal, other conditions) stays as written. The result is checked by
 * evaluating it again: a rewrite that would not make the statement apply is not proposed. Pure
 * and total; every string here is attacker-written data, never code.
 */
import {
  actionMatches,
  conditionHolds,
  evaluateStatements,
  lookupContext,
  MATCHERS,
  NEGATED,
  statementPrincipal,
  type TrustRequest,
} from './evaluate.ts';
import { type PolicyCondition, type PolicyStatement, parsePolicy } from './policy.ts';

export interface ConditionChange {
  /** The statement's label (Sid or `Statement N`). */
  statement: string;
  /** The operator and key as written. */
  operator: string;
  key: string;
  /** `action-added`: the statement's Action gains `action` (operator and key are empty). */
  change: 'dropped' | 'value-added' | 'value-removed' | 'action-added';
  /** The values the request carries for the key; empty when it lacks the key. */
  sent: readonly string[];
  /** The request whose failure it repairs (its action). */
  action: string;
}

export interface RepairResult {
  /** The whole document after the repairs (the document `update-assume-role-policy` takes). */
  document: { Version: string; Statement: unknown[] };
  /** The statements rewritten, in document order, as they read after the repair. */
  rewritten: Array<{ index: number; label: string; statement: unknown }>;
  changes: ConditionChange[];
  /** The requests the repaired document does not allow (denied, or not decidable). */
  remaining: TrustRequest[];
}

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The edit that makes one certainly-false condition hold, or undefined when there is none. */
function conditionEdit(
  c: PolicyCondition,
  request: TrustRequest,
): { change: ConditionChange['change']; values?: string[]; sent: string[] } | undefined {
  const value = lookupContext(request, c.key);
  if (value === undefined) return undefined;
  const sent = value === 'absent' ? [] : [...value.present];
  if (sent.length === 0 || c.base === 'null') return { change: 'dropped', sent };
  const positive = NEGATED[c.base] ?? c.base;
  const matcher = MATCHERS[positive];
  if (matcher === undefined) return undefined;
  if (positive !== c.base) {
    const kept = c.values.filter((p) => !sent.some((v) => matcher(p, v)));
    return kept.length === 0 ? { change: 'dropped', sent } : { change: 'value-removed', values: kept, sent };
  }
  const missing = sent.filter((v) => !c.values.some((p) => matcher(p, v)));
  const add = c.set === 'any' ? missing.slice(0, 1) : missing;
  return { change: 'value-added', values: [...c.values, ...add], sent };
}

/** The statement with its failing conditions edited, or undefined when it cannot be made to apply. */
function repairStatement(
  s: PolicyStatement,
  raw: unknown,
  request: TrustRequest,
): { statement: Raw; changes: ConditionChange[] } | undefined {
  if (s.effect !== 'Allow' || !actionMatches(s, request.action)) return undefined;
  if (statementPrincipal(s, request).value !== true || !isObject(raw)) return undefined;
  const outcomes = s.conditions.map((c) => ({ c, o: conditionHolds(c, request, s.label) }));
  if (outcomes.some((x) => x.o.value === 'unknown')) return undefined;
  const failing = outcomes.filter((x) => x.o.value === false).map((x) => x.c);
  if (failing.length === 0) return undefined;
  const copy = structuredClone(raw);
  const condition = copy.Condition;
  if (!isObject(condition)) return undefined;
  const changes: ConditionChange[] = [];
  for (const c of failing) {
    const edit = conditionEdit(c, request);
    const block = condition[c.operator];
    if (edit === undefined || !isObject(block)) return undefined;
    if (edit.values === undefined) delete block[c.key];
    else block[c.key] = edit.values.length === 1 ? edit.values[0] : edit.values;
    if (Object.keys(block).length === 0) delete condition[c.operator];
    changes.push({
      statement: s.label,
      operator: c.operator,
      key: c.key,
      change: edit.change,
      sent: edit.sent,
      action: request.action,
    });
  }
  if (Object.keys(condition).length === 0) delete copy.Condition;
  const check = parsePolicy({ Statement: [copy] });
  if (!check.ok || evaluateStatements(check.statements, request).decision !== 'allowed') return undefined;
  return { statement: copy, changes };
}

/** The statement with the request's action added, when only its Action keeps it from applying. */
function addAction(s: PolicyStatement, raw: unknown, request: TrustRequest): Raw | undefined {
  if (s.effect !== 'Allow' || s.action === undefined || actionMatches(s, request.action)) return undefined;
  if (statementPrincipal(s, request).value !== true || !isObject(raw)) return undefined;
  if (!s.conditions.every((c) => conditionHolds(c, request, s.label).value === true)) return undefined;
  return { ...raw, Action: [...s.action, request.action] };
}

/** Repairs the policy for each request in turn; undefined when the policy cannot be read. */
export function repairConditions(
  policy: string,
  requests: readonly TrustRequest[],
): RepairResult | undefined {
  if (!parsePolicy(policy).ok) return undefined;
  const doc = JSON.parse(policy) as Raw;
  const list: unknown[] = Array.isArray(doc.Statement) ? [...doc.Statement] : [doc.Statement];
  const changes: ConditionChange[] = [];
  const touched = new Set<number>();
  const parse = () => {
    const parsed = parsePolicy({ Statement: list });
    return parsed.ok ? parsed.statements : [];
  };
  // In passes until one changes nothing: a repair for one request can drop a condition that left
  // an earlier request undecided (a value only known at run time), which the next pass repairs,
  // so that repairing the result again changes nothing. At most one pass per request, plus one.
  for (let pass = 0; pass <= requests.length; pass++) {
    const before = changes.length;
    repairPass(requests, parse, list, touched, changes);
    if (changes.length === before) break;
  }
  const final = parse();
  return {
    document: { Version: typeof doc.Version === 'string' ? doc.Version : '2012-10-17', Statement: list },
    rewritten: [...touched]
      .sort((x, y) => x - y)
      .map((index) => ({
        index,
        label: final[index]?.label ?? `Statement ${index + 1}`,
        statement: list[index],
      })),
    changes,
    remaining: requests.filter((r) => evaluateStatements(final, r).decision !== 'allowed'),
  };
}

/** One pass of `repairConditions` over the requests, editing `list` in place. */
function repairPass(
  requests: readonly TrustRequest[],
  parse: () => PolicyStatement[],
  list: unknown[],
  touched: Set<number>,
  changes: ConditionChange[],
): void {
  for (const request of requests) {
    const statements = parse();
    const d = evaluateStatements(statements, request);
    if (d.decision !== 'denied' || d.explicit) continue;
    const widened = statements
      .filter((s) => touched.has(s.index))
      .map((s) => ({ s, raw: addAction(s, list[s.index], request) }))
      .find((x) => x.raw !== undefined);
    if (widened?.raw !== undefined) {
      list[widened.s.index] = widened.raw;
      changes.push({
        statement: widened.s.label,
        operator: '',
        key: '',
        change: 'action-added',
        sent: [],
        action: request.action,
      });
      continue;
    }
    for (const s of statements) {
      const repaired = repairStatement(s, list[s.index], request);
      if (repaired === undefined) continue;
      list[s.index] = repaired.statement;
      touched.add(s.index);
      changes.push(...repaired.changes);
      break;
    }
  }
}
