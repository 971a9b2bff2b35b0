/**
 * Blue/green parity: what one cluster (`from`) grants that another (`to`) does not — access
 * (access entries, aws-auth) and workload identity (Pod Identity, IRSA) — and the IRSA → Pod
 * Identity plan that takes the cluster out of every trust policy. Pure.
 */

import { eksOwnershipOf } from '../access/eks-owned.ts';
import { principalKey, roleArnWithoutPath } from '../access/principal.ts';
import type { ResolvedIdentity } from '../access/resolve.ts';
import { entryArnOf } from '../access/role-arn.ts';
import {
  ADMIN_POLICY_ARN,
  eksCommand,
  type FixPlan,
  principalArnFlag,
  str,
  terraformName,
  withArnLookup,
} from '../fixes/remediation.ts';
import type { AccessScope, AssociatedAccessPolicy } from '../model.ts';
import type { Analysis } from '../predict/analysis.ts';
import type { HclItem } from '../quote/hcl.ts';
import type { ShellLine, ShellScript } from '../quote/shell.ts';
import {
  checkTrust,
  findOidcProvider,
  irsaRequest,
  oidcProviderArn,
  okData,
  podIdentityActions,
  podIdentityRequest,
  podIdentityStatement,
  roleOf,
  saLabel,
  type TrustStatementSpec,
  type TrustVerdict,
  trustDocument,
  trustFix,
  trustVerdict,
} from '../workload-identity/identity.ts';

export interface AccessGrant {
  arn: string;
  identity: ResolvedIdentity;
  /** A node or Fargate identity (an EC2_LINUX, FARGATE_LINUX, … entry, or a `system:node:` username). */
  node: boolean;
}

export function isNodeIdentity(id: ResolvedIdentity): boolean {
  return (
    (id.accessEntryType !== undefined && id.accessEntryType !== 'STANDARD') ||
    id.username.startsWith('system:node:')
  );
}

/**
 * Every principal the cluster lets in, by name (access entries, aws-auth role and user mappings
 * that resolve); `mapAccounts` and SSO mappings name no principal and are not listed.
 */
export function accessGrants(a: Analysis): AccessGrant[] {
  const arns: string[] = [];
  // Entries EKS creates for itself (eks-owned.ts) are each cluster's own, never a difference.
  if (a.mode !== 'CONFIG_MAP')
    for (const e of a.index.entries.values())
      if (!eksOwnershipOf(e, a.snapshot, a.roles)) arns.push(e.principalArn);
  if (a.mode !== 'API') {
    for (const r of a.index.roles.values()) if (r.rolearn) arns.push(r.rolearn);
    for (const u of a.index.usersByKey.values()) arns.push(u.userarn);
  }
  const byKey = new Map<string, AccessGrant>();
  for (const arn of arns) {
    const key = principalKey(arn);
    if (byKey.has(key)) continue;
    const res = a.resolve(arn);
    if (res.state !== 'resolved' || res.identity.source === 'aws-auth-account') continue;
    byKey.set(key, { arn, identity: res.identity, node: isNodeIdentity(res.identity) });
  }
  return [...byKey.values()].sort((x, y) => (x.arn < y.arn ? -1 : x.arn > y.arn ? 1 : 0));
}

function scopeText(s: AccessScope): string {
  return s.type === 'cluster' ? 'cluster' : `namespace:${[...(s.namespaces ?? [])].sort().join(',')}`;
}

export function policiesOf(id: ResolvedIdentity): string[] {
  return id.accessPolicies.map((p) => `${p.policyArn} (${scopeText(p.accessScope)})`).sort();
}

/** What differs between two identities of one principal: groups and access policies with scopes. */
export function accessDifferences(from: ResolvedIdentity, to: ResolvedIdentity): string[] {
  const out: string[] = [];
  const set = (xs: readonly string[]) => [...new Set(xs)].sort();
  const fg = set(from.groups);
  const tg = set(to.groups);
  const missing = fg.filter((g) => !tg.includes(g));
  const extra = tg.filter((g) => !fg.includes(g));
  if (missing.length) out.push(`groups missing on the target: ${missing.join(', ')}`);
  if (extra.length) out.push(`groups only on the target: ${extra.join(', ')}`);
  const fp = policiesOf(from);
  const tp = policiesOf(to);
  const pm = fp.filter((p) => !tp.includes(p));
  const pe = tp.filter((p) => !fp.includes(p));
  if (pm.length) out.push(`access policies missing on the target: ${pm.join('; ')}`);
  if (pe.length) out.push(`access policies only on the target: ${pe.join('; ')}`);
  if (from.source === to.source && from.username !== to.username)
    out.push(`username ${from.username} on the source, ${to.username} on the target`);
  return out;
}

const RESERVED_USERNAME = /^(system:|eks:|aws:|amazon:|iam:)/;

/**
 * The access entry (and policy associations) that gives `to` what `from` grants a principal: for a
 * role, by its real ARN (IAM path included) as `to` or `from` knows it, else with the look-up that
 * tells it; in aws-auth, without the path (aws-auth never matches a path).
 */
export function grantFix(
  to: Analysis,
  grant: AccessGrant,
  policies: readonly AssociatedAccessPolicy[],
  from?: Analysis,
): FixPlan {
  const real = entryArnOf(to, grant.arn, ...(from ? [from] : []));
  if (to.mode === 'CONFIG_MAP' || real.known)
    return grantFixFor(to, real.known ? { ...grant, arn: real.arn } : grant, policies);
  return withArnLookup(grantFixFor(to, grant, policies), grant.arn, real);
}

function grantFixFor(to: Analysis, grant: AccessGrant, policies: readonly AssociatedAccessPolicy[]): FixPlan {
  const id = grant.identity;
  const admin = id.groups.includes('system:masters');
  const groups = id.groups.filter((g) => !g.startsWith('system:'));
  const all: AssociatedAccessPolicy[] = [
    ...policies,
    ...(admin && !policies.some((p) => p.policyArn === ADMIN_POLICY_ARN)
      ? [{ policyArn: ADMIN_POLICY_ARN, accessScope: { type: 'cluster' as const } }]
      : []),
  ];
  const username =
    id.source !== 'access-entry' && !RESERVED_USERNAME.test(id.username) ? id.username : undefined;
  if (to.mode === 'CONFIG_MAP') {
    const mapping = { username: id.username, groups: [...id.groups] };
    return {
      summary: `Map ${grant.arn} in the target's aws-auth as the source does.`,
      awsAuth: grant.arn.includes(':user/')
        ? { user: { userarn: grant.arn, ...mapping } }
        : { role: { rolearn: roleArnWithoutPath(grant.arn), ...mapping } },
    };
  }
  const cli: ShellLine[] = [
    eksCommand(
      to,
      'create-access-entry',
      principalArnFlag(grant.arn),
      { flag: '--type', value: 'STANDARD' },
      ...(groups.length ? [{ flag: '--kubernetes-groups', values: groups }] : []),
      ...(username ? [{ flag: '--username', value: username }] : []),
    ),
    ...all.map((p) =>
      eksCommand(
        to,
        'associate-access-policy',
        principalArnFlag(grant.arn),
        { flag: '--policy-arn', value: p.policyArn },
        {
          flag: '--access-scope',
          value: JSON.stringify({
            type: p.accessScope.type,
            ...(p.accessScope.namespaces?.length ? { namespaces: p.accessScope.namespaces } : {}),
          }),
        },
      ),
    ),
  ];
  const name = terraformName(grant.arn);
  const terraform: HclItem[] = [
    {
      block: 'resource',
      labels: ['aws_eks_access_entry', name],
      body: [
        { name: 'cluster_name', value: str(to.cluster.name) },
        { name: 'principal_arn', value: str(grant.arn) },
        ...(groups.length ? [{ name: 'kubernetes_groups', value: { list: groups } }] : []),
        ...(username ? [{ name: 'user_name', value: str(username) }] : []),
      ],
    },
    ...all.flatMap((p, i): HclItem[] => [
      { blank: true },
      {
        block: 'resource',
        labels: ['aws_eks_access_policy_association', `${name}_${i + 1}`],
        body: [
          { name: 'cluster_name', value: str(to.cluster.name) },
          { name: 'principal_arn', value: str(grant.arn) },
          { name: 'policy_arn', value: str(p.policyArn) },
          {
            block: 'access_scope',
            labels: [],
            body: [
              { name: 'type', value: str(p.accessScope.type) },
              ...(p.accessScope.namespaces?.length
                ? [{ name: 'namespaces', value: { list: p.accessScope.namespaces } }]
                : []),
            ],
          },
        ],
      },
    ]),
  ];
  const dropped = id.groups.filter((g) => g.startsWith('system:') && g !== 'system:masters');
  return {
    summary: `Create an access entry for ${grant.arn} on ${to.cluster.name} with the source's groups and access policies.`,
    cli,
    terraform: { hcl: terraform },
    ...(dropped.length || admin
      ? {
          notes: [
            ...(admin
              ? [
                  'system:masters cannot be an access-entry group: AmazonEKSClusterAdminPolicy (cluster scope) grants the same.',
                ]
              : []),
            ...(dropped.length
              ? [
                  `Groups starting system: are not allowed in access entries and are left out: ${dropped.join(', ')}.`,
                ]
              : []),
          ],
        }
      : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Workload identity on the target

export interface WorkloadUse {
  namespace: string;
  name: string;
  roleArn: string;
  via: 'pod-identity' | 'irsa';
}

/** Every service account's role on a cluster: its Pod Identity association and its IRSA annotation. */
export function workloadUses(a: Analysis): WorkloadUse[] {
  const out: WorkloadUse[] = [];
  for (const x of okData(a.snapshot.podIdentityAssociations) ?? [])
    out.push({ namespace: x.namespace, name: x.serviceAccount, roleArn: x.roleArn, via: 'pod-identity' });
  for (const sa of okData(a.snapshot.serviceAccounts) ?? []) {
    const arn = (sa.roleArnAnnotation ?? '').trim();
    if (arn) out.push({ namespace: sa.namespace, name: sa.name, roleArn: arn, via: 'irsa' });
  }
  return out.sort((x, y) => {
    const k = (u: WorkloadUse) => `${u.namespace}/${u.name}/${u.via}`;
    return k(x) < k(y) ? -1 : k(x) > k(y) ? 1 : 0;
  });
}

/** The role's trust policy: the target's reading, else the source's (same role, same account). */
function trustOf(to: Analysis, from: Analysis | undefined, roleArn: string): string | undefined {
  return roleOf(to, roleArn)?.trustPolicy ?? (from && roleOf(from, roleArn)?.trustPolicy);
}

/**
 * Does the role work for the service account on `to`? By Pod Identity (an association with the
 * role, trusted by pods.eks.amazonaws.com) or by IRSA (annotated, the issuer a provider, trusted).
 */
export function workloadWorksOn(to: Analysis, from: Analysis | undefined, use: WorkloadUse): TrustVerdict {
  const s = to.snapshot;
  const key = principalKey(use.roleArn);
  const trust = trustOf(to, from, use.roleArn);
  const verdicts: TrustVerdict[] = [];
  const assoc = (okData(s.podIdentityAssociations) ?? []).find(
    (x) => x.namespace === use.namespace && x.serviceAccount === use.name && principalKey(x.roleArn) === key,
  );
  if (assoc) {
    if (trust === undefined) return { verdict: 'ok' };
    verdicts.push(
      trustVerdict(
        checkTrust(
          trust,
          podIdentityActions(assoc).map((act) => podIdentityRequest(s, act, assoc)),
        ),
      ),
    );
  }
  const sa = (okData(s.serviceAccounts) ?? []).find(
    (x) => x.namespace === use.namespace && x.name === use.name,
  );
  const issuer = s.cluster.oidcIssuer;
  if (sa && principalKey((sa.roleArnAnnotation ?? '').trim()) === key && issuer) {
    const providers = okData(s.oidcProviders);
    const provider = providers && findOidcProvider(providers, issuer);
    if (providers && !provider)
      verdicts.push({ verdict: 'broken', denied: [], why: `no IAM OIDC provider for ${issuer}` });
    else if (trust === undefined) verdicts.push({ verdict: 'ok' });
    else
      verdicts.push(
        trustVerdict(
          checkTrust(trust, [irsaRequest(provider?.arn ?? oidcProviderArn(s, issuer), issuer, use)]),
        ),
      );
  }
  if (verdicts.some((v) => v.verdict === 'ok')) return { verdict: 'ok' };
  const open = verdicts.find((v) => v.verdict === 'unknown');
  if (open) return open;
  return (
    verdicts[0] ?? {
      verdict: 'broken',
      denied: [],
      why: `${saLabel(use.namespace, use.name)} has neither a Pod Identity association nor an IRSA annotation with ${use.roleArn} on ${to.cluster.name}`,
    }
  );
}

// ---------------------------------------------------------------------------------------------
// IRSA → Pod Identity

export interface MigrationStep {
  namespace: string;
  serviceAccount: string;
  roleArn: string;
  /** The role's trust lacks the Pod Identity statement (or it cannot be told). */
  trustToAdd: boolean;
}

export interface MigrationPlan {
  steps: MigrationStep[];
  fix: FixPlan;
}

/**
 * For every IRSA service account of `uses`, the association to create on `target` and, where the
 * role does not yet trust pods.eks.amazonaws.com, the statement to add: afterwards no trust policy
 * names a cluster. `undefined` when there is nothing to move.
 */
export function podIdentityPlan(
  target: Analysis,
  uses: readonly WorkloadUse[],
  source?: Analysis,
): MigrationPlan | undefined {
  const irsa = uses.filter((u) => u.via === 'irsa');
  if (irsa.length === 0) return undefined;
  const steps: MigrationStep[] = irsa.map((u) => {
    const trust = trustOf(target, source, u.roleArn);
    const ok =
      trust !== undefined &&
      trustVerdict(
        checkTrust(
          trust,
          podIdentityActions({}).map((act) =>
            podIdentityRequest(target.snapshot, act, { namespace: u.namespace, serviceAccount: u.name }),
          ),
        ),
      ).verdict === 'ok';
    return { namespace: u.namespace, serviceAccount: u.name, roleArn: u.roleArn, trustToAdd: !ok };
  });
  const cli: ShellLine[] = [];
  const hcl: HclItem[] = [];
  const trustRoles = [
    ...new Map(steps.filter((s) => s.trustToAdd).map((s) => [principalKey(s.roleArn), s.roleArn])).values(),
  ].sort();
  const statement: TrustStatementSpec = podIdentityStatement(target.snapshot, podIdentityActions({}));
  for (const arn of trustRoles) {
    const role = roleOf(target, arn) ?? (source && roleOf(source, arn)) ?? { arn };
    const f = trustFix(role, [statement], '');
    cli.push(...((f.cli ?? []) as ShellScript));
    if (f.terraform && 'hcl' in f.terraform) hcl.push(...f.terraform.hcl, { blank: true });
  }
  steps.forEach((s, i) => {
    cli.push(
      eksCommand(
        target,
        'create-pod-identity-association',
        { flag: '--namespace', value: s.namespace },
        { flag: '--service-account', value: s.serviceAccount },
        { flag: '--role-arn', value: s.roleArn },
      ),
    );
    hcl.push({
      block: 'resource',
      labels: ['aws_eks_pod_identity_association', `${terraformName(s.roleArn)}_${i + 1}`],
      body: [
        { name: 'cluster_name', value: str(target.cluster.name) },
        { name: 'namespace', value: str(s.namespace) },
        { name: 'service_account', value: str(s.serviceAccount) },
        { name: 'role_arn', value: str(s.roleArn) },
      ],
    });
  });
  return {
    steps,
    fix: {
      summary: `Move ${steps.length} IRSA service account(s) to EKS Pod Identity on ${target.cluster.name}: add the Pod Identity trust statement to ${trustRoles.length} role(s) and create the associations; then remove the eks.amazonaws.com/role-arn annotations and the issuer statements.`,
      cli,
      terraform: { hcl },
      trustPolicy: trustDocument([statement]),
      notes: ['Needs the eks-pod-identity-agent add-on, and Linux EC2 nodes (not Fargate, not Windows).'],
    },
  };
}
