/**
 * The authenticator's `ParseMap` for one data key (kubernetes-sigs/aws-iam-authenticator
 * `pkg/mapper/configmap/configmap.go`), over the go-yaml port: `isSkippable`, apimachinery's
 * `utilyaml.ToJSON`, `encoding/json` `Unmarshal` into `[]config.RoleMapping` /
 * `[]config.UserMapping` (field names folded by Go 1.26 `fold.go`'s rule, last duplicate wins, slices
 * reused across duplicates, `*SSOARNMatcher` allocated before a type mismatch, type errors
 * recorded while decoding goes on, the first one returned), then `Validate()` per entry.
 */
import { goFold } from '../go-text.ts';
import { unmarshalGoYaml, unmarshalGoYamlStrings } from './decode.ts';
import type {
  AwsAuthDataKey,
  AwsAuthKeyDecode,
  GoRoleMapping,
  GoUserMapping,
  JsonValue,
} from './go-values.ts';
import { yamlToJson } from './yaml-to-json.ts';

/** `pkg/endpoints/partitions.go` PARTITIONS at the authenticator's HEAD (81b1dab). */
export const GO_SSO_PARTITIONS: readonly string[] = [
  'aws',
  'aws-cn',
  'aws-us-gov',
  'aws-iso',
  'aws-iso-b',
  'aws-iso-e',
  'aws-iso-f',
  'aws-eusc',
];

/** Go `unicode.IsSpace`. */
export function isGoSpace(cp: number): boolean {
  if (cp <= 0xff)
    return (
      cp === 0x09 ||
      cp === 0x0a ||
      cp === 0x0b ||
      cp === 0x0c ||
      cp === 0x0d ||
      cp === 0x20 ||
      cp === 0x85 ||
      cp === 0xa0
    );
  return (
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

/** Go `strings.TrimSpace`. */
export function goTrimSpace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isGoSpace(s.charCodeAt(a))) a++;
  while (b > a && isGoSpace(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}

/** configmap.go `isSkippable`. */
export function isSkippable(data: string): boolean {
  const t = goTrimSpace(data);
  return t === '' || t === '``' || t === '""' || t === "''";
}

/**
 * encoding/json field-name folding as the authenticator runs it: upstream is built with Go 1.26,
 * whose fold.go `foldName` folds each rune to the smallest rune of its `unicode.SimpleFold` orbit
 * (so `ſ` folds to S and Kelvin `K` to K, while `ı` and `İ` fold to no ASCII letter). `goFold` in
 * ../go-text.ts is that rule for keys matched against ASCII field names; the reference program
 * builds with the same rule (tools/go-reference/build.sh).
 */
export function goJsonFold(name: string, key: string): boolean {
  return goFold(key) === name.toUpperCase();
}

/** A Go slice of strings: `len` elements of `b` are visible, `b.length` is the capacity. */
interface GoSlice {
  b: string[];
  len: number;
}

interface RawSso {
  permissionSetName: string;
  accountID: string;
  partition: string;
}

interface RawEntry {
  arn: string;
  sso: RawSso | null;
  username: string;
  groups: GoSlice | null;
  userid: string;
}

type JsonKind = JsonValue['t'];

const JSON_KIND_NAMES: Record<JsonKind, string> = {
  null: 'null',
  string: 'string',
  number: 'number',
  bool: 'bool',
  object: 'object',
  array: 'array',
};

/** `json.Unmarshal` into `[]config.RoleMapping` / `[]config.UserMapping`. */
class StructDecoder {
  firstError: string | undefined;
  private readonly typeName: 'RoleMapping' | 'UserMapping';

  constructor(private readonly key: 'mapRoles' | 'mapUsers') {
    this.typeName = key === 'mapRoles' ? 'RoleMapping' : 'UserMapping';
  }

  private typeError(got: JsonValue, goType: string, struct?: string, field?: string): void {
    if (this.firstError !== undefined) return;
    const where = struct !== undefined ? `Go struct field ${struct}.${field}` : 'Go value';
    this.firstError = `json: cannot unmarshal ${JSON_KIND_NAMES[got.t]} into ${where} of type ${goType}`;
  }

  decode(v: JsonValue): RawEntry[] {
    if (v.t === 'null') return [];
    if (v.t !== 'array') {
      this.typeError(v, `[]config.${this.typeName}`);
      return [];
    }
    return v.items.map((item) => this.entry(item));
  }

  private entry(v: JsonValue): RawEntry {
    const e: RawEntry = { arn: '', sso: null, username: '', groups: null, userid: '' };
    if (v.t === 'null') return e;
    if (v.t !== 'object') {
      this.typeError(v, `config.${this.typeName}`);
      return e;
    }
    const fields = this.key === 'mapRoles' ? ROLE_FIELDS : USER_FIELDS;
    const t = this.typeName;
    for (const { key, value } of v.entries) {
      const f = matchField(key, fields);
      if (f === 'rolearn' || f === 'userarn') e.arn = this.string(value, e.arn, t, f);
      else if (f === 'username') e.username = this.string(value, e.username, t, f);
      else if (f === 'userid') e.userid = this.string(value, e.userid, t, f);
      else if (f === 'groups') e.groups = this.strings(value, e.groups, t, f);
      else if (f === 'sso') e.sso = this.sso(value, e.sso);
    }
    return e;
  }

  private string(v: JsonValue, cur: string, struct: string, field: string): string {
    if (v.t === 'string') return v.v;
    if (v.t !== 'null') this.typeError(v, 'string', struct, field);
    return cur;
  }

  private strings(v: JsonValue, cur: GoSlice | null, struct: string, field: string): GoSlice | null {
    if (v.t === 'null') return null;
    if (v.t !== 'array') {
      this.typeError(v, '[]string', struct, field);
      return cur;
    }
    let s: GoSlice = cur ?? { b: [], len: 0 };
    let i = 0;
    for (const item of v.items) {
      if (i >= s.b.length) {
        let cap = s.b.length + Math.floor(s.b.length / 2);
        if (cap < 4) cap = 4;
        const b = new Array<string>(cap).fill('');
        for (let k = 0; k < s.len; k++) b[k] = s.b[k] as string;
        s = { b, len: s.len };
      }
      if (i >= s.len) s.len = i + 1;
      s.b[i] = this.string(item, s.b[i] as string, struct, field);
      i++;
    }
    if (i < s.len) s.len = i;
    if (i === 0) s = { b: [], len: 0 };
    return s;
  }

  private sso(v: JsonValue, cur: RawSso | null): RawSso | null {
    if (v.t === 'null') return null;
    // encoding/json's `indirect` allocates the pointer before it looks at the value's kind.
    const sso = cur ?? { permissionSetName: '', accountID: '', partition: '' };
    if (v.t !== 'object') {
      this.typeError(v, 'config.SSOARNMatcher', this.typeName, 'sso');
      return sso;
    }
    for (const { key, value } of v.entries) {
      const f = matchField(key, SSO_FIELDS);
      if (f !== undefined) sso[f] = this.string(value, sso[f], 'SSOARNMatcher', `sso.${f}`);
    }
    return sso;
  }
}

const ROLE_FIELDS = ['rolearn', 'sso', 'username', 'groups', 'userid'] as const;
const USER_FIELDS = ['userarn', 'username', 'groups', 'userid'] as const;
const SSO_FIELDS = ['permissionSetName', 'accountID', 'partition'] as const;

function matchField<F extends string>(key: string, fields: readonly F[]): F | undefined {
  for (const f of fields) if (f === key) return f;
  for (const f of fields) if (goJsonFold(f, key)) return f;
  return undefined;
}

/** `RoleMapping.Validate()` / `UserMapping.Validate()` (pkg/config/mapper.go). */
function validate(key: 'mapRoles' | 'mapUsers', e: RawEntry): string | undefined {
  if (key === 'mapUsers') return e.arn === '' ? 'value for userarn must be supplied' : undefined;
  if (e.arn === '' && e.sso === null) return 'one of rolearn or SSO must be supplied';
  if (e.arn !== '' && e.sso !== null) return 'only one of rolearn or SSO can be supplied';
  if (e.sso !== null) {
    if (!/^[0-9]{12}$/.test(e.sso.accountID))
      return `AccountID '${e.sso.accountID}' is not a valid AWS Account ID`;
    if (!/^[\w+=,.@-]{1,32}$/.test(e.sso.permissionSetName)) {
      return `PermissionSetName '${e.sso.permissionSetName}' is not a valid AWS SSO PermissionSet Name`;
    }
    if (e.sso.partition !== '' && !GO_SSO_PARTITIONS.includes(e.sso.partition)) {
      return `partition '${e.sso.partition}' is not a valid AWS partition`;
    }
    // SSOArnLike always matches `arn:*:iam:*:*:role/*` once the checks above have passed.
  }
  return undefined;
}

/** apimachinery `utilyaml.ToJSON`'s `hasJSONPrefix`: `{` after Go `unicode.IsSpace` runes. */
function hasJsonPrefix(s: string): boolean {
  let i = 0;
  while (i < s.length && isGoSpace(s.charCodeAt(i))) i++;
  return s[i] === '{';
}

const EMPTY: Omit<AwsAuthKeyDecode, 'ok' | 'skipped' | 'errors'> = { roles: [], users: [], accounts: [] };

/** The authenticator's `ParseMap` for one key of the ConfigMap's `data`. */
export function decodeAwsAuthKey(key: AwsAuthDataKey, text: string): AwsAuthKeyDecode {
  if (isSkippable(text)) return { ok: true, skipped: true, errors: [], ...EMPTY };
  if (key === 'mapAccounts') {
    const r = unmarshalGoYamlStrings(text);
    // ParseMap keeps whatever the list holds even when Unmarshal failed.
    if (!r.ok) return { ok: false, skipped: false, errors: [r.error], ...EMPTY, accounts: r.values };
    return {
      ok: r.rootIsList,
      skipped: false,
      errors: r.error === undefined ? [] : [r.error],
      ...EMPTY,
      accounts: r.values,
    };
  }
  const typeName = key === 'mapRoles' ? 'RoleMapping' : 'UserMapping';
  if (hasJsonPrefix(text)) {
    // ToJSON passes JSON through; json.Unmarshal then fails before decoding anything: a syntax
    // error, or an object where a list is expected. (The syntax error's text is approximated.)
    let error = `json: cannot unmarshal object into Go value of type []config.${typeName}`;
    try {
      JSON.parse(text);
    } catch (e) {
      error = `invalid JSON: ${(e as Error).message}`;
    }
    return { ok: false, skipped: false, errors: [error], ...EMPTY };
  }
  const y = unmarshalGoYaml(text);
  if (!y.ok) return { ok: false, skipped: false, errors: [y.error], ...EMPTY };
  const j = yamlToJson(y.value);
  if (!j.ok) return { ok: false, skipped: false, errors: [j.error], ...EMPTY };
  const dec = new StructDecoder(key);
  const raw = dec.decode(j.value);
  const errors: string[] = dec.firstError === undefined ? [] : [dec.firstError];
  const roles: GoRoleMapping[] = [];
  const users: GoUserMapping[] = [];
  for (const e of raw) {
    const bad = validate(key, e);
    if (bad !== undefined) {
      errors.push(bad);
      continue;
    }
    const groups = e.groups === null ? [] : e.groups.b.slice(0, e.groups.len);
    if (key === 'mapRoles') {
      roles.push({ rolearn: e.arn, sso: e.sso, username: e.username, groups, userid: e.userid });
    } else {
      users.push({ userarn: e.arn, username: e.username, groups, userid: e.userid });
    }
  }
  // A top-level object, string, number or bool decodes nothing: the key counts as failed.
  const ok = j.value.t === 'array' || j.value.t === 'null';
  return { ok, skipped: false, errors, roles, users, accounts: [] };
}
