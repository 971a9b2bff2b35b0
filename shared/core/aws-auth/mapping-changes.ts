/**
 * What an aws-auth write changed in what the authenticator maps: the entries of the state before
 * that the state after no longer maps (`removed`), the ones it maps anew (`added`), and the ones
 * mapped to another username or other groups (`changed`). Entries are keyed as the authenticator
 * looks them up: role and user ARNs case-insensitively, an SSO matcher by its account and
 * permission set, accounts as written; the last duplicate wins, as in the authenticator.
 *
 * Entries keep every field as written (locations dropped), so that a caller can put back exactly
 * what was removed. A key that does not parse after the write maps nothing: its entries are
 * `removed` (the authenticator keeps zero mappings of it). Pure.
 */
import type { ParsedAwsAuth, RoleMapping, UserMapping } from './parse-result.ts';

export type AwsAuthMappingEntry =
  | { dataKey: 'mapRoles'; arn: string; role: Omit<RoleMapping, 'location'> }
  | { dataKey: 'mapUsers'; arn: string; user: Omit<UserMapping, 'location'> }
  | { dataKey: 'mapAccounts'; arn: string };

export interface AwsAuthMappingEntryChange {
  before: AwsAuthMappingEntry;
  after: AwsAuthMappingEntry;
}

export interface AwsAuthMappingChanges {
  removed: AwsAuthMappingEntry[];
  added: AwsAuthMappingEntry[];
  changed: AwsAuthMappingEntryChange[];
}

function withoutLocation<T extends { location: unknown }>(m: T): Omit<T, 'location'> {
  const { location: _location, ...rest } = m;
  return rest;
}

function roleKey(r: RoleMapping): string {
  if (r.rolearn !== undefined) return r.rolearn.toLowerCase();
  return `sso:${r.sso?.partition ?? ''}:${r.sso?.accountID ?? ''}/${r.sso?.permissionSetName ?? ''}`;
}

/** Every effective entry of a parse, by `dataKey` + key, file order, the last duplicate's fields. */
function entriesOf(p: ParsedAwsAuth | undefined): Map<string, AwsAuthMappingEntry> {
  const out = new Map<string, AwsAuthMappingEntry>();
  if (p === undefined) return out;
  for (const r of p.roles) {
    const arn = r.rolearn ?? `sso:${r.sso?.accountID ?? ''}/${r.sso?.permissionSetName ?? ''}`;
    out.set(`mapRoles\u0000${roleKey(r)}`, { dataKey: 'mapRoles', arn, role: withoutLocation(r) });
  }
  for (const u of p.users) {
    out.set(`mapUsers\u0000${u.userarn.toLowerCase()}`, {
      dataKey: 'mapUsers',
      arn: u.userarn,
      user: withoutLocation(u),
    });
  }
  for (const a of p.accounts) out.set(`mapAccounts\u0000${a}`, { dataKey: 'mapAccounts', arn: a });
  return out;
}

function mappedAs(e: AwsAuthMappingEntry): string {
  const m = e.dataKey === 'mapRoles' ? e.role : e.dataKey === 'mapUsers' ? e.user : undefined;
  return m === undefined ? '' : JSON.stringify([m.username, m.groups]);
}

/** The entries of `before` and `after` compared; `undefined` is an aws-auth that does not exist. */
export function awsAuthMappingChanges(
  before: ParsedAwsAuth | undefined,
  after: ParsedAwsAuth | undefined,
): AwsAuthMappingChanges {
  const b = entriesOf(before);
  const a = entriesOf(after);
  const removed: AwsAuthMappingEntry[] = [];
  const added: AwsAuthMappingEntry[] = [];
  const changed: AwsAuthMappingEntryChange[] = [];
  for (const [key, entry] of b) {
    const now = a.get(key);
    if (now === undefined) removed.push(entry);
    else if (mappedAs(now) !== mappedAs(entry)) changed.push({ before: entry, after: now });
  }
  for (const [key, entry] of a) if (!b.has(key)) added.push(entry);
  return { removed, added, changed };
}
