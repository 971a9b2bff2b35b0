/**
 * The real ARN of a role — IAM path included — as an access entry must name it, from what a
 * snapshot knows. aws-auth must name a role without its path (the authenticator compares the
 * path-less ARN STS gives), but `CreateAccessEntry` takes the role's ARN as IAM has it: for a role
 * `role/eks/legacy-node`, `role/legacy-node` names no role and EKS answers 400
 * `InvalidParameterException: The specified principalArn is invalid: invalid principal`
 * (terraform-aws-modules/terraform-aws-eks#2969: an SSO role without its
 * `aws-reserved/sso.amazonaws.com/…` path). So the path is never guessed:
 *
 * 1. IAM's own answer: an `iamRoles` entry with `path` (GetRole `Role.Path`) that its ARN carries.
 * 2. Else an ARN from a source that reports the role as AWS holds it, best first: the instance
 *    profile of a running instance (compute), a node group's `nodeRole`, a Fargate profile's pod
 *    execution role, a Karpenter node class resolved through its instance profile, an existing
 *    access entry (EKS accepted it, so the role existed with that path).
 * 3. Else an ARN that carries a path where the source itself did not check it (an `iamRoles` entry
 *    of a snapshot taken before paths were recorded, a hand-written aws-auth `rolearn`): a path is
 *    never invented, only a missing one is.
 * 4. Else the path is unknown: the answer says why and gives the `aws iam get-role` that tells.
 *
 * Path-less ARNs of unchecked sources never count: an aws-auth `rolearn` (path-less by rule), a
 * Karpenter `spec.role` (a role name the capture turned into a path-less ARN), an `iamRoles`
 * entry without `path` (the ARN it was asked with). Pure.
 */

import type { ClusterSnapshot, IamRole } from '../model.ts';
import type { Analysis } from '../predict/analysis.ts';
import { renderShellScript, type ShellCommand } from '../quote/shell.ts';
import { parseArn, principalKey, roleArnHasPath, roleNameOf } from './principal.ts';

export type RoleArnSource =
  | 'IAM'
  | 'instance profile'
  | 'node group'
  | 'Fargate profile'
  | 'node class'
  | 'access entry'
  | 'aws-auth'
  /** Not a role ARN (a user keeps its path in aws-auth too): the ARN as written. */
  | 'as written';

export interface KnownEntryArn {
  known: true;
  arn: string;
  source: RoleArnSource;
}

export interface UnknownEntryArn {
  known: false;
  roleName: string;
  /** Why the snapshot cannot tell the path (prose). */
  why: string;
  /** `aws iam get-role --role-name NAME --region R --query Role.Arn --output text`. */
  lookup: ShellCommand;
}

export type EntryArn = KnownEntryArn | UnknownEntryArn;

export interface RoleArnIndex {
  /** The ARN an access entry for `arn`'s principal takes (any form of the role: path-less, sts). */
  entryArn(arn: string): EntryArn;
}

interface Candidate {
  arn: string;
  source: RoleArnSource;
  rank: number;
}

const RANK: Record<RoleArnSource, number> = {
  IAM: 0,
  'instance profile': 1,
  'node group': 2,
  'Fargate profile': 3,
  'node class': 4,
  'access entry': 5,
  'aws-auth': 6,
  'as written': 7,
};

/** `aws iam get-role … --query Role.Arn --output text`: prints the role's ARN, path included. */
export function roleLookupCommand(roleName: string, region: string): ShellCommand {
  return {
    argv: [
      'aws',
      'iam',
      'get-role',
      { flag: '--role-name', value: roleName },
      { flag: '--region', value: region },
      { flag: '--query', value: 'Role.Arn' },
      { flag: '--output', value: 'text' },
    ],
  };
}

export function roleArnIndex(s: ClusterSnapshot): RoleArnIndex {
  const fromIam = new Map<string, string>();
  const trusted = new Map<string, Candidate>();
  const withPath = new Map<string, Candidate>();
  // Thousands of nodes share a handful of role ARNs: parse each distinct string once.
  const parsed = new Map<string, { key: string; hasPath: boolean } | null>();
  const parse = (arn: string) => {
    let p = parsed.get(arn);
    if (p === undefined) {
      const role = roleNameOf(arn) !== undefined && parseArn(arn)?.service === 'iam';
      p = role ? { key: principalKey(arn), hasPath: roleArnHasPath(arn) } : null;
      parsed.set(arn, p);
    }
    return p;
  };
  const consider = (arn: string | undefined, source: RoleArnSource, checked: boolean) => {
    const p = arn ? parse(arn) : null;
    if (!arn || !p) return;
    const key = p.key;
    const c = { arn, source, rank: RANK[source] };
    const into = checked ? trusted : p.hasPath ? withPath : undefined;
    const known = into?.get(key);
    if (into && (known === undefined || c.rank < known.rank)) into.set(key, c);
  };
  const roles = s.iamRoles.status === 'ok' ? s.iamRoles.data : [];
  for (const r of roles) {
    // A capture writes GetRole's ARN with its Path; an entry whose two disagree was edited by hand.
    if (r.path !== undefined && pathOf(r.arn) === r.path) fromIam.set(principalKey(r.arn), r.arn);
    else consider(r.arn, 'IAM', false);
  }
  const classes = s.karpenterNodeClasses?.status === 'ok' ? s.karpenterNodeClasses.data : [];
  // `spec.role` is a role name: the capture wrote it as a path-less ARN, unchecked.
  const guessed = new Set<string>();
  for (const nc of classes) {
    const fromName = nc.role !== undefined && !nc.role.startsWith('arn:');
    if (fromName && nc.roleArn) guessed.add(nc.roleArn);
    consider(nc.roleArn, 'node class', !fromName);
  }
  if (s.compute.status === 'ok') {
    for (const n of s.compute.data) {
      if (!n.roleArn) continue;
      // A Karpenter node without an instance took its node class's role: as unchecked as that.
      if (n.kind === 'karpenter' && guessed.has(n.roleArn)) consider(n.roleArn, 'node class', false);
      else consider(n.roleArn, 'instance profile', true);
    }
  }
  if (s.nodegroups.status === 'ok')
    for (const g of s.nodegroups.data) consider(g.nodeRole, 'node group', true);
  if (s.fargateProfiles.status === 'ok')
    for (const p of s.fargateProfiles.data) consider(p.podExecutionRoleArn, 'Fargate profile', true);
  if (s.accessEntries.status === 'ok')
    for (const e of s.accessEntries.data) consider(e.principalArn, 'access entry', true);

  const roleByKey = new Map(roles.map((r) => [principalKey(r.arn), r] as const));
  const why = (key: string, arn: string): string => {
    const account = parseArn(arn)?.account;
    if (account !== undefined && account !== s.accountId)
      return `the role belongs to account ${account}, whose roles a capture of this cluster does not read (run the command with credentials of that account)`;
    if (s.iamRoles.status === 'error') return 'the IAM roles could not be read';
    const role = roleByKey.get(key);
    if (role?.state === 'missing') return 'IAM has no role of that name (deleted?)';
    if (role !== undefined)
      return 'IAM has the role, but this snapshot does not record its path (it was taken before paths were recorded: capture again)';
    return 'no source of the snapshot names the role with its ARN';
  };

  return {
    entryArn(arn) {
      const name = roleNameOf(arn);
      if (name === undefined) return { known: true, arn, source: 'as written' };
      const key = principalKey(arn);
      const iam = fromIam.get(key);
      if (iam !== undefined) return { known: true, arn: iam, source: 'IAM' };
      const best = trusted.get(key) ?? withPath.get(key);
      if (best !== undefined) return { known: true, arn: best.arn, source: best.source };
      // aws-auth may carry the path itself (it then never matches, aws-auth/role-arn-has-path).
      if (roleArnHasPath(arn)) return { known: true, arn, source: 'aws-auth' };
      return { known: false, roleName: name, why: why(key, arn), lookup: roleLookupCommand(name, s.region) };
    },
  };
}

/** One index per analysis: every rule of an evaluation asks the same snapshot. */
const byAnalysis = new WeakMap<Analysis, RoleArnIndex>();

/** The ARN an access entry of `a`'s cluster takes for `arn`'s principal; else the first of `more` that knows it. */
export function entryArnOf(a: Analysis, arn: string, ...more: Analysis[]): EntryArn {
  let first: EntryArn | undefined;
  for (const x of [a, ...more]) {
    let index = byAnalysis.get(x);
    if (index === undefined) {
      index = roleArnIndex(x.snapshot);
      byAnalysis.set(x, index);
    }
    const answer = index.entryArn(arn);
    if (answer.known) return answer;
    first ??= answer;
  }
  return first as EntryArn;
}

/** "The IAM path of role X is unknown (why): `aws iam get-role …` prints its ARN." */
export function unknownPathText(u: UnknownEntryArn): string {
  const command = renderShellScript([u.lookup]);
  return `the IAM path of role ${JSON.stringify(u.roleName)} is unknown (${u.why}), and an access entry needs the role's ARN with its path: EKS refuses the path-less one. ${command.ok ? `\`${command.text}\` prints the ARN` : `Look the ARN up in IAM (the command cannot be written here: ${command.reason})`}`;
}

/** `role/a/b/name` → `/a/b/` (case kept: IAM paths are case-sensitive), undefined when not a role ARN. */
function pathOf(arn: string): string | undefined {
  const resource = parseArn(arn)?.resource;
  if (resource === undefined || !resource.startsWith('role/')) return undefined;
  return resource.slice('role'.length, resource.lastIndexOf('/') + 1);
}

/**
 * The role's real ARN when `arn` names it with another IAM path than the one the snapshot knows —
 * a `CreateAccessEntry` EKS refuses (`InvalidParameterException`) —, else undefined.
 */
export function refusedEntryArn(index: RoleArnIndex, arn: string): string | undefined {
  const asked = pathOf(arn);
  if (asked === undefined) return undefined;
  const real = index.entryArn(arn);
  if (!real.known || real.source === 'as written') return undefined;
  return pathOf(real.arn) === asked ? undefined : real.arn;
}

/**
 * What IAM holds of the role `arn` names, as far as the snapshot knows it (its real ARN and path),
 * for a state that keeps nothing else of the cluster (preapply's batched entry changes).
 */
export function knownIamRole(index: RoleArnIndex, arn: string): IamRole | undefined {
  const real = index.entryArn(arn);
  const path = real.known && real.source !== 'as written' ? pathOf(real.arn) : undefined;
  return real.known && path !== undefined ? { arn: real.arn, state: 'exists', path } : undefined;
}
