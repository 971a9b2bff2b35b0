/**
 * The fix for a Pod Identity trust that a hop certainly fails because a statement names the caller
 * but requires a condition EKS Auth never meets: that statement rewritten (the statement to use
 * instead, from iam-policy/repair.ts), plus the documented statement for whatever it does not
 * cover. The CLI writes the whole document (`update-assume-role-policy` replaces it); Terraform
 * gives the statements as an `aws_iam_policy_document`; the JSON, the statements. Every value
 * reaches the code through the quoting layers (shell, HCL, JSON): the statements are
 * attacker-written.
 */

import { type FixPlan, str, terraformName } from '../fixes/remediation.ts';
import type { IamRole } from '../model.ts';
import type { HclItem } from '../quote/hcl.ts';
import { type PolicyStatement, type PrincipalSpec, parsePolicy } from './iam-policy/policy.ts';
import type { ConditionChange, RepairResult } from './iam-policy/repair.ts';
import { statementJson, type TrustStatementSpec, trustHcl, updateTrustCommand } from './identity.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function principalsHcl(block: 'principals' | 'not_principals', spec: PrincipalSpec): HclItem[] {
  const entries: Array<[string, readonly string[]]> = spec === '*' ? [['*', ['*']]] : [...spec];
  return entries.map(([type, ids]) => ({
    block,
    labels: [],
    body: [
      { name: 'type', value: str(type) },
      { name: 'identifiers', value: { list: ids } },
    ],
  }));
}

/** One `statement` block of `aws_iam_policy_document` for a statement as written in JSON. */
export function statementHcl(raw: unknown): HclItem | undefined {
  const parsed = parsePolicy({ Statement: [raw] });
  const s: PolicyStatement | undefined = parsed.ok ? parsed.statements[0] : undefined;
  if (s === undefined || !isObject(raw)) return undefined;
  const sid = typeof raw.Sid === 'string' && raw.Sid !== '' ? raw.Sid : undefined;
  return {
    block: 'statement',
    labels: [],
    body: [
      ...(sid === undefined ? [] : [{ name: 'sid', value: str(sid) }]),
      { name: 'effect', value: str(s.effect) },
      s.action
        ? { name: 'actions', value: { list: s.action } }
        : { name: 'not_actions', value: { list: s.notAction ?? [] } },
      ...(s.principal
        ? principalsHcl('principals', s.principal)
        : principalsHcl('not_principals', s.notPrincipal ?? '*')),
      ...s.conditions.map(
        (c): HclItem => ({
          block: 'condition',
          labels: [],
          body: [
            { name: 'test', value: str(c.operator) },
            { name: 'variable', value: str(c.key) },
            { name: 'values', value: { list: c.values } },
          ],
        }),
      ),
    ],
  };
}

/** One sentence per change, for the notes (prose: renderers escape it). */
export function describeChange(c: ConditionChange, caller: string, call: string): string {
  const sent = c.sent.join(', ');
  switch (c.change) {
    case 'dropped':
      return c.sent.length === 0
        ? `${c.statement}: the condition ${c.operator} ${c.key} is removed: ${caller} sends no ${c.key} when it ${call}, so no value there can match.`
        : `${c.statement}: the condition ${c.operator} ${c.key} is removed: ${caller} sends ${c.key} = ${sent} when it ${call}.`;
    case 'value-added':
      return `${c.statement}: ${c.operator} ${c.key} also admits ${sent}, the value ${caller} sends when it ${call} (the values it had are kept).`;
    case 'value-removed':
      return `${c.statement}: ${c.operator} ${c.key} no longer excludes ${sent}, the value ${caller} sends when it ${call}.`;
    case 'action-added':
      return `${c.statement}: ${c.action} is added to its actions (the same request carries it).`;
  }
}

/**
 * The fix: the rewritten statements to use instead of the current ones at their positions, and
 * `specs` (the documented statement for what the rewrite leaves denied) appended.
 */
export function conditionFix(
  role: IamRole,
  repair: RepairResult,
  specs: readonly TrustStatementSpec[],
  summary: string,
  notes: readonly string[],
): FixPlan {
  const name = `${terraformName(role.arn)}_trust`;
  const rewrittenHcl = repair.rewritten.map((r) => statementHcl(r.statement));
  const [added] = specs.length > 0 ? trustHcl(name, specs) : [];
  const addedBody = added !== undefined && 'block' in added ? added.body : [];
  const positions = repair.rewritten.map((r) => r.index + 1).join(', ');
  const everySid = repair.rewritten.every(
    (r) => isObject(r.statement) && typeof r.statement.Sid === 'string',
  );
  const hcl: HclItem[] | undefined = rewrittenHcl.every((h) => h !== undefined)
    ? [
        {
          block: 'data',
          labels: ['aws_iam_policy_document', name],
          body: [...(rewrittenHcl as HclItem[]), ...addedBody],
        },
        { blank: true },
        {
          comment: everySid
            ? `in the role's trust document: override_policy_documents = [data.aws_iam_policy_document.${name}.json] replaces the statements of the same sid${specs.length > 0 ? ' and adds the new one' : ''}`
            : `these replace statement(s) ${positions} of the role's trust${specs.length > 0 ? '; the last one is new' : ''}`,
        },
      ]
    : undefined;
  return {
    summary,
    cli: [
      {
        comment: `replaces the whole trust policy: statement(s) ${positions} rewritten, the others kept${specs.length > 0 ? ', the new one appended' : ''}`,
      },
      updateTrustCommand(
        { arn: role.arn, state: 'exists', trustPolicy: JSON.stringify(repair.document) },
        specs,
      ),
    ],
    ...(hcl === undefined ? {} : { terraform: { hcl } }),
    trustPolicy: {
      Version: '2012-10-17',
      Statement: [...repair.rewritten.map((r) => r.statement), ...specs.map(statementJson)],
    },
    trustPolicyReplaces: true,
    notes: [
      `The statements replace statement(s) ${positions} of the current trust policy${specs.length > 0 ? '; the last one is added' : ''}.`,
      ...notes,
      ...(hcl === undefined
        ? [
            'The Terraform is not shown: a rewritten statement has a shape aws_iam_policy_document does not take.',
          ]
        : []),
    ],
  };
}
