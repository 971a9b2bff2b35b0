/**
 * Workload identity (EKS Pod Identity, IRSA) over one analysed snapshot: which service accounts
 * use which role, the trust requests each path makes, and the trust statements that fix them.
 * Pure. Every name here (namespace, service account, annotation, trust policy) is attacker-written.
 */

import { parseArn, principalKey, roleNameOf } from '../access/principal.ts';
import { type FixPlan, str, terraformName } from '../fixes/remediation.ts';
import type {
  BlastRadius,
  ClusterSnapshot,
  IamRole,
  OidcProvider,
  PodIdentityAssociation,
  ServiceAccount,
} from '../model.ts';
import type { Analysis } from '../predict/analysis.ts';
import type { HclItem } from '../quote/hcl.ts';
import type { ShellCommand } from '../quote/shell.ts';
import {
  describeUnevaluated,
  evaluateTrustPolicy,
  type TrustDecision,
  type TrustRequest,
} from './iam-policy/evaluate.ts';
import { EXTERNAL_ID_KEY, POD_IDENTITY_SERVICE } from './pod-identity-requests.ts';

export { POD_IDENTITY_SERVICE, podIdentityRequest, roleChainRequest } from './pod-identity-requests.ts';
export const POD_IDENTITY_AGENT = 'eks-pod-identity-agent';
export const IRSA_ANNOTATION = 'eks.amazonaws.com/role-arn';
export const ASSUME_FOR_POD_IDENTITY = 'eks-auth:AssumeRoleForPodIdentity';
export const WEB_IDENTITY_ACTION = 'sts:AssumeRoleWithWebIdentity';
export const IRSA_AUDIENCE = 'sts.amazonaws.com';
export const WORKER_NODE_POLICY = 'AmazonEKSWorkerNodePolicy';

export const TIME_TO_IMPACT_CREDENTIALS =
  'new pods get no AWS credentials at once; running pods fail at their next credential refresh (within the hour)';

/** The documented Pod Identity limits (EKS user guide, "EKS Pod Identity considerations"). */
export const POD_IDENTITY_LIMITS =
  'EKS Pod Identity works on Linux EC2 nodes only: pods on AWS Fargate and on Windows nodes get no Pod Identity credentials (use IRSA there).';

export const saLabel = (namespace: string, name: string) => `${namespace}/${name}`;
export const serviceAccountSub = (namespace: string, name: string) =>
  `system:serviceaccount:${namespace}:${name}`;

/** The source's data when it was read; undefined when absent, unreadable or not captured. */
export function okData<T>(source: { status: string; data?: T } | undefined): T | undefined {
  return source?.status === 'ok' ? source.data : undefined;
}

/** The role as the snapshot knows it: `exists`, `missing`, or undefined when it was not read. */
export function roleOf(a: Analysis, arn: string): IamRole | undefined {
  return a.roles?.get(principalKey(arn));
}

/** A service accounts' blast radius: who loses credentials, no nodes. */
export function serviceAccountBlastRadius(
  accounts: ReadonlyArray<{ namespace: string; name: string }>,
  timeToImpact = TIME_TO_IMPACT_CREDENTIALS,
): BlastRadius {
  return {
    nodegroups: [],
    fargateProfiles: [],
    nodeClasses: [],
    nodeCount: 0,
    firstNodes: [],
    timeToImpact,
    serviceAccounts: [...new Set(accounts.map((s) => saLabel(s.namespace, s.name)))].sort(),
    namespaces: [...new Set(accounts.map((s) => s.namespace))].sort(),
  };
}

/** Items grouped by a key, keys in sorted order (rule output must not depend on input order). */
export function groupBy<T>(items: readonly T[], keyOf: (t: T) => string): Array<[string, T[]]> {
  const m = new Map<string, T[]>();
  for (const t of items) {
    const k = keyOf(t);
    const list = m.get(k);
    if (list) list.push(t);
    else m.set(k, [t]);
  }
  return [...m.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------
// Trust requests

/** The actions the Pod Identity agent needs on the association's role. */
export function podIdentityActions(
  association: Pick<PodIdentityAssociation, 'disableSessionTags'>,
): string[] {
  return association.disableSessionTags === true ? ['sts:AssumeRole'] : ['sts:AssumeRole', 'sts:TagSession'];
}

/** `oidc.eks.<region>.amazonaws.com/id/<ID>`: the issuer as IAM names it (no scheme, no trailing slash). */
export function issuerPath(issuer: string): string {
  return issuer
    .trim()
    .replace(/^https:\/\//i, '')
    .replace(/\/+$/, '');
}

/** The ARN the cluster's IAM OIDC provider has (or would have), in the cluster's account. */
export function oidcProviderArn(s: ClusterSnapshot, issuer: string): string {
  const partition = parseArn(s.clusterArn)?.partition ?? 'aws';
  return `arn:${partition}:iam::${s.accountId}:oidc-provider/${issuerPath(issuer)}`;
}

/** The account's IAM OIDC provider for the issuer, if any (host compared case-insensitively). */
export function findOidcProvider(
  providers: readonly OidcProvider[],
  issuer: string,
): OidcProvider | undefined {
  const want = issuerPath(issuer).toLowerCase();
  return providers.find((p) => issuerPath(p.url).toLowerCase() === want);
}

/** The web identity request of a service account's token (`aud` the webhook's default unless given). */
export function irsaRequest(
  providerArn: string,
  issuer: string,
  sa: { namespace: string; name: string },
  audience = IRSA_AUDIENCE,
): TrustRequest {
  const path = issuerPath(issuer);
  return {
    principal: { type: 'Federated', id: providerArn },
    action: WEB_IDENTITY_ACTION,
    context: {
      [`${path}:sub`]: { present: [serviceAccountSub(sa.namespace, sa.name)] },
      [`${path}:aud`]: { present: [audience] },
    },
  };
}

export interface TrustCheck {
  action: string;
  decision: TrustDecision;
}

/** Each action evaluated against the role's trust policy. */
export function checkTrust(trustPolicy: string, requests: readonly TrustRequest[]): TrustCheck[] {
  return requests.map((r) => ({ action: r.action, decision: evaluateTrustPolicy(trustPolicy, r) }));
}

export type TrustVerdict =
  | { verdict: 'ok' }
  | { verdict: 'broken'; denied: string[]; why: string }
  | { verdict: 'unknown'; why: string };

/** Summary of the checks: broken when one is certainly denied, unknown when one cannot be told. */
export function trustVerdict(checks: readonly TrustCheck[]): TrustVerdict {
  const denied = checks.filter((c) => c.decision.decision === 'denied');
  if (denied.length > 0) {
    const explicit = denied.some((c) => c.decision.decision === 'denied' && c.decision.explicit);
    return {
      verdict: 'broken',
      denied: denied.map((c) => c.action),
      why: `${explicit ? 'a Deny statement refuses' : 'no statement allows'} ${denied.map((c) => c.action).join(' and ')}`,
    };
  }
  const open = checks.flatMap((c) => {
    const d = c.decision;
    if (d.decision === 'invalid') return [`the trust policy could not be read (${d.reason})`];
    if (d.decision === 'unknown') return [`${c.action}: ${describeUnevaluated(d.unevaluated)}`];
    return [];
  });
  return open.length > 0 ? { verdict: 'unknown', why: [...new Set(open)].join('; ') } : { verdict: 'ok' };
}

// ---------------------------------------------------------------------------------------------
// Fixes

export interface TrustStatementSpec {
  principalType: 'Service' | 'Federated' | 'AWS';
  principal: string;
  actions: readonly string[];
  conditions: ReadonlyArray<{ test: string; variable: string; values: readonly string[] }>;
}

export function podIdentityStatement(s: ClusterSnapshot, actions: readonly string[]): TrustStatementSpec {
  return {
    principalType: 'Service',
    principal: POD_IDENTITY_SERVICE,
    actions,
    // No cluster in it: the same role works for this cluster's successor (blue/green).
    conditions: [{ test: 'StringEquals', variable: 'aws:SourceAccount', values: [s.accountId] }],
  };
}

export function irsaStatement(
  providerArn: string,
  issuer: string,
  accounts: ReadonlyArray<{ namespace: string; name: string }>,
): TrustStatementSpec {
  const path = issuerPath(issuer);
  return {
    principalType: 'Federated',
    principal: providerArn,
    actions: [WEB_IDENTITY_ACTION],
    conditions: [
      {
        test: 'StringEquals',
        variable: `${path}:sub`,
        values: [...new Set(accounts.map((a) => serviceAccountSub(a.namespace, a.name)))].sort(),
      },
      { test: 'StringEquals', variable: `${path}:aud`, values: [IRSA_AUDIENCE] },
    ],
  };
}

/**
 * The target role's statement for the association's role; with the associations' external IDs
 * known, under `StringEquals sts:ExternalId` (the EKS API reference's set-up: "you put this value
 * in the trust policy of the target role").
 */
export function roleChainStatement(
  sourceRoleArn: string,
  actions: readonly string[],
  externalIds: readonly string[] = [],
): TrustStatementSpec {
  const ids = [...new Set(externalIds)].sort();
  return {
    principalType: 'AWS',
    principal: sourceRoleArn,
    actions,
    conditions: ids.length === 0 ? [] : [{ test: 'StringEquals', variable: EXTERNAL_ID_KEY, values: ids }],
  };
}

export function statementJson(spec: TrustStatementSpec): Record<string, unknown> {
  const condition: Record<string, Record<string, string | string[]>> = {};
  for (const c of spec.conditions) {
    const block = condition[c.test] ?? {};
    block[c.variable] = c.values.length === 1 ? (c.values[0] ?? '') : [...c.values];
    condition[c.test] = block;
  }
  return {
    Effect: 'Allow',
    Principal: { [spec.principalType]: spec.principal },
    Action: spec.actions.length === 1 ? spec.actions[0] : [...spec.actions],
    ...(spec.conditions.length > 0 ? { Condition: condition } : {}),
  };
}

export function trustDocument(specs: readonly TrustStatementSpec[]): Record<string, unknown> {
  return { Version: '2012-10-17', Statement: specs.map(statementJson) };
}

/** The role's current statements with `specs` appended (the document `update-assume-role-policy` takes). */
function mergedDocument(
  current: string | undefined,
  specs: readonly TrustStatementSpec[],
): Record<string, unknown> {
  let existing: unknown[] = [];
  try {
    const doc = current === undefined ? undefined : (JSON.parse(current) as { Statement?: unknown });
    if (doc && typeof doc === 'object')
      existing = Array.isArray(doc.Statement) ? doc.Statement : doc.Statement ? [doc.Statement] : [];
  } catch {
    existing = [];
  }
  return { Version: '2012-10-17', Statement: [...existing, ...specs.map(statementJson)] };
}

/** `data "aws_iam_policy_document"` statements for the specs. */
export function trustHcl(name: string, specs: readonly TrustStatementSpec[]): HclItem[] {
  return [
    {
      block: 'data',
      labels: ['aws_iam_policy_document', name],
      body: specs.map((spec) => ({
        block: 'statement',
        labels: [],
        body: [
          { name: 'effect', value: str('Allow') },
          { name: 'actions', value: { list: spec.actions } },
          {
            block: 'principals',
            labels: [],
            body: [
              { name: 'type', value: str(spec.principalType) },
              { name: 'identifiers', value: { list: [spec.principal] } },
            ],
          },
          ...spec.conditions.map(
            (c): HclItem => ({
              block: 'condition',
              labels: [],
              body: [
                { name: 'test', value: str(c.test) },
                { name: 'variable', value: str(c.variable) },
                { name: 'values', value: { list: c.values } },
              ],
            }),
          ),
        ],
      })),
    },
  ];
}

export function updateTrustCommand(
  role: IamRole | { arn: string },
  specs: readonly TrustStatementSpec[],
): ShellCommand {
  const current = 'trustPolicy' in role ? role.trustPolicy : undefined;
  return {
    argv: [
      'aws',
      'iam',
      'update-assume-role-policy',
      { flag: '--role-name', value: roleNameOf(role.arn) ?? role.arn },
      { flag: '--policy-document', value: JSON.stringify(mergedDocument(current, specs)) },
    ],
  };
}

/** The fix that adds trust statements to a role: CLI (whole document), Terraform, the JSON to add. */
export function trustFix(
  role: IamRole | { arn: string },
  specs: readonly TrustStatementSpec[],
  summary: string,
): FixPlan {
  const name = `${terraformName(role.arn)}_trust`;
  return {
    summary,
    cli: [
      {
        comment: 'replaces the whole trust policy: the current statements are kept and the new ones appended',
      },
      updateTrustCommand(role, specs),
    ],
    terraform: {
      hcl: [
        ...trustHcl(name, specs),
        { blank: true },
        {
          comment: `merge into the role's trust: source_policy_documents = [data.aws_iam_policy_document.${name}.json, <the current trust>]`,
        },
      ],
    },
    trustPolicy: trustDocument(specs),
  };
}

/** Every role ARN the snapshot shows in use: compute, Pod Identity associations, IRSA annotations, roles read. */
export function roleArnsInUse(s: ClusterSnapshot): string[] {
  const arns: string[] = [];
  for (const ng of okData(s.nodegroups) ?? []) arns.push(ng.nodeRole);
  for (const fp of okData(s.fargateProfiles) ?? []) arns.push(fp.podExecutionRoleArn);
  for (const nc of okData(s.karpenterNodeClasses) ?? []) if (nc.roleArn) arns.push(nc.roleArn);
  for (const n of okData(s.compute) ?? []) if (n.roleArn) arns.push(n.roleArn);
  for (const x of okData(s.podIdentityAssociations) ?? [])
    arns.push(x.roleArn, ...(x.targetRoleArn ? [x.targetRoleArn] : []));
  for (const sa of okData(s.serviceAccounts) ?? [])
    if (sa.roleArnAnnotation) arns.push(sa.roleArnAnnotation.trim());
  for (const r of okData(s.iamRoles) ?? []) arns.push(r.arn);
  return arns.filter((a) => a !== '');
}

/** Service accounts by `namespace/name`, when the source was read. */
export function serviceAccountIndex(s: ClusterSnapshot): Map<string, ServiceAccount> | undefined {
  const list = okData(s.serviceAccounts);
  return list && new Map(list.map((sa) => [saLabel(sa.namespace, sa.name), sa] as const));
}

/**
 * The associations by ID, each with its service account (undefined when none of that name exists);
 * undefined when either source was not read.
 */
export function associationsWithAccounts(
  s: ClusterSnapshot,
): Array<{ x: PodIdentityAssociation; label: string; account: ServiceAccount | undefined }> | undefined {
  const associations = okData(s.podIdentityAssociations);
  const index = serviceAccountIndex(s);
  if (!associations || !index) return undefined;
  return [...associations]
    .sort((p, q) => (p.associationId < q.associationId ? -1 : p.associationId > q.associationId ? 1 : 0))
    .map((x) => {
      const label = saLabel(x.namespace, x.serviceAccount);
      return { x, label, account: index.get(label) };
    });
}

/** IRSA service accounts: those whose annotation names a role. */
export function irsaAccounts(s: ClusterSnapshot): ServiceAccount[] | undefined {
  return okData(s.serviceAccounts)?.filter((sa) => (sa.roleArnAnnotation ?? '').trim() !== '');
}
