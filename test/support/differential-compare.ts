/**
 * Compares the project's parseAwsAuth with the Go reference on one document and names the kind
 * of disagreement, so that thousands of disagreements read as a short list of classes.
 * Compared (issue 9): per key ok/failed (and missing/empty), and the effective role, user and
 * account mappings in order.
 */
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import { NON_ASCII_NAME_RE } from './aws-auth-gen.ts';
import { AWS_AUTH_KEYS, type AwsAuthKey, type GoResult } from './go-reference.ts';

type Status = 'missing' | 'empty' | 'ok' | 'failed';

export interface Comparable {
  status: Record<AwsAuthKey, Status>;
  roles: unknown[];
  users: unknown[];
  accounts: string[];
  /** Why a key failed, in a few words (digits and quoted text removed), per key. */
  why: Partial<Record<AwsAuthKey, string>>;
}

const role = (r: {
  rolearn?: string | undefined;
  sso?: { permissionSetName: string; accountID: string; partition?: string | undefined } | undefined;
  username: string;
  groups: string[] | null;
  userid?: string | undefined;
}) => ({
  rolearn: r.rolearn ?? '',
  sso: r.sso
    ? {
        permissionSetName: r.sso.permissionSetName,
        accountID: r.sso.accountID,
        partition: r.sso.partition ?? '',
      }
    : null,
  username: r.username,
  groups: r.groups ?? [],
  userid: r.userid ?? '',
});

const user = (u: {
  userarn: string;
  username: string;
  groups: string[] | null;
  userid?: string | undefined;
}) => ({
  userarn: u.userarn,
  username: u.username,
  groups: u.groups ?? [],
  userid: u.userid ?? '',
});

/** An error message reduced to its kind: no line/column numbers, no quoted input. */
export function errorKind(message: string | undefined): string {
  if (!message) return '';
  return message
    .replace(/^yaml: (line \d+: )?/, '')
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '…')
    .replace(/\b(line|column|col)\s*\d+/gi, '$1 N')
    .replace(/\d+/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 70);
}

export function fromGo(go: GoResult): Comparable {
  const status = {} as Record<AwsAuthKey, Status>;
  const why: Comparable['why'] = {};
  for (const key of AWS_AUTH_KEYS) {
    const k = go.keys[key];
    const s = k?.status ?? 'missing';
    status[key] = s === 'skipped' ? 'empty' : s === 'ok' && k?.top === 'null' ? 'empty' : s;
    if (s === 'failed') why[key] = errorKind(k?.error);
  }
  return { status, roles: go.roles.map(role), users: go.users.map(user), accounts: go.accounts, why };
}

/** The parser under test: parseAwsAuth unless a caller (e.g. a front end not yet wired in) passes another. */
export type AwsAuthParser = (data: Record<string, string>) => ReturnType<typeof parseAwsAuth>;

export function fromProject(data: Record<string, string>, parse: AwsAuthParser = parseAwsAuth): Comparable {
  const parsed = parse(data);
  const why: Comparable['why'] = {};
  for (const key of AWS_AUTH_KEYS) {
    if (parsed.keyStatus[key] !== 'failed') continue;
    const issue = parsed.issues.find((i) => i.dataKey === key && i.kind === 'key-parse-failure');
    // Keep the YAML library's own words (after "…, so the authenticator keeps none …: ").
    why[key] = errorKind(issue?.message.replace(/^.*?, so the authenticator [^:]*: /, ''));
  }
  return {
    status: { ...parsed.keyStatus },
    roles: parsed.roles.map(role),
    users: parsed.users.map(user),
    accounts: parsed.accounts,
    why,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function whatDiffers(go: unknown[], ours: unknown[]): string {
  if (go.length !== ours.length) return go.length > ours.length ? 'go keeps more' : 'ours keeps more';
  if (go.some((g) => typeof g !== 'object' || g === null)) return 'values';
  const fields = new Set<string>();
  go.forEach((g, i) => {
    const o = ours[i] as Record<string, unknown>;
    for (const [f, v] of Object.entries(g as Record<string, unknown>)) if (!same(v, o[f])) fields.add(f);
  });
  return [...fields].join('+') || 'order';
}

/**
 * The disagreement classes of one document (empty when Go and the project agree). A class names
 * the key, then either both statuses (with Go's or our error kind for a failed key) or what
 * differs in the mappings.
 */
export function classify(go: Comparable, ours: Comparable): string[] {
  const classes: string[] = [];
  const lists: Record<AwsAuthKey, 'roles' | 'users' | 'accounts'> = {
    mapRoles: 'roles',
    mapUsers: 'users',
    mapAccounts: 'accounts',
  };
  for (const key of AWS_AUTH_KEYS) {
    const gs = go.status[key];
    const os = ours.status[key];
    if (gs !== os) {
      const g = gs === 'failed' ? ` (${go.why[key]})` : '';
      const o = os === 'failed' ? ` (${ours.why[key]})` : '';
      classes.push(`${key}: go ${gs}${g}, ours ${os}${o}`);
      continue;
    }
    const list = lists[key];
    const g = go[list] as unknown[];
    const o = ours[list] as unknown[];
    if (!same(g, o)) classes.push(`${key}: both ${gs}, ${list} differ (${whatDiffers(g, o)})`);
  }
  return classes;
}

/** Compares one document; a parser that throws is a disagreement of its own. */
export function compareDocument(
  data: Record<string, string>,
  go: GoResult,
  parse: AwsAuthParser = parseAwsAuth,
): string[] {
  if (go.crash) return [`go reference crashed: ${errorKind(go.crash)}`];
  let ours: Comparable;
  try {
    ours = fromProject(data, parse);
  } catch (e) {
    return [`parseAwsAuth threw: ${errorKind(String(e))}`];
  }
  return classify(fromGo(go), ours);
}

/**
 * The issue's three families, from a class name: `missed` (the authenticator keeps less than the
 * project reports: a missed outage), `false-alarm` (the project reports a failure the
 * authenticator does not have), `mappings` (both load, different mappings), `other`.
 */
export function family(name: string): 'missed' | 'false-alarm' | 'mappings' | 'other' {
  if (/go failed[^,]*, ours ok|go keeps less|ours keeps more/.test(name)) return 'missed';
  if (/go (ok|empty)[^,]*, ours failed/.test(name)) return 'false-alarm';
  if (/both \w+, \w+ differ/.test(name)) return 'mappings';
  return 'other';
}

/** Features of a document that commonly explain a disagreement (shown next to examples). */
export function features(data: Record<string, string>): string[] {
  const text = Object.values(data).join('\n');
  const found: string[] = [];
  const checks: Array<[string, RegExp]> = [
    ['bom', /\ufeff/],
    ['nel/ls/ps', /[\u0085\u2028\u2029]/],
    ['crlf', /\r\n/],
    ['lone-cr', /\r(?!\n)/],
    ['tab', /\t/],
    ['directive', /^%/m],
    ['doc-marker', /^(---|\.\.\.)/m],
    ['escape', /\\[/xuUNq]/],
    ['anchor', /&\w/],
    ['alias', /\*\w/],
    ['tag', /!/],
    ['comment', /#/],
    ['block-scalar', /[|>][-+\d]*\s*$/m],
    ['flow', /[[{]/],
    ['non-ascii-name', NON_ASCII_NAME_RE],
    ['no-final-newline', /[^\n]$/],
  ];
  for (const [name, re] of checks) if (re.test(text)) found.push(name);
  return found;
}
