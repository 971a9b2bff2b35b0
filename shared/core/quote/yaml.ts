/**
 * YAML for aws-auth: one `mapRoles` or `mapUsers` list item built from a mapping object by the
 * authenticator-exact encoder (`encodeAwsAuth` / `formatRoleMappingYaml` in aws-auth), which
 * writes each scalar plain only where go-yaml v2 reads it back as the same string, single- or
 * double-quoted otherwise (a group `*nodes` becomes `'*nodes'`, not an alias), and escapes
 * invisible characters in double quotes. A lone UTF-16 surrogate has no UTF-8 form (a ConfigMap
 * holds UTF-8) and is refused. Pure.
 */
import {
  encodeAwsAuth,
  formatRoleMappingYaml,
  type RoleMapping,
  type UserMapping,
} from '../aws-auth/index.ts';
import { type Rendered, rendered, Unrepresentable } from './rendered.ts';
import { unencodableReason } from './unicode.ts';

export type AwsAuthEntry = { role: Omit<RoleMapping, 'location'> } | { user: Omit<UserMapping, 'location'> };

function strings(e: AwsAuthEntry): string[] {
  const m = 'role' in e ? e.role : e.user;
  const out = [m.username, ...m.groups];
  if (m.userid !== undefined) out.push(m.userid);
  if ('role' in e) {
    if (e.role.rolearn !== undefined) out.push(e.role.rolearn);
    if (e.role.sso !== undefined)
      out.push(e.role.sso.accountID, e.role.sso.permissionSetName, e.role.sso.partition ?? '');
  } else out.push(e.user.userarn);
  return out;
}

/** The entry as one list item of its data key (`mapRoles` or `mapUsers`), ending in a newline. */
export function renderAwsAuthEntry(e: AwsAuthEntry): Rendered {
  return rendered(() => {
    for (const s of strings(e)) {
      const why = unencodableReason(s);
      if (why !== undefined) throw new Unrepresentable(`${JSON.stringify(s)}: ${why}`);
    }
    if ('role' in e) return formatRoleMappingYaml(e.role);
    return encodeAwsAuth({ roles: [], users: [e.user], accounts: [] }).mapUsers ?? '';
  });
}
