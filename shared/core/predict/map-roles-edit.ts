/**
 * mapRoles edited by a simulated change (EKS adding or removing a node or Fargate role): decoded,
 * edited, encoded for the snapshot, and the parse of what was written handed on so that nothing
 * parses it back (`encodeMapRoles`). For a run of changes the edits can collect in a draft
 * (`MapRolesDraft`) that is encoded once.
 */
import { principalKey } from '../access/principal.ts';
import {
  encodeMapRoles,
  type ParsedAwsAuth,
  parseAwsAuthShared,
  type RoleMapping,
} from '../aws-auth/index.ts';
import type { ClusterSnapshot } from '../model.ts';

/** What one simulation knows of the aws-auth of the copy it edits. */
export interface AwsAuthEdit {
  /** The parse of the copy's current aws-auth, when known. */
  awsAuth?: ParsedAwsAuth;
  draft?: MapRolesDraft;
}

function stripLocation(m: RoleMapping): Omit<RoleMapping, 'location'> {
  const { location: _location, ...rest } = m;
  return rest;
}

type Roles = Array<Omit<RoleMapping, 'location'>>;

type Encoded = ReturnType<typeof encodeMapRoles>;

/** mapRoles re-encoded unchanged, per parse (a plan's node-group steps re-add roles already mapped). */
const unchangedEncoding = new WeakMap<ParsedAwsAuth, Encoded>();

function reencoded(parsed: ParsedAwsAuth, roles: Roles): Encoded {
  const known = unchangedEncoding.get(parsed);
  if (known !== undefined) return known;
  const encoded = encodeMapRoles(roles);
  unchangedEncoding.set(parsed, encoded);
  return encoded;
}

/**
 * The parse of aws-auth once mapRoles is rewritten to `encoded`, from the parse before the write:
 * mapRoles' mappings are those the encoding gives back, the other keys and their issues stay as
 * parsed (the write touches mapRoles only), and the encoder's mapRoles has no issue of its own.
 */
function parseAfterWrite(parsed: ParsedAwsAuth, encoded: Encoded): ParsedAwsAuth | undefined {
  if (encoded.mappings === undefined) return undefined;
  return {
    roles: encoded.mappings,
    users: parsed.users,
    accounts: parsed.accounts,
    issues: parsed.issues.filter((i) => i.dataKey !== 'mapRoles'),
    keyStatus: { ...parsed.keyStatus, mapRoles: encoded.text === undefined ? 'missing' : 'ok' },
  };
}

/**
 * mapRoles held decoded across consecutive simulated changes (a plan's node-group and Fargate
 * steps, plan/simulate-steps.ts): each `editMapRoles` edits `roles` where it would parse the
 * text and encode the result, and `writeDraft` encodes once at the end. The same text comes
 * out: decoding what `encodeAwsAuth` wrote gives back the same roles (the encode/parse property
 * test), so a chain of parse-edit-encode ends in the encoding of the last edit's roles. Until
 * written, the draft's snapshot carries the mapRoles text from before the first edit.
 */
export interface MapRolesDraft {
  /** The parse the first edit read, and the roles the last edit left (undefined before the first). */
  from?: { parsed: ParsedAwsAuth; unchanged: Roles };
  roles?: Roles;
}

/**
 * The roles a parse of their encoding gives back: the parser keeps every valid entry as it was
 * written, and these come from a parse or from EKS (a rolearn, no sso) — so all but an EKS entry
 * whose ARN is empty (the plan said `""`), which the parser drops as invalid.
 */
function readBack(roles: Roles): Roles {
  const valid = (r: Roles[number]) => (r.rolearn !== undefined && r.rolearn !== '') !== (r.sso !== undefined);
  return roles.every(valid) ? roles : roles.filter(valid);
}

/**
 * The mappings of the draft's aws-auth once written, without writing the text: the roles a parse
 * of it would give (locations without line and column: there is no text yet), the other keys and
 * their issues as parsed before the first edit (only mapRoles is edited, and the encoder's
 * mapRoles has no issue of its own beyond the invalid entries `readBack` drops). For what reads
 * mappings, not lines or issues: awsAuthLosses on the state before a write that replaces mapRoles.
 */
export function draftMappings(draft: MapRolesDraft): ParsedAwsAuth | undefined {
  const { roles, from } = draft;
  if (roles === undefined || from === undefined) return undefined;
  const { parsed } = from;
  // Edits that changed nothing (EKS re-adding a mapped role): the parse they read has the same
  // mappings as the re-encoding (only its lines and mapRoles issues are those of the old text).
  if (roles === from.unchanged) return parsed;
  return {
    roles: readBack(roles).map((r, index) => ({ ...r, location: { dataKey: 'mapRoles', index } })),
    users: parsed.users,
    accounts: parsed.accounts,
    issues: parsed.issues.filter((i) => i.dataKey !== 'mapRoles'),
    keyStatus: { ...parsed.keyStatus, mapRoles: roles.length > 0 ? 'ok' : 'missing' },
  };
}

/**
 * Writes the draft's roles into mapRoles of `s` (a copy), as the last edit would have; with the
 * parse of the written aws-auth when known without parsing it (see `Simulation.awsAuth`).
 */
export function writeDraft(
  s: ClusterSnapshot,
  draft: MapRolesDraft,
): { state: ClusterSnapshot; awsAuth?: ParsedAwsAuth } {
  const { roles, from } = draft;
  if (roles === undefined || from === undefined || s.awsAuth.status !== 'ok') return { state: s };
  const written = withMapRoles(s.awsAuth.data.data, roles, from);
  return {
    state: { ...s, awsAuth: { status: 'ok', data: { ...s.awsAuth.data, data: written.data } } },
    ...(written.parsed === undefined ? {} : { awsAuth: written.parsed }),
  };
}

function withMapRoles(
  current: Record<string, string>,
  roles: Roles,
  from: NonNullable<MapRolesDraft['from']>,
): { data: Record<string, string>; parsed?: ParsedAwsAuth } {
  const encoded = roles === from.unchanged ? reencoded(from.parsed, roles) : encodeMapRoles(roles);
  const data = { ...current };
  if (encoded.text !== undefined) data.mapRoles = encoded.text;
  else delete data.mapRoles;
  const parsed = parseAfterWrite(from.parsed, encoded);
  return parsed === undefined ? { data } : { data, parsed };
}

/**
 * Rewrite mapRoles of an ok aws-auth source (into `edits.draft` when given, the text left as it
 * was). Returns false when aws-auth cannot be edited.
 */
function editMapRoles(s: ClusterSnapshot, edit: (roles: Roles) => Roles, edits: AwsAuthEdit): boolean {
  if (s.awsAuth.status !== 'ok') return false;
  const { draft } = edits;
  let from = draft?.from;
  let current = draft?.roles === undefined ? undefined : readBack(draft.roles);
  if (from === undefined || current === undefined) {
    const parsed = edits.awsAuth ?? parseAwsAuthShared(s.awsAuth.data.data);
    if (parsed.keyStatus.mapRoles === 'failed') return false;
    current = parsed.roles.map(stripLocation);
    from = { parsed, unchanged: current };
  }
  const roles = edit(current);
  let data = s.awsAuth.data.data;
  if (draft !== undefined) {
    draft.from = from;
    draft.roles = roles;
    delete edits.awsAuth;
  } else {
    const written = withMapRoles(data, roles, from);
    data = written.data;
    if (written.parsed === undefined) delete edits.awsAuth;
    else edits.awsAuth = written.parsed;
  }
  s.awsAuth = {
    status: 'ok',
    data: {
      ...s.awsAuth.data,
      data,
      managedFields: [
        ...s.awsAuth.data.managedFields,
        { manager: 'vpcLambda', operation: 'Update', dataKeys: ['mapRoles'] },
      ],
    },
  };
  return true;
}

/** Removes every mapRoles entry of the role `key`; `count`: how many there were. */
export function removeFromMapRoles(
  s: ClusterSnapshot,
  key: string,
  edits: AwsAuthEdit,
): { edited: boolean; count: number } {
  let count = 0;
  const edited = editMapRoles(
    s,
    (roles) =>
      roles.filter((r) => {
        const hit = !!r.rolearn && principalKey(r.rolearn) === key;
        if (hit) count++;
        return !hit;
      }),
    edits,
  );
  return { edited, count };
}

export function addAwsAuthEntry(
  s: ClusterSnapshot,
  mapping: Omit<RoleMapping, 'location'>,
  edits: AwsAuthEdit,
): boolean {
  if (s.awsAuth.status === 'absent') {
    s.awsAuth = { status: 'ok', data: { data: {}, managedFields: [] } };
    delete edits.awsAuth;
  }
  const key = principalKey(mapping.rolearn ?? '');
  return editMapRoles(
    s,
    (roles) =>
      roles.some((r) => r.rolearn && r.rolearn.toLowerCase() === key) ? roles : [...roles, mapping],
    edits,
  );
}
