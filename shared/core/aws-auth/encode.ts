/**
 * Encoding: go-yaml v2 Marshal of []RoleMapping / []UserMapping / []string, with scalars quoted
 * only where go-yaml would quote them (`encodeAwsAuth`, `formatRoleMappingYaml`).
 */
import { INVISIBLE_FORMAT } from '../quote/unicode.ts';
import { toMapping } from './entry-memo.ts';
import { resolve, STR_TAG } from './goyaml/resolve.ts';
import type { AwsAuthMappings, RoleMapping, UserMapping } from './parse-result.ts';

function isYamlPrintable(cp: number): boolean {
  // libyaml `is_printable` as go-yaml v2 implements it (4-byte UTF-8 counts as not printable),
  // minus the invisible format characters (bidi overrides, zero-width): those are written as
  // escapes in double quotes, so that a pasted fix shows them.
  return (
    (cp === 0x0a ||
      (cp >= 0x20 && cp <= 0x7e) ||
      (cp >= 0xa0 && cp <= 0xd7ff) ||
      (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)) &&
    !INVISIBLE_FORMAT.test(String.fromCharCode(cp))
  );
}

const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** Whether libyaml's emitter accepts `s` as a plain scalar in block context (`yaml_emitter_analyze_scalar`). */
function blockPlainAllowed(s: string): boolean {
  if (s === '' || s.startsWith('---') || s.startsWith('...')) return false;
  // Fast path: the usual ARN/username/group text.
  if (/^[A-Za-z0-9][A-Za-z0-9/_.@=+-]*$/.test(s)) return true;
  const chars = [...s];
  if (chars[0] === ' ' || chars[chars.length - 1] === ' ') return false;
  const blank = (c: string | undefined) =>
    c === undefined || c === ' ' || c === '\t' || c === '\n' || c === '\r';
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? '';
    const cp = c.codePointAt(0) ?? 0;
    if (!isYamlPrintable(cp) || cp === 0x0a || cp === 0x85 || cp === 0x2028 || cp === 0x2029) return false;
    const next = chars[i + 1];
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) return false;
      if ((c === '?' || c === ':' || c === '-') && blank(next)) return false;
    } else {
      if (c === ':' && blank(next)) return false;
      if (c === '#' && blank(chars[i - 1])) return false;
    }
  }
  return true;
}

function singleQuotedAllowed(s: string): boolean {
  for (const c of s) {
    const cp = c.codePointAt(0) ?? 0;
    if (!isYamlPrintable(cp) || cp === 0x0a) return false;
  }
  return true;
}

const NAMED_ESCAPES = new Map<number, string>([
  [0x00, '\\0'],
  [0x07, '\\a'],
  [0x08, '\\b'],
  [0x09, '\\t'],
  [0x0a, '\\n'],
  [0x0b, '\\v'],
  [0x0c, '\\f'],
  [0x0d, '\\r'],
  [0x1b, '\\e'],
  [0x22, '\\"'],
  [0x5c, '\\\\'],
  [0x85, '\\N'],
  [0x2028, '\\L'],
  [0x2029, '\\P'],
]);

function doubleQuoted(s: string): string {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0) ?? 0;
    const esc = NAMED_ESCAPES.get(cp);
    if (esc !== undefined) out += esc;
    else if (isYamlPrintable(cp)) out += c;
    else if (cp <= 0xff) out += `\\x${cp.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).toUpperCase().padStart(8, '0')}`;
  }
  return `${out}"`;
}

/**
 * A string as go-yaml v2 would emit it: plain when it reads back as the same string, single-quoted
 * when plain is not allowed (e.g. leading `{`), double-quoted when it would resolve to another type
 * (`"012345678912"`, `""`, `"true"`) or needs escapes. Multi-line strings are double-quoted here
 * (go-yaml uses a literal block) and long lines are not folded: both read back identically.
 */
function yamlScalar(s: string): string {
  // Untagged, so go-yaml's resolve never fails here.
  const resolvesToStr = resolve('', s).tag === STR_TAG;
  if (!resolvesToStr || BASE60_FLOAT.test(s)) return doubleQuoted(s);
  if (blockPlainAllowed(s)) return s;
  if (singleQuotedAllowed(s) && !/[\n\r\u0085\u2028\u2029]/.test(s)) return `'${s.replaceAll("'", "''")}'`;
  return doubleQuoted(s);
}

function listItem(lines: string[]): string {
  return `${lines.map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`)).join('\n')}\n`;
}

function groupLines(groups: readonly string[], indent: string): string[] {
  if (groups.length === 0) return ['groups: []'];
  return ['groups:', ...groups.map((g) => `${indent}- ${yamlScalar(g)}`)];
}

function roleLines(r: Omit<RoleMapping, 'location'>, groupIndent: string): string[] {
  const lines: string[] = [];
  if (r.rolearn !== undefined && r.rolearn !== '') lines.push(`rolearn: ${yamlScalar(r.rolearn)}`);
  if (r.sso !== undefined) {
    lines.push('sso:');
    lines.push(`  permissionSetName: ${yamlScalar(r.sso.permissionSetName)}`);
    lines.push(`  accountID: ${yamlScalar(r.sso.accountID)}`);
    if (r.sso.partition !== undefined && r.sso.partition !== '')
      lines.push(`  partition: ${yamlScalar(r.sso.partition)}`);
  }
  lines.push(`username: ${yamlScalar(r.username)}`);
  lines.push(...groupLines(r.groups, groupIndent));
  if (r.userid !== undefined && r.userid !== '') lines.push(`userid: ${yamlScalar(r.userid)}`);
  return lines;
}

function userLines(u: Omit<UserMapping, 'location'>): string[] {
  const lines = [`userarn: ${yamlScalar(u.userarn)}`, `username: ${yamlScalar(u.username)}`];
  lines.push(...groupLines(u.groups, ''));
  if (u.userid !== undefined && u.userid !== '') lines.push(`userid: ${yamlScalar(u.userid)}`);
  return lines;
}

/**
 * Encodes mappings as the ConfigMap `data` values, like upstream `EncodeMap`: keys whose list is
 * empty are omitted; field order rolearn/sso, username, groups, userid.
 */
export function encodeAwsAuth(m: AwsAuthMappings): Record<string, string> {
  const out: Record<string, string> = {};
  if (m.roles.length > 0) out.mapRoles = encodeMapRoles(m.roles).text as string;
  if (m.users.length > 0) out.mapUsers = m.users.map((u) => listItem(userLines(u))).join('');
  if (m.accounts.length > 0) out.mapAccounts = m.accounts.map((a) => `- ${yamlScalar(a)}\n`).join('');
  return out;
}

/**
 * `mapRoles` as `encodeAwsAuth` writes it (undefined for no roles), with the mappings a parse of
 * that text gives back: the same roles, each located where the encoder put it (every scalar is
 * written on one line, so an entry's first line is known from the line counts before it; its
 * first key is at column 3, after `- `). Undefined mappings when a role is not valid (no rolearn
 * and no sso, or both): the parser drops it with an issue, so only a parse of the text says what
 * comes back. For a simulated write, which reads its mappings from here instead of parsing the
 * text it just wrote (the encode/parse property test holds the two equal).
 */
export function encodeMapRoles(roles: ReadonlyArray<Omit<RoleMapping, 'location'>>): {
  text: string | undefined;
  mappings: RoleMapping[] | undefined;
} {
  if (roles.length === 0) return { text: undefined, mappings: [] };
  let text = '';
  let line = 1;
  let mappings: RoleMapping[] | undefined = [];
  roles.forEach((r, index) => {
    const lines = roleLines(r, '');
    text += listItem(lines);
    const arn = r.rolearn !== undefined && r.rolearn !== '';
    if (arn === (r.sso !== undefined)) mappings = undefined;
    else if (mappings !== undefined) {
      // Built as the parser builds it from the decoded entry (its fields in the parser's order).
      const entry = {
        arn: r.rolearn ?? '',
        sso: r.sso === undefined ? null : { ...r.sso, partition: r.sso.partition ?? '' },
        username: r.username,
        groups: r.groups,
        userid: r.userid ?? '',
      };
      const made = toMapping('mapRoles', entry, { dataKey: 'mapRoles', index, line, column: 3 });
      if ('role' in made) mappings.push(made.role);
    }
    line += lines.length;
  });
  return { text, mappings };
}

/**
 * One `mapRoles` list item as a user would paste it (groups indented under the key, as in the
 * EKS docs); values that YAML would misread, such as a leading `{`, are quoted.
 */
export function formatRoleMappingYaml(mapping: Omit<RoleMapping, 'location'>): string {
  return listItem(roleLines(mapping, '  '));
}
