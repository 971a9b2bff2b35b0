/**
 * aws-auth principals that have no working access entry — what `API` mode ignores — and the
 * access entries that carry them over (the mapping rules of eksctl's
 * `utils migrate-to-access-entry`): node roles → `EC2_LINUX`/`EC2_WINDOWS`/`FARGATE_LINUX`, everything else
 * `STANDARD` with the same username and the non-`system:` groups, `system:masters` →
 * `AmazonEKSClusterAdminPolicy`. Pure.
 */

import type { RoleConsumer } from '../access/consumers.ts';
import { principalKey } from '../access/principal.ts';
import { entryArnOf, unknownPathText } from '../access/role-arn.ts';
import {
  ADMIN_POLICY_ARN,
  accessEntryCommands,
  eksCommand,
  principalArnFlag,
  str,
  uniqueTerraformNames,
} from '../fixes/remediation.ts';
import { accessEntriesFile, type TerraformEntry } from '../fixes/terraform-access-entries.ts';
import type { AccessEntryType } from '../model.ts';
import type { Analysis } from '../predict/analysis.ts';
import type { HclAttribute, HclItem } from '../quote/hcl.ts';
import { renderShellScript, type ShellCommand, type ShellScript, type ShellWord } from '../quote/shell.ts';
import { firstOf, kindCounts, listedLines, MAX_LISTED } from '../rules/listing.ts';
import { usernameProblem } from './migration-plan.ts';

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
export function nodeEntryTypeOf(a: Analysis, p: AwsAuthOnlyPrincipal): AccessEntryType | undefined {
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
  // a node entry EKS already has (stale, or of another type) is deleted first
  if (nodeType) return accessEntryCommands(a, p.arn, nodeType as AccessEntryType);
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

/** The access entry of a principal as the Terraform writes it (`terraform-access-entries.ts`). */
function terraformEntry(a: Analysis, p: AwsAuthOnlyPrincipal, name: string): TerraformEntry {
  const nodeType = nodeEntryTypeOf(a, p);
  const groups = groupsOf(p);
  const username = keptUsername(p, nodeType);
  return {
    name,
    principalArn: p.arn,
    type: nodeType ?? 'STANDARD',
    ...(username === undefined ? {} : { username }),
    ...(!nodeType && groups.length ? { kubernetesGroups: groups } : {}),
    ...(!nodeType && p.groups.includes('system:masters')
      ? { accessPolicies: [{ policyArn: ADMIN_POLICY_ARN, accessScope: { type: 'cluster' as const } }] }
      : {}),
  };
}

/**
 * Principals the fix writes out one command (and one `access_entries` item) each; beyond, the fix
 * is the `eks-auth-sentinel migrate` command that writes the whole plan, so a hostile aws-auth of
 * thousands of principals gives a bounded alert (6,884 principals were 2.5 MB of commands).
 */
export const MAX_FIX_PRINCIPALS = 50;

export interface AccessEntriesFix {
  cli: ShellScript;
  /** A whole file; none past MAX_FIX_PRINCIPALS (a note names `migrate --format terraform`). */
  terraform?: { hcl: HclItem[] };
  notes: string[];
}

/** `eks-auth-sentinel migrate --cluster … --region … --format <format>`: the whole plan, any size. */
function migrateCommand(a: Analysis, format: 'aws-cli' | 'terraform'): ShellCommand {
  return {
    argv: [
      'eks-auth-sentinel',
      'migrate',
      { flag: '--cluster', value: a.cluster.name },
      { flag: '--region', value: a.cluster.region },
      { flag: '--format', value: format },
    ],
  };
}

/** The `migrate --format terraform` command line, shell-quoted (a note names it: no block of its own). */
function migrateCommandText(a: Analysis): string {
  const r = renderShellScript([migrateCommand(a, 'terraform')]);
  return r.ok ? r.text : 'eks-auth-sentinel migrate --format terraform';
}

/**
 * The access entries for `principals` (roles and users: others have no entry form) as a fix: every
 * command up to MAX_FIX_PRINCIPALS, else the `migrate` command that plans them all.
 */
export function accessEntriesFix(a: Analysis, principals: readonly AwsAuthOnlyPrincipal[]): AccessEntriesFix {
  const fixable = principals.filter((p) => p.kind === 'role' || p.kind === 'user');
  const notes = [
    'Groups starting with system: cannot be given to STANDARD access entries; system:masters becomes AmazonEKSClusterAdminPolicy.',
  ];
  if (principals.some((p) => p.kind === 'account' || p.kind === 'sso'))
    notes.push(
      'mapAccounts and SSO matchers have no access-entry equivalent: create one entry per principal.',
    );
  if (fixable.length > MAX_FIX_PRINCIPALS) {
    const what = `${fixable.length} principals need an access entry, too many (over ${MAX_FIX_PRINCIPALS}) to write out in an alert`;
    return {
      cli: [
        { comment: `${what}. Write the commands for all of them, review the file, then run it:` },
        migrateCommand(a, 'aws-cli'),
      ],
      notes: [
        `${what}: \`eks-auth-sentinel migrate\` plans an access entry for each (node roles with their type, system:masters as AmazonEKSClusterAdminPolicy, the aws-auth username where EKS accepts it) and names what cannot move.`,
        `For Terraform, \`${migrateCommandText(a)} > access.tf\` writes a file with all of them.`,
        ...notes,
      ],
    };
  }
  // aws-auth names roles without their IAM path; each entry takes the role's real ARN, and a role
  // whose path the snapshot cannot tell is left out with the look-up that tells it.
  const writable: AwsAuthOnlyPrincipal[] = [];
  for (const p of fixable) {
    const arn = p.kind === 'role' ? entryArnOf(a, p.arn) : undefined;
    if (arn?.known === false) notes.push(`No access entry is written for ${p.arn}: ${unknownPathText(arn)}.`);
    else writable.push(arn === undefined ? p : { ...p, arn: arn.arn });
  }
  const names = uniqueTerraformNames(writable.map((p) => p.arn));
  for (const p of writable) {
    const why = nodeEntryTypeOf(a, p) ? undefined : usernameProblem(p.username);
    if (why !== undefined && p.username !== '')
      notes.push(`${p.arn} gets EKS's default username, not the one aws-auth gave it: ${why}.`);
  }
  return {
    cli: writable.flatMap((p) => accessEntryCommandsFor(a, p)),
    ...(writable.length > 0
      ? {
          terraform: {
            hcl: accessEntriesFile(
              a.cluster.name,
              writable.map((p, i) => terraformEntry(a, p, names[i] ?? 'principal')),
            ),
          },
        }
      : {}),
    notes,
  };
}

/**
 * The detail lines naming `principals`: all of them, or, past MAX_LISTED, the total (`intro`), the
 * first ones with node and Fargate roles first (what breaks first), and the count of the rest;
 * with the listed principals for the evidence.
 */
export function principalListing(
  a: Analysis,
  principals: readonly AwsAuthOnlyPrincipal[],
  intro: string,
): { lines: string[]; listed: AwsAuthOnlyPrincipal[]; unlisted: number } {
  const cut = principals.length > MAX_LISTED;
  const hasConsumer = (p: AwsAuthOnlyPrincipal) => consumerOfPrincipal(a, p) !== undefined;
  const ordered = cut
    ? [...principals.filter(hasConsumer), ...principals.filter((p) => !hasConsumer(p))]
    : principals;
  const { listed, unlisted } = firstOf(ordered);
  const lines = listedLines(
    ordered,
    (p) => `${p.kind} ${p.arn} → "${p.username}" ${JSON.stringify(p.groups)}`,
    {
      header: (n) =>
        `${intro} (${principals.length}: ${kindCounts(principals, (p) => p.kind)}); the first ${n}, node and Fargate roles first:`,
      more: 'principal(s)',
    },
  );
  return { lines, listed, unlisted };
}
