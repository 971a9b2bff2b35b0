/**
 * An identity-policy evaluator for the deploy tests: may a principal call `action` on `resource`
 * under a policy (the deployer's, or a permissions boundary)? Actions and conditions go through
 * the product's own evaluator (shared/core/workload-identity/iam-policy: every statement given `Principal: "*"`);
 * this file adds what a trust policy does not have: Resource / NotResource, and the policy
 * variable `${aws:PrincipalAccount}`.
 *
 * Resource matching comes in two strengths, so that a test never concludes more than IAM would:
 * `strict` (a `*` never spans a colon between ARN parts, shared/core/workload-identity/iam-policy/glob.ts arnMatch)
 * and `loose` (a `*` spans anything). `allows` matches Allow statements strictly and Deny ones
 * loosely, `denies` the other way round: what the first allows IAM allows, what the second denies
 * IAM denies.
 */
import { evaluateStatements } from '../../shared/core/workload-identity/iam-policy/evaluate.ts';
import { arnMatch, globMatch } from '../../shared/core/workload-identity/iam-policy/glob.ts';
import { parsePolicy } from '../../shared/core/workload-identity/iam-policy/policy.ts';

type Json = Record<string, unknown>;

export interface IdentityRequest {
  /** The caller, e.g. arn:aws:iam::111122223333:role/deployer (its account fills ${aws:PrincipalAccount}). */
  principalArn: string;
  action: string;
  resource: string;
  /** Request context: each key's values; a key the policy names and the request lacks is absent. */
  context?: Record<string, string | string[]>;
}

export type IdentityDecision = 'allowed' | 'denied' | 'unknown';

const list = (v: unknown): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];

function resourceMatches(pattern: string, resource: string, strength: 'strict' | 'loose'): boolean {
  if (pattern === '*') return true;
  return strength === 'strict' ? arnMatch(pattern, resource) : globMatch(pattern, resource);
}

function withVariables(value: unknown, account: string): unknown {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: an IAM policy variable, not a template
  return JSON.parse(JSON.stringify(value).replaceAll('${aws:PrincipalAccount}', account));
}

/** Every condition key the policy names (so that a request lacking one states it absent). */
function conditionKeys(statements: Json[]): string[] {
  return statements.flatMap((s) =>
    Object.values((s.Condition as Record<string, Json> | undefined) ?? {}).flatMap((block) =>
      Object.keys(block),
    ),
  );
}

export function evaluateIdentityPolicy(
  policy: { Statement: unknown },
  request: IdentityRequest,
  strength: 'strict' | 'loose',
): IdentityDecision {
  const account = request.principalArn.split(':')[4] ?? '';
  // An Allow matched weakly and a Deny strongly can only allow less than IAM, and the other way
  // round only deny less: each answer holds in IAM.
  const opposite = strength === 'strict' ? 'loose' : 'strict';
  const statements = (withVariables([policy.Statement].flat(), account) as Json[]).filter((s) => {
    if (s.NotResource !== undefined) throw new Error('NotResource is not evaluated here');
    const matching = s.Effect === 'Deny' ? opposite : strength;
    return list(s.Resource).some((p) => resourceMatches(p, request.resource, matching));
  });
  if (statements.length === 0) return 'denied';
  const asTrust = statements.map(({ Resource: _r, NotResource: _n, ...rest }) => ({
    ...rest,
    Principal: '*',
  }));
  const parsed = parsePolicy({ Version: '2012-10-17', Statement: asTrust });
  if (!parsed.ok) throw new Error(`the policy does not parse: ${parsed.reason}`);
  const context: Record<string, { present: string[] } | 'absent'> = {};
  for (const key of conditionKeys(statements)) context[key] = 'absent';
  for (const [key, value] of Object.entries(request.context ?? {})) {
    for (const k of Object.keys(context)) if (k.toLowerCase() === key.toLowerCase()) delete context[k];
    context[key] = { present: list(value) };
  }
  const decision = evaluateStatements(parsed.statements, {
    principal: { type: 'AWS', id: request.principalArn },
    action: request.action,
    context,
  });
  if (decision.decision === 'allowed') return 'allowed';
  if (decision.decision === 'denied') return 'denied';
  return 'unknown';
}

/** `allowed` under strict resource matching: IAM allows it too. */
export const allows = (policy: { Statement: unknown }, request: IdentityRequest): boolean =>
  evaluateIdentityPolicy(policy, request, 'strict') === 'allowed';

/** `denied` under loose resource matching: IAM denies it too. */
export const denies = (policy: { Statement: unknown }, request: IdentityRequest): boolean =>
  evaluateIdentityPolicy(policy, request, 'loose') === 'denied';
