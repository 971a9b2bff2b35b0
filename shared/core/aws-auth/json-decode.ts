/**
 * sigs.k8s.io/yaml YAMLToJSON (the `JVal` tree), then encoding/json into []RoleMapping /
 * []UserMapping (`EntryListDecoder`, with every type mismatch and unknown field as an issue) and
 * upstream `Validate()`.
 */

import { goFold, levenshtein, matchField, truncate } from './go-text.ts';
import type { AwsAuthIssue, AwsAuthKey } from './parse-result.ts';
import {
  ACCOUNT_ID_RE,
  PERMISSION_SET_NAME_RE,
  ROLE_FIELDS,
  SSO_FIELDS,
  SSO_PARTITIONS,
  USER_FIELDS,
} from './upstream.ts';

// ---------------------------------------------------------------------------------------------
// The JSON-level tree: what sigs.k8s.io/yaml's YAMLToJSON writes (built by go-yaml-front.ts)
// ---------------------------------------------------------------------------------------------

export type JVal =
  | { t: 'null'; pos: number }
  | { t: 'string'; v: string; pos: number; dashFold: boolean }
  | { t: 'number'; text: string; pos: number }
  | { t: 'bool'; v: boolean; pos: number }
  | { t: 'object'; entries: JEntry[]; pos: number }
  | { t: 'array'; items: JVal[]; pos: number };

export interface JEntry {
  key: string;
  keyPos: number;
  value: JVal;
}

// ---------------------------------------------------------------------------------------------
// encoding/json into []RoleMapping / []UserMapping, then Validate()
// ---------------------------------------------------------------------------------------------

interface RawSso {
  permissionSetName: string;
  accountID: string;
  partition: string;
}

export interface RawEntry {
  arn: string;
  sso: RawSso | null;
  username: string;
  groups: string[];
  userid: string;
}

export function jsonTypeName(v: JVal): string {
  switch (v.t) {
    case 'object':
      return 'object';
    case 'array':
      return 'array';
    case 'bool':
      return 'bool';
    default:
      return v.t;
  }
}

export function describeJVal(v: JVal): string {
  switch (v.t) {
    case 'string':
      return `the string ${JSON.stringify(truncate(v.v, 60))}`;
    case 'number':
      return `the number ${v.text}`;
    case 'bool':
      return `the boolean ${v.v}`;
    case 'object':
      return 'a mapping';
    case 'array':
      return 'a list';
    default:
      return 'null';
  }
}

export function entryDesc(key: AwsAuthKey, e: RawEntry | undefined): string {
  if (e === undefined) return 'not a mapping';
  if (e.arn !== '') return `${key === 'mapUsers' ? 'userarn' : 'rolearn'} ${e.arn}`;
  if (e.sso !== null) {
    const p = e.sso.permissionSetName || '?';
    return `sso ${p} in ${e.sso.accountID || '?'}`;
  }
  return key === 'mapUsers' ? 'no userarn' : 'no rolearn';
}

export interface Located {
  pos: number;
  kind: AwsAuthIssue['kind'];
  message: string;
  lost: string;
  entryIndex?: number;
  /** Later entries with this very issue (see `AwsAuthIssue.repeats`). */
  repeats?: number[];
}

/** Records that entry `index` has issue `i` too (an alias of the same node). */
export function addRepeat(i: Located, index: number): void {
  if (i.repeats === undefined) i.repeats = [index];
  else i.repeats.push(index);
}

/** One decoded list item; `repeatOf`: the index of the earlier item it is an alias of (same node). */
export interface DecodedItem {
  entry: RawEntry;
  pos: number;
  index: number;
  repeatOf?: number;
}

/** Issues of one entry, built once the entry's description (which needs the whole entry) is known. */
type Pending = Array<(desc: string) => Located>;

/** Decodes the JSON value of one key into entries, like `json.Unmarshal(..., &[]RoleMapping)`. */
export class EntryListDecoder {
  readonly issues: Located[] = [];
  /** The current entry's pending issues (reused: entries are decoded one at a time). */
  private readonly pending: Pending = [];

  constructor(private readonly key: 'mapRoles' | 'mapUsers') {}

  private get goType(): string {
    return this.key === 'mapRoles' ? 'RoleMapping' : 'UserMapping';
  }

  /**
   * Items that are one value (aliases of one YAML node: the conversion shares it, see
   * go-yaml-front.ts) decode alike but for their index: the first is decoded, the later ones get
   * a copy of its entry and are added to its issues' `repeats`, so that the issues stay one per
   * cause, not one per alias.
   */
  decode(list: JVal & { t: 'array' }): DecodedItem[] {
    const out: DecodedItem[] = [];
    const seen = new Map<JVal, { index: number; entry: RawEntry; issues: Located[] }>();
    list.items.forEach((item, index) => {
      const first = seen.get(item);
      if (first !== undefined) {
        for (const i of first.issues) addRepeat(i, index);
        const entry = { ...first.entry, groups: [...first.entry.groups] };
        out.push({ entry, pos: item.pos, index, repeatOf: first.index });
        return;
      }
      const from = this.issues.length;
      const entry = this.entry(item, index);
      seen.set(item, { index, entry, issues: this.issues.slice(from) });
      out.push({ entry, pos: item.pos, index });
    });
    return out;
  }

  /** A type mismatch, reported once the entry's description is known. */
  private mismatch(
    pending: Pending,
    index: number,
    field: string,
    got: JVal,
    expected: string,
    goType: string,
    lost: (d: string) => string,
  ): void {
    pending.push((desc) => ({
      pos: got.pos,
      kind: 'type-mismatch',
      entryIndex: index,
      message: `${this.key} entry ${index} (${desc}): "${field}" is ${describeJVal(got)}, not ${expected}; the authenticator skips it and keeps the field empty (json: cannot unmarshal ${jsonTypeName(got)} into Go struct field ${this.goType}.${field} of type ${goType})`,
      lost: lost(desc),
    }));
  }

  // Hot path (once per entry): no closure is created unless there is something to report.
  private entry(v: JVal, index: number): RawEntry {
    const e: RawEntry = { arn: '', sso: null, username: '', groups: [], userid: '' };
    this.groupsBacking = [];
    if (v.t === 'null') return e;
    if (v.t !== 'object') {
      this.issues.push({
        pos: v.pos,
        kind: 'type-mismatch',
        entryIndex: index,
        message: `${this.key} entry ${index} is ${describeJVal(v)}, not a mapping; the authenticator decodes it as an empty entry (json: cannot unmarshal ${jsonTypeName(v)} into Go value of type config.${this.goType})`,
        lost: `entry ${index} of ${this.key}`,
      });
      return e;
    }
    const pending = this.pending;
    pending.length = 0;
    const fields = this.key === 'mapRoles' ? ROLE_FIELDS : USER_FIELDS;
    for (const { key, keyPos, value } of v.entries) {
      const f = matchField<string>(key, fields);
      switch (f) {
        case 'rolearn':
        case 'userarn':
          if (value.t === 'string') e.arn = value.v;
          else if (value.t !== 'null') {
            this.mismatch(
              pending,
              index,
              f,
              value,
              'a string',
              'string',
              (d) => `the ${f} of ${this.key} entry ${index} (${d}); without it the entry is dropped`,
            );
          }
          break;
        case 'username':
          if (value.t === 'string') e.username = value.v;
          else if (value.t !== 'null') {
            this.mismatch(
              pending,
              index,
              f,
              value,
              'a string',
              'string',
              (d) => `the username of ${this.key} entry ${index} (${d}): it maps to an empty username`,
            );
          }
          break;
        case 'userid':
          if (value.t === 'string') e.userid = value.v;
          else if (value.t !== 'null') {
            this.mismatch(
              pending,
              index,
              f,
              value,
              'a string',
              'string',
              (d) => `the userid of ${this.key} entry ${index} (${d})`,
            );
          }
          break;
        case 'groups':
          e.groups = this.groups(e.groups, value, index, pending);
          break;
        case 'sso':
          e.sso = this.sso(e.sso, value, index, pending);
          break;
        default:
          pending.push((desc) => this.unknownField(key, keyPos, index, desc, fields, value));
      }
    }
    if (pending.length > 0) {
      const desc = entryDesc(this.key, e);
      for (const p of pending) this.issues.push(p(desc));
      pending.length = 0;
    }
    return e;
  }

  /**
   * The backing array of the entry's `groups` slice (its length is the slice's capacity). A
   * repeated field (`Groups:` then `groups:`) decodes into the same slice, as encoding/json's
   * `array()` does: elements within the capacity keep their old value when the new item is null
   * or of the wrong type, and the length becomes the new array's.
   */
  private groupsBacking: string[] = [];

  private groups(cur: string[], v: JVal, index: number, pending: Pending): string[] {
    if (v.t === 'null') {
      this.groupsBacking = [];
      return [];
    }
    if (v.t !== 'array') {
      const nodes =
        v.t === 'string' && /system:nodes/.test(v.v)
          ? ' (including system:nodes: its nodes cannot register)'
          : '';
      this.mismatch(
        pending,
        index,
        'groups',
        v,
        'a list of strings',
        '[]string',
        (d) => `every group of ${this.key} entry ${index} (${d}): it authenticates with no groups${nodes}`,
      );
      return cur;
    }
    let b = this.groupsBacking;
    let len = cur.length;
    for (let j = 0; j < v.items.length; j++) {
      const item = v.items[j] as JVal;
      if (j >= b.length) {
        const grown = new Array<string>(Math.max(4, b.length + Math.floor(b.length / 2))).fill('');
        for (let k = 0; k < len; k++) grown[k] = b[k] as string;
        b = grown;
      }
      if (j >= len) len = j + 1;
      if (item.t === 'string') {
        if (item.dashFold) {
          pending.push((desc) => {
            const extra = item.v.split(' - ').slice(1);
            return {
              pos: item.pos,
              kind: 'suspicious-value',
              entryIndex: index,
              message: `${this.key} entry ${index} (${desc}): group ${JSON.stringify(item.v)} is two or more list items folded into one string (a "- " line indented deeper than the item before it continues that item); the authenticator grants the single group ${JSON.stringify(item.v)}`,
              lost: `group${extra.length === 1 ? '' : 's'} ${extra.join(', ')} of ${this.key} entry ${index} (${desc})`,
            };
          });
        }
        b[j] = item.v;
        continue;
      }
      if (item.t !== 'null') {
        // The element keeps what an earlier case-variant `groups` field left in it, or "".
        const kept = b[j] as string;
        const as =
          kept === '' ? 'an empty string' : `${JSON.stringify(kept)}, left by an earlier groups field`;
        this.mismatch(
          pending,
          index,
          `groups[${j}]`,
          item,
          'a string',
          'string',
          (d) => `group ${j} of ${this.key} entry ${index} (${d}), decoded as ${as}`,
        );
      }
    }
    // encoding/json `array()`: a shorter array sets the length; an empty one a new empty slice.
    this.groupsBacking = v.items.length === 0 ? [] : b;
    return b.slice(0, v.items.length);
  }

  private sso(cur: RawSso | null, v: JVal, index: number, pending: Pending): RawSso | null {
    if (v.t === 'null') return null;
    if (v.t !== 'object') {
      this.mismatch(
        pending,
        index,
        'sso',
        v,
        'a mapping',
        '*config.SSOARNMatcher',
        (d) => `the sso matcher of ${this.key} entry ${index} (${d})`,
      );
      // encoding/json's `indirect` allocates the pointer before it checks the value's kind: the
      // entry now has an (empty) SSO matcher, which Validate then rejects.
      return cur ?? { permissionSetName: '', accountID: '', partition: '' };
    }
    const sso: RawSso = cur ?? { permissionSetName: '', accountID: '', partition: '' };
    for (const { key, keyPos, value } of v.entries) {
      const f = matchField<string>(key, SSO_FIELDS);
      if (f === 'permissionSetName' || f === 'accountID' || f === 'partition') {
        if (value.t === 'string') sso[f] = value.v;
        else if (value.t !== 'null') {
          const hint = f === 'accountID' && value.t === 'number' ? ' (quote the account ID)' : '';
          this.mismatch(
            pending,
            index,
            `sso.${f}`,
            value,
            `a string${hint}`,
            'string',
            (d) => `the sso ${f} of ${this.key} entry ${index} (${d}); the entry then fails validation`,
          );
        }
      } else {
        pending.push((desc) => this.unknownField(key, keyPos, index, desc, SSO_FIELDS, value, 'sso.'));
      }
    }
    return sso;
  }

  private unknownField(
    key: string,
    pos: number,
    index: number,
    desc: string,
    fields: readonly string[],
    value: JVal,
    prefix = '',
  ): Located {
    const lower = key.toLowerCase();
    const lookalike = fields.find((f) => looksLike(key, f));
    const near =
      lookalike ?? fields.find((f) => levenshtein(lower, f.toLowerCase()) <= (f.length >= 5 ? 2 : 1));
    const other = this.key === 'mapRoles' ? 'userarn' : 'rolearn';
    let hint = near !== undefined ? `; did you mean "${prefix}${near}"?` : '';
    if (lookalike !== undefined) {
      const odd = [...new Set(key)].filter((c) => (goFold(c).codePointAt(0) ?? 0) > 0x7f).map(codePoint);
      hint = `: it reads like "${prefix}${lookalike}", but Go matches field names by simple case folding, where ${odd.join(', ')} ${odd.length === 1 ? 'is' : 'are'} no ASCII letter`;
    }
    if (prefix === '' && goFold(key) === goFold(other)) {
      hint = `; "${other}" belongs in ${this.key === 'mapRoles' ? 'mapUsers' : 'mapRoles'}, not ${this.key}`;
    }
    const valueText = value.t === 'string' ? ` (${JSON.stringify(truncate(value.v, 60))})` : '';
    return {
      pos,
      kind: 'unknown-field',
      entryIndex: index,
      message: `${this.key} entry ${index} (${desc}): field "${prefix}${key}"${valueText} is not a ${prefix === '' ? this.goType : 'SSOARNMatcher'} field, even ignoring case; the authenticator ignores it${hint}`,
      lost:
        near !== undefined
          ? `whatever "${prefix}${key}" was meant to set (the ${prefix}${near} of ${this.key} entry ${index})`
          : 'nothing directly: the field is ignored',
    };
  }
}

/**
 * A key that JavaScript's (or a reader's) case-insensitive comparison takes for `field`: full case
 * mappings (`ß` → SS, `İ` → i̇) or letters under combining marks. Only for the hint: the match
 * itself is `matchField`.
 */
function looksLike(key: string, field: string): boolean {
  const f = field.toLowerCase();
  if (key.toLowerCase() === f || key.toUpperCase().toLowerCase() === f) return true;
  return key.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase() === f;
}

/** `İ (U+0130)`; a combining mark by its code point alone. */
function codePoint(c: string): string {
  const u = `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  return /\p{M}/u.test(c) ? `the combining mark ${u}` : `${c} (${u})`;
}

/** `RoleMapping.Validate()` / `UserMapping.Validate()`; returns upstream's error text. */
export function validateEntry(key: 'mapRoles' | 'mapUsers', e: RawEntry): string | undefined {
  if (key === 'mapUsers') return e.arn === '' ? 'value for userarn must be supplied' : undefined;
  if (e.arn === '' && e.sso === null) return 'one of rolearn or SSO must be supplied';
  if (e.arn !== '' && e.sso !== null) return 'only one of rolearn or SSO can be supplied';
  if (e.sso !== null) {
    if (!ACCOUNT_ID_RE.test(e.sso.accountID)) {
      return `AccountID '${e.sso.accountID}' is not a valid AWS Account ID`;
    }
    if (!PERMISSION_SET_NAME_RE.test(e.sso.permissionSetName)) {
      return `PermissionSetName '${e.sso.permissionSetName}' is not a valid AWS SSO PermissionSet Name`;
    }
    if (e.sso.partition !== '' && !SSO_PARTITIONS.includes(e.sso.partition)) {
      return `partition '${e.sso.partition}' is not a valid AWS partition`;
    }
  }
  return undefined;
}
