/**
 * The workload-identity and parity fixes cannot run an attacker's code: namespaces, service
 * accounts, role names and trust policies from the snapshot go through the quoting layer. The AWS
 * CLI is run by bash and dash with a stub `aws` (exact argv, nothing else runs); the Terraform is
 * decoded per the HCL syntax (no live `${`); the trust-policy JSON parses back to the same values.
 */
import { describe, expect, it } from 'vitest';
import { roleNameOf } from '../../shared/core/access/principal.ts';
import type { Remediation } from '../../shared/core/model.ts';
import { compareClusters, podIdentityPlanOf } from '../../shared/core/parity/compare.ts';
import { assessSnapshot } from '../../shared/core/predict/engine.ts';
import { ACCOUNT } from '../support/snapshot-builder.ts';
import {
  association,
  irsaSnapshot,
  irsaTrust,
  movedIssuer,
  podIdentitySnapshot,
  podIdentityTrust,
  role,
} from '../support/workload-identity-builder.ts';
import { decodeHclDocument } from './hcl-decoder.ts';
import { runWithStubs } from './shell-stub.ts';
import { HCL_INJECTION, SHELL_INJECTION } from './strings.ts';

const EVIL_ROLE = `arn:aws:iam::${ACCOUNT}:role/app${HCL_INJECTION}$(touch pwned)`;
const EVIL_NS = SHELL_INJECTION;
const EVIL_SA = `sa${HCL_INJECTION}`;

function check(r: Remediation | undefined, mustCarry: string[], hclCarries: string[] = []) {
  expect(r).toBeDefined();
  if (r?.awsCli !== undefined) {
    for (const shell of ['bash', 'dash'] as const) {
      const run = runWithStubs(shell, r.awsCli);
      expect(run.stderr).toBe('');
      expect(run.calls.length).toBeGreaterThan(0);
      for (const call of run.calls) expect(call[0]).toBe('aws');
      const argv = run.calls.flat().join('\n');
      for (const s of mustCarry) expect(argv).toContain(s);
    }
  }
  if (r?.terraform !== undefined) {
    const doc = decodeHclDocument(r.terraform);
    for (const m of hclCarries) expect(doc.strings).toContain(m);
  }
  if (r?.trustPolicyJson !== undefined) expect(() => JSON.parse(r.trustPolicyJson ?? '')).not.toThrow();
}

describe('hostile workload-identity fixes', () => {
  it('role-trust-missing: the role name and service account reach aws exactly', () => {
    const s = podIdentitySnapshot({
      associations: [association({ namespace: EVIL_NS, serviceAccount: EVIL_SA, roleArn: EVIL_ROLE })],
      roles: [role(EVIL_ROLE, podIdentityTrust(['sts:AssumeRole']))],
      serviceAccounts: [{ namespace: EVIL_NS, name: EVIL_SA }],
    });
    const f = assessSnapshot(s).find((x) => x.ruleId === 'pod-identity/role-trust-missing');
    check(f?.remediation, [roleNameOf(EVIL_ROLE) ?? '']);
  });

  it('role-trust-missing, the rewritten statement: a hostile Sid, key and values reach aws, HCL and JSON exactly', () => {
    const statement = {
      Sid: `sid${HCL_INJECTION}`,
      Effect: 'Allow',
      Principal: { Service: 'pods.eks.amazonaws.com' },
      Action: 'sts:AssumeRole',
      Condition: {
        StringEquals: { 'sts:ExternalId': SHELL_INJECTION, [`aws:PrincipalTag/${HCL_INJECTION}`]: 'x' },
        // (a value with `${` would read as a policy variable: not evaluated, so not rewritten)
        StringNotEquals: { 'aws:SourceAccount': `${SHELL_INJECTION}"'\\` },
      },
    };
    const s = podIdentitySnapshot({
      associations: [association({ roleArn: EVIL_ROLE })],
      roles: [role(EVIL_ROLE, JSON.stringify({ Version: '2012-10-17', Statement: [statement] }))],
    });
    // With a condition on a role tag (unknown) beside it, the rewritten statement would not be
    // certain: the documented statement is added instead. Without it, the statement is rewritten.
    const first = assessSnapshot(s).find((x) => x.ruleId === 'pod-identity/role-trust-missing');
    expect(first?.severity).toBe('high');
    expect(first?.remediation?.trustPolicyReplaces).toBeUndefined();
    const { [`aws:PrincipalTag/${HCL_INJECTION}`]: _, ...equals } = statement.Condition.StringEquals;
    const certain = { ...statement, Condition: { ...statement.Condition, StringEquals: equals } };
    const s2 = {
      ...s,
      iamRoles: { status: 'ok' as const, data: [role(EVIL_ROLE, JSON.stringify({ Statement: certain }))] },
    };
    const f = assessSnapshot(s2).find((x) => x.ruleId === 'pod-identity/role-trust-missing');
    expect(f?.severity).toBe('high');
    expect(f?.remediation?.trustPolicyReplaces).toBe(true);
    const kept = `${SHELL_INJECTION}"'\\`;
    check(
      f?.remediation,
      [roleNameOf(EVIL_ROLE) ?? '', JSON.stringify(kept).slice(1, -1)],
      [`sid${HCL_INJECTION}`, kept],
    );
    const [rewritten] = JSON.parse(f?.remediation?.trustPolicyJson ?? '{}').Statement;
    expect(rewritten).toEqual({
      Sid: `sid${HCL_INJECTION}`,
      Effect: 'Allow',
      Principal: { Service: 'pods.eks.amazonaws.com' },
      Action: ['sts:AssumeRole', 'sts:TagSession'],
      Condition: { StringNotEquals: { 'aws:SourceAccount': kept } },
    });
  });

  it('irsa/trust-missing-cluster-issuer: the sub with hostile names stays one JSON value', () => {
    const s = irsaSnapshot({
      roles: [role(EVIL_ROLE, irsaTrust('oidc.eks.eu-west-1.amazonaws.com/id/BLUE'))],
      serviceAccounts: [{ namespace: EVIL_NS, name: EVIL_SA, roleArnAnnotation: EVIL_ROLE }],
    });
    const f = assessSnapshot(s).find((x) => x.ruleId === 'irsa/trust-missing-cluster-issuer');
    const sub = `system:serviceaccount:${EVIL_NS}:${EVIL_SA}`;
    check(f?.remediation, [JSON.stringify(sub).slice(1, -1)], [sub]);
    const stmt = JSON.parse(f?.remediation?.trustPolicyJson ?? '{}').Statement[0];
    expect(Object.values(stmt.Condition.StringEquals)).toContain(
      `system:serviceaccount:${EVIL_NS}:${EVIL_SA}`,
    );
  });

  it('compare and the Pod Identity plan: hostile names in every block', () => {
    // The source's trust matches the service account (works on the source), so compare reports it.
    const from = irsaSnapshot({
      roles: [role(EVIL_ROLE, irsaTrust(undefined, `system:serviceaccount:${EVIL_NS}:${EVIL_SA}`))],
      serviceAccounts: [{ namespace: EVIL_NS, name: EVIL_SA, roleArnAnnotation: EVIL_ROLE }],
    });
    const r = compareClusters(from, movedIssuer(from));
    check(r.fixAll, [EVIL_NS]);
    check(podIdentityPlanOf(from)?.remediation, [EVIL_NS, EVIL_SA], [EVIL_NS, EVIL_SA]);
  });
});
