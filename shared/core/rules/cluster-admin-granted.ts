import { ADMIN_POLICY_ARN, eksCommand, principalArnFlag } from '../fixes/remediation.ts';
import type { Analysis } from '../predict/analysis.ts';
import type { FindingDraft, Rule } from './types.ts';

const ADMIN_POLICY = '/AmazonEKSClusterAdminPolicy';

/** Per analysis: the rule also runs once per change of a plan, on the same two analyses. */
const grantsOf = new WeakMap<Analysis, Map<string, string>>();

/** Every grant of cluster-admin: aws-auth system:masters mappings and ClusterAdmin policy associations. */
function adminGrants(a: Analysis): Map<string, string> {
  const known = grantsOf.get(a);
  if (known !== undefined) return known;
  const grants = new Map<string, string>();
  grantsOf.set(a, grants);
  if (a.awsAuth && a.mode !== 'API') {
    for (const r of a.awsAuth.roles) {
      if (!r.groups.includes('system:masters')) continue;
      const arn = r.rolearn ?? `sso:${r.sso?.accountID}/${r.sso?.permissionSetName}`;
      grants.set(`aws-auth:${arn.toLowerCase()}`, arn);
    }
    for (const u of a.awsAuth.users) {
      if (u.groups.includes('system:masters')) grants.set(`aws-auth:${u.userarn.toLowerCase()}`, u.userarn);
    }
  }
  if (a.accessEntries && a.mode !== 'CONFIG_MAP') {
    for (const e of a.accessEntries) {
      if (
        e.accessPolicies.some((p) => p.policyArn.endsWith(ADMIN_POLICY) && p.accessScope.type === 'cluster')
      ) {
        grants.set(`access-entry:${e.principalArn.toLowerCase()}`, e.principalArn);
      }
    }
  }
  return grants;
}

export const clusterAdminGranted: Rule = {
  id: 'cluster-admin/granted',
  severity: 'high',
  kinds: ['transition', 'change'],
  title: 'A principal was granted cluster-admin',
  meaning:
    'A new system:masters mapping in aws-auth or an AmazonEKSClusterAdminPolicy association: full control of the cluster, not visible to `kubectl auth can-i`.',
  fix: 'Confirm the grant was intended; prefer a namespaced or view policy.',
  evaluate({ current: a, previous: b }) {
    if (!b) return [];
    // Only compare sources both sides could read.
    const before = adminGrants(b);
    const after = adminGrants(a);
    const awsAuthComparable = b.snapshot.awsAuth.status !== 'error' && a.snapshot.awsAuth.status !== 'error';
    const entriesComparable =
      b.snapshot.accessEntries.status !== 'error' && a.snapshot.accessEntries.status !== 'error';
    const out: FindingDraft[] = [];
    for (const [key, arn] of after) {
      if (before.has(key)) continue;
      const viaAwsAuth = key.startsWith('aws-auth:');
      if (viaAwsAuth ? !awsAuthComparable : !entriesComparable) continue;
      out.push({
        severity: 'high',
        subject: arn,
        fingerprintKey: viaAwsAuth ? 'aws-auth' : 'access-entry',
        title: `${arn} was granted cluster-admin (${viaAwsAuth ? 'aws-auth system:masters' : 'AmazonEKSClusterAdminPolicy'})`,
        detail: viaAwsAuth
          ? 'A system:masters mapping bypasses RBAC entirely and cannot be restricted by any RoleBinding.'
          : 'The cluster-admin access policy grants * on * cluster-wide, including non-resource URLs.',
        evidence: { via: viaAwsAuth ? 'aws-auth' : 'access-entry' },
        remediation: {
          summary: 'If unintended, remove the grant; otherwise record who approved it.',
          ...(viaAwsAuth
            ? {}
            : {
                cli: [
                  eksCommand(a, 'disassociate-access-policy', principalArnFlag(arn), {
                    flag: '--policy-arn',
                    value: ADMIN_POLICY_ARN,
                  }),
                ],
              }),
        },
      });
    }
    return out;
  },
};
