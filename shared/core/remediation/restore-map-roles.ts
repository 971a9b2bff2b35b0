/**
 * The mapRoles text that puts removed entries back without touching anyone else's: the entries are
 * appended to the text as it stands (every other byte kept), and the result is accepted only if the
 * authenticator-exact parser reads it as exactly the current mappings followed by the restored
 * ones. When the text cannot take an append (a flow-style or indented list), the whole key is
 * re-encoded instead — only if the current text parses without a single issue, so that no entry of
 * anyone else is dropped or changed by the rewrite. Entries already present (someone put them back
 * first) are not added twice.
 */
import { encodeMapRoles, formatRoleMappingYaml, parseAwsAuth, type RoleMapping } from '../aws-auth/index.ts';
import type { MapRolesEntry } from './plan-actions.ts';

export type RestoreText =
  | { ok: true; mapRoles: string; added: MapRolesEntry[]; alreadyPresent: MapRolesEntry[] }
  | { ok: false; reason: string };

function strip(m: RoleMapping): MapRolesEntry {
  const { location: _location, ...rest } = m;
  return rest;
}

const sameEntry = (a: MapRolesEntry, b: MapRolesEntry): boolean =>
  JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

function canonical(m: MapRolesEntry): unknown[] {
  return [m.rolearn ?? '', m.sso ?? null, m.username, m.groups, m.userid ?? ''];
}

function parsesAs(data: Record<string, string>, expected: readonly MapRolesEntry[]): boolean {
  const parsed = parseAwsAuth(data);
  if (parsed.issues.some((i) => i.dataKey === 'mapRoles')) return false;
  const roles = parsed.roles.map(strip);
  return (
    roles.length === expected.length && roles.every((r, i) => sameEntry(r, expected[i] as MapRolesEntry))
  );
}

/** `entries` put back into `data` (the ConfigMap's data as read now), or why that is not safe. */
export function restoreMapRoles(
  data: Record<string, string>,
  entries: readonly MapRolesEntry[],
): RestoreText {
  const current = parseAwsAuth(data);
  const currentText = data.mapRoles ?? '';
  const currentRoles = current.roles.map(strip);
  const alreadyPresent = entries.filter((e) => currentRoles.some((r) => sameEntry(r, e)));
  const added = entries.filter((e) => !alreadyPresent.includes(e));
  if (added.length === 0) return { ok: true, mapRoles: currentText, added, alreadyPresent };
  const mapRolesIssues = current.issues.filter((i) => i.dataKey === 'mapRoles');
  if (current.keyStatus.mapRoles === 'failed')
    return { ok: false, reason: 'mapRoles does not parse as it stands: a restore would have to rewrite it' };
  const expected = [...currentRoles, ...added];
  const appended = added.map(formatRoleMappingYaml).join('');
  const blank = currentText.trim() === '' || current.keyStatus.mapRoles !== 'ok';
  const candidates: string[] = [];
  if (blank) candidates.push(appended);
  else candidates.push(`${currentText}${currentText.endsWith('\n') ? '' : '\n'}${appended}`);
  if (mapRolesIssues.length === 0) {
    const encoded = encodeMapRoles(expected).text;
    if (encoded !== undefined) candidates.push(encoded);
  }
  for (const text of candidates) {
    if (parsesAs({ ...data, mapRoles: text }, expected))
      return { ok: true, mapRoles: text, added, alreadyPresent };
  }
  return {
    ok: false,
    reason:
      mapRolesIssues.length > 0
        ? `mapRoles has ${mapRolesIssues.length} entr${mapRolesIssues.length === 1 ? 'y' : 'ies'} the authenticator drops: rewriting it would change them, appending does not parse back`
        : 'the restored entries do not parse back as written',
  };
}
