/**
 * aws-auth principals that have no working access entry — what `API` mode ignores — and the
 * access entries that carry them over (the mapping rules of eksctl's
 * `utils migrate-to-access-entry`): node roles → `EC2_LINUX`/`EC2_WINDOWS`/`FARGATE_LINUX`, everything else
 * `STANDARD` with the same username and the non-`system:` groups, `system:masters` →
 * `AmazonEKSClusterAdminPolicy`. Pure.
 */
import type { Analysis } from './analysis.ts';
import type { RoleConsumer } from './consumers.ts';
import { usernameProblem } from './migrate.ts';
import { principalKey } from './principal.ts';
import type { HclAttribute, HclItem } from './quote/hcl.ts';
import type { ShellCommand, ShellWord } from './quote/shell.ts';
import { ADMIN_POLICY_ARN, eksCommand, principalArnFlag, str, uniqueTerraformNames } from './remediation.ts';

export interface AwsAuthOnlyPrincipal {
  arn: string;
  username: string;
  groups: string[];
  kind: 'role' | 'user' | 'sso' | 'account';
}

/**
 * aws-auth principals with no working access entry (none, or one bound to a deleted or re-created
 * role), sorted by ARN. For duplicates the last mapping counts, as in the authenticator.
 */
export function awsAuthOnlyPrincipals(a: Analysis): AwsAuthOnlyPrincipal[] {
  if (!a.awsAuth) return [];
  const hasEntry = (arn: string) => {
    const key = principalKey(arn);
    return a.index.entries.has(key) && !a.deadEntries.has(key);
  };
  const out: AwsAuthOnlyPrincipal[] = [];
  const seen = new Set<string>();
  for (const r of [...a.awsAuth.roles].reverse()) {
    const arn = r.rolearn ?? `sso:${r.sso?.accountID}/${r.sso?.permissionSetName}`;
    if (seen.has(arn.toLowerCase())) continue;
    seen.add(arn.toLowerCase());
    if (r.rolearn && hasEntry(r.rolearn)) continue;
    out.push({ arn, username: r.username, groups: r.groups, kind: r.rolearn ? 'role' : 'sso' });
  }
  for (const u of a.awsAuth.users) {
    if (hasEntry(u.userarn)) continue;
    out.push({ arn: u.userarn, username: u.username, groups: u.groups, kind: 'user' });
  }
  for (const acct of a.awsAuth.accounts)
    out.push({ arn: acct, username: '(ARN)', groups: [], kind: 'account' });
  return out.sort((x, y) => x.arn.localeCompare(y.arn));
}

/** The compute that depends on a role principal, if any. */
export function consumerOfPrincipal(a: Analysis, p: AwsAuthOnlyPrincipal): RoleConsumer | undefined {
  return p.kind === 'role' ? a.consumers.byRole.get(principalKey(p.arn)) : undefined;
}

/** The access entry type a principal needs: a node type for compute roles, else STANDARD (undefined). */
export function nodeEntryTypeOf(a: Analysis, p: AwsAuthOnlyPrincipal): string | undefined {
  const c = consumerOfPrincipal(a, p);
  if (!c) return undefined;
  if (c.requirements.has('fargate')) return 'FARGATE_LINUX';
  if (c.requirements.has('ec2-windows')) return 'EC2_WINDOWS';
  return 'EC2_LINUX';
}

const groupsOf = (p: AwsAuthOnlyPrincipal) => p.groups.filter((g) => !g.startsWith('system:'));

/** The username to keep on the STANDARD entry (the one aws-auth had), when an entry can carry it. */
function keptUsername(p: AwsAuthOnlyPrincipal, nodeType: string | undefined): string | undefined {
  if (nodeType || (p.kind !== 'role' && p.kind !== 'user')) return undefined;
  return p.username !== '' && usernameProblem(p.username) === undefined ? p.username : undefined;
}

/** `aws eks create-access-entry` (and the admin policy association) for one principal. */
export function accessEntryCommandsFor(a: Analysis, p: AwsAuthOnlyPrincipal): ShellCommand[] {
  const nodeType = nodeEntryTypeOf(a, p);
  const arn = principalArnFlag(p.arn);
  if (nodeType) return [eksCommand(a, 'create-access-entry', arn, { flag: '--type', value: nodeType })];
  const groups = groupsOf(p);
  const username = keptUsername(p, nodeType);
  const words: ShellWord[] = [
    ...(username === undefined ? [] : [{ flag: '--username', value: username }]),
    ...(groups.length ? [{ flag: '--kubernetes-groups', values: groups }] : []),
  ];
  const cmds = [eksCommand(a, 'create-access-entry', arn, ...words)];
  if (p.groups.includes('system:masters')) {
    cmds.push(
      eksCommand(
        a,
        'associate-access-policy',
        arn,
        { flag: '--policy-arn', value: ADMIN_POLICY_ARN },
        '--access-scope',
        'type=cluster',
      ),
    );
  }
  return cmds;
}

/** One `access_entries` item of terraform-aws-modules/eks for a principal. */
function accessEntryItem(a: Analysis, p: AwsAuthOnlyPrincipal, name: string): HclAttribute {
  const nodeType = nodeEntryTypeOf(a, p);
  const groups = groupsOf(p);
  const username = keptUsername(p, nodeType);
  const body: HclAttribute[] = [{ name: 'principal_arn', value: str(p.arn) }];
  if (nodeType) body.push({ name: 'type', value: str(nodeType) });
  if (username !== undefined) body.push({ name: 'user_name', value: str(username) });
  if (!nodeType && groups.length) body.push({ name: 'kubernetes_groups', value: { list: groups } });
  if (!nodeType && p.groups.includes('system:masters')) {
    body.push({
      name: 'policy_associations',
      value: {
        object: [
          {
            name: 'admin',
            value: {
              object: [
                { name: 'policy_arn', value: str(ADMIN_POLICY_ARN) },
                {
                  name: 'access_scope',
                  value: { object: [{ name: 'type', value: str('cluster') }], inline: true },
                },
              ],
            },
          },
        ],
      },
    });
  }
  return { name, value: { object: body } };
}

/** The access entries for `principals` (roles and users: others have no entry form) as a fix. */
export function accessEntriesFix(
  a: Analysis,
  principals: readonly AwsAuthOnlyPrincipal[],
): { cli: ShellCommand[]; terraform: HclItem[]; notes: string[] } {
  const fixable = principals.filter((p) => p.kind === 'role' || p.kind === 'user');
  const names = uniqueTerraformNames(fixable.map((p) => p.arn));
  const notes = [
    'Groups starting with system: cannot be given to STANDARD access entries; system:masters becomes AmazonEKSClusterAdminPolicy.',
  ];
  if (principals.some((p) => p.kind === 'account' || p.kind === 'sso'))
    notes.push(
      'mapAccounts and SSO matchers have no access-entry equivalent: create one entry per principal.',
    );
  for (const p of fixable) {
    const why = nodeEntryTypeOf(a, p) ? undefined : usernameProblem(p.username);
    if (why !== undefined && p.username !== '')
      notes.push(`${p.arn} gets EKS's default username, not the one aws-auth gave it: ${why}.`);
  }
  return {
    cli: fixable.flatMap((p) => accessEntryCommandsFor(a, p)),
    terraform: [
      {
        name: 'access_entries',
        value: { object: fixable.map((p, i) => accessEntryItem(a, p, names[i] ?? 'principal')) },
      },
    ],
    notes,
  };
}
