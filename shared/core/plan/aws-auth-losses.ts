/**
 * What a new aws-auth takes away: every mapping the authenticator applies now (last duplicate
 * wins, invalid entries dropped) that it would no longer apply, why (the key does not parse, the
 * entry is gone or changed), whether EKS added it (a managed node group's or Fargate profile's
 * entry, which the tool owning aws-auth does not know about), and which compute it serves.
 */

import { nodeCountOf } from '../access/consumers.ts';
import { principalKey } from '../access/principal.ts';
import { NODE_USERNAME, SESSION_NODE_USERNAME } from '../access/resolve.ts';
import type { AwsAuthKey, RoleMapping, UserMapping } from '../aws-auth/index.ts';
import type { Analysis } from '../predict/analysis.ts';
import type { SimulationEffect } from '../predict/simulate.ts';

export interface AwsAuthLoss {
  dataKey: AwsAuthKey;
  /** The ARN (or `sso:…`, or the account) as written. */
  arn: string;
  username?: string;
  groups?: string[];
  /** `unmapped`: no longer mapped at all; `changed`: mapped differently. */
  kind: 'unmapped' | 'changed';
  reason: string;
  /** The node group or Fargate profile EKS added this entry for. */
  eksAddedFor?: string;
  /** Who depends on the role: node groups, Fargate profiles, EC2NodeClasses, node count. */
  serves: string[];
}

/** Maps a line inside a data key's value to the line of the file it came from, when known. */
export type LineMapper = (dataKey: string, line: number) => number | undefined;

function sameGroups(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((g, i) => g === b[i]);
}

function failureOf(a: Analysis, dataKey: AwsAuthKey, lineOf: LineMapper | undefined): string | undefined {
  if (a.awsAuth === undefined) return 'aws-auth is deleted';
  if (a.awsAuth.keyStatus[dataKey] !== 'failed') return undefined;
  const issue = a.awsAuth.issues.find((i) => i.dataKey === dataKey && i.kind === 'key-parse-failure');
  const line = issue?.line;
  const fileLine = line === undefined ? undefined : lineOf?.(dataKey, line);
  const at =
    line === undefined
      ? ''
      : fileLine === undefined
        ? ` at line ${line} of its value`
        : ` at line ${fileLine} (line ${line} of its value)`;
  return `${dataKey} does not parse${at}${issue ? `: ${issue.message}` : ''}`;
}

function serves(b: Analysis, arn: string): string[] {
  const c = b.consumers.byRole.get(principalKey(arn));
  if (c === undefined) return [];
  const count = nodeCountOf(c);
  return [
    ...c.nodegroups.map((n) => `node group ${n}`),
    ...c.fargateProfiles.map((f) => `Fargate profile ${f}`),
    ...c.nodeClasses.map((n) => `EC2NodeClass ${n}`),
    ...(count > 0 ? [`${count} node(s)`] : []),
  ];
}

function eksAddedFor(b: Analysis, m: RoleMapping): string | undefined {
  if (m.rolearn === undefined) return undefined;
  const key = principalKey(m.rolearn);
  const s = b.snapshot;
  if (m.username === NODE_USERNAME && s.nodegroups.status === 'ok') {
    const ng = s.nodegroups.data.find((n) => principalKey(n.nodeRole) === key);
    if (ng) return `node group ${ng.name}`;
  }
  if (m.username === SESSION_NODE_USERNAME && s.fargateProfiles.status === 'ok') {
    const fp = s.fargateProfiles.data.find((p) => principalKey(p.podExecutionRoleArn) === key);
    if (fp) return `Fargate profile ${fp.name}`;
  }
  return undefined;
}

function compare(
  b: Analysis,
  before: RoleMapping | UserMapping,
  now: RoleMapping | UserMapping | undefined,
  arn: string,
  failure: string | undefined,
): AwsAuthLoss | undefined {
  if (now !== undefined && now.username === before.username && sameGroups(now.groups, before.groups))
    return undefined;
  // Only for a loss: a 10k-entry aws-auth that keeps its entries costs no consumer look-ups.
  const dataKey = before.location.dataKey;
  const eks = 'userarn' in before ? undefined : eksAddedFor(b, before);
  const base = {
    dataKey,
    arn,
    username: before.username,
    groups: before.groups,
    serves: serves(b, arn),
    ...(eks === undefined ? {} : { eksAddedFor: eks }),
  };
  if (now === undefined) {
    return { ...base, kind: 'unmapped', reason: failure ?? `the entry is not in the new ${dataKey}` };
  }
  return {
    ...base,
    kind: 'changed',
    reason: `mapped as "${now.username}" ${JSON.stringify(now.groups)} instead of "${before.username}" ${JSON.stringify(before.groups)}`,
  };
}

/** Every effective mapping of `b` that `a` no longer applies the same way. */
export function awsAuthLosses(b: Analysis, a: Analysis, lineOf?: LineMapper): AwsAuthLoss[] {
  if (b.awsAuth === undefined) return [];
  const out: AwsAuthLoss[] = [];
  const roleFailure = failureOf(a, 'mapRoles', lineOf);
  for (const [key, m] of b.index.roles) {
    const loss = compare(b, m, a.index.roles.get(key), m.rolearn ?? key, roleFailure);
    if (loss) out.push(loss);
  }
  for (const m of b.index.ssoRoles) {
    const id = `sso:${m.sso?.accountID}/${m.sso?.permissionSetName}`;
    const now = a.index.ssoRoles.find(
      (r) => r.sso?.accountID === m.sso?.accountID && r.sso?.permissionSetName === m.sso?.permissionSetName,
    );
    const loss = compare(b, m, now, id, roleFailure);
    if (loss) out.push(loss);
  }
  const userFailure = failureOf(a, 'mapUsers', lineOf);
  for (const [key, m] of b.index.usersByKey) {
    const loss = compare(b, m, a.index.usersByKey.get(key), m.userarn, userFailure);
    if (loss) out.push(loss);
  }
  const accountFailure = failureOf(a, 'mapAccounts', lineOf);
  for (const account of b.index.accounts) {
    if (a.index.accounts.has(account)) continue;
    out.push({
      dataKey: 'mapAccounts',
      arn: account,
      kind: 'unmapped',
      reason: accountFailure ?? 'the account is not in the new mapAccounts',
      serves: [],
    });
  }
  return out;
}

const ROLE_ARN_IN_TEXT = /\brolearn\s*:\s*["']?(arn:[^\s"'#,}]+)/gi;

/** Role ARNs written in a key's text that does not parse: what the author meant to map. */
export function roleArnsNamedIn(text: string): string[] {
  return [...new Set([...text.matchAll(ROLE_ARN_IN_TEXT)].map((m) => m[1] ?? ''))].filter(Boolean);
}

/** The losses as simulation effects, one line each, then the roles a broken mapRoles names. */
export function awsAuthLossEffects(
  b: Analysis,
  a: Analysis,
  lineOf?: LineMapper,
): { losses: AwsAuthLoss[]; effects: SimulationEffect[] } {
  if (a.mode === 'API') {
    return {
      losses: [],
      effects: [{ summary: 'the cluster runs in API mode: aws-auth is ignored', assumed: false }],
    };
  }
  const losses = awsAuthLosses(b, a, lineOf);
  const effects: SimulationEffect[] = losses.map((l) => ({
    summary: [
      `aws-auth ${l.dataKey}: ${l.arn}${l.username === undefined ? '' : ` ("${l.username}")`} is ${l.kind === 'unmapped' ? 'unmapped' : 'changed'}: ${l.reason}`,
      l.eksAddedFor === undefined ? '' : `; EKS added this entry for ${l.eksAddedFor}`,
      l.serves.length === 0 ? '' : `; it serves ${l.serves.join(', ')}`,
    ].join(''),
    assumed: false,
  }));
  const raw = a.snapshot.awsAuth.status === 'ok' ? a.snapshot.awsAuth.data.data.mapRoles : undefined;
  if (a.awsAuth?.keyStatus.mapRoles === 'failed' && raw !== undefined) {
    const named = roleArnsNamedIn(raw);
    if (named.length > 0) {
      effects.push({
        summary: `the new mapRoles names ${named.length} role(s), none of which the authenticator would map: ${named.join(', ')}`,
        assumed: false,
      });
    }
  }
  return { losses, effects };
}
