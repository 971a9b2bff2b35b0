/**
 * aws-auth ConfigMap parser and encoder.
 *
 * Re-implements what kubernetes-sigs/aws-iam-authenticator does with `kube-system/aws-auth`
 * (`pkg/mapper/configmap/configmap.go` ParseMap/EncodeMap, `pkg/config/types.go`,
 * `pkg/config/mapper.go` Validate), so that "what the authenticator effectively maps" can be
 * computed from a snapshot:
 *
 * - Only the exact keys `mapRoles`, `mapUsers`, `mapAccounts` are read; each one on its own.
 * - Values that trim (Go `strings.TrimSpace`) to "", `""`, `''` or two backticks are skipped.
 * - `mapRoles`/`mapUsers`: `utilyaml.ToJSON` (JSON passthrough when the value starts with `{`,
 *   else sigs.k8s.io/yaml `YAMLToJSON` = go-yaml v2 into `interface{}` + JSON conversion), then
 *   `encoding/json` into `[]RoleMapping`/`[]UserMapping` (field names case-insensitive, type
 *   mismatches recorded and skipped), then `Validate()` per entry. A conversion error keeps
 *   zero mappings of that key.
 * - `mapAccounts`: go-yaml v2 `Unmarshal` straight into `[]string` (scalars keep their source text).
 *
 * YAML syntax comes from the `yaml` package (parsed with the failsafe schema so every scalar stays
 * text); scalar resolution (YAML 1.1: `yes`, `0x1F`, `012`, `.inf`, ...), merge keys, aliases and
 * map-key rules follow go-yaml v2. Pure: no I/O, no clock; never throws.
 */
import {
  type Alias,
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Scalar,
  type YAMLMap,
} from 'yaml';
import { scanEntryList } from './aws-auth-fast.ts';
import {
  AWS_AUTH_KEYS,
  type AwsAuthIssue,
  type AwsAuthKey,
  type AwsAuthMappings,
  type EntryLocation,
  type KeyStatus,
  type ParsedAwsAuth,
  type RoleMapping,
  type SsoMatcher,
  type UserMapping,
} from './aws-auth-model.ts';

// ---------------------------------------------------------------------------------------------
// Constants from upstream
// ---------------------------------------------------------------------------------------------

/** `pkg/endpoints/partitions.go` PARTITIONS (older releases lack aws-iso-e and aws-iso-f). */
export const SSO_PARTITIONS: readonly string[] = [
  'aws',
  'aws-cn',
  'aws-us-gov',
  'aws-iso',
  'aws-iso-b',
  'aws-iso-e',
  'aws-iso-f',
];
const ACCOUNT_ID_RE = /^[0-9]{12}$/;
const PERMISSION_SET_NAME_RE = /^[\w+=,.@-]{1,32}$/;

const ROLE_FIELDS = ['rolearn', 'sso', 'username', 'groups', 'userid'] as const;
const USER_FIELDS = ['userarn', 'username', 'groups', 'userid'] as const;
const SSO_FIELDS = ['permissionSetName', 'accountID', 'partition'] as const;

const KEY_NOUN: Record<AwsAuthKey, { one: string; many: string }> = {
  mapRoles: { one: 'role mapping', many: 'role mappings' },
  mapUsers: { one: 'user mapping', many: 'user mappings' },
  mapAccounts: { one: 'auto-mapped account', many: 'auto-mapped accounts' },
};

// ---------------------------------------------------------------------------------------------
// Small Go-compatible string helpers
// ---------------------------------------------------------------------------------------------

/** Go `unicode.IsSpace`. */
function isGoSpace(cp: number): boolean {
  return (
    (cp >= 0x09 && cp <= 0x0d) ||
    cp === 0x20 ||
    cp === 0x85 ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

function goTrimLeft(s: string): string {
  let i = 0;
  while (i < s.length && isGoSpace(s.charCodeAt(i))) i++;
  return s.slice(i);
}

/** Go `strings.TrimSpace`. */
function goTrimSpace(s: string): string {
  let end = s.length;
  while (end > 0 && isGoSpace(s.charCodeAt(end - 1))) end--;
  return goTrimLeft(s.slice(0, end));
}

/** configmap.go `isSkippable`. */
function isSkippable(data: string): boolean {
  const t = goTrimSpace(data);
  return t === '' || t === '``' || t === '""' || t === "''";
}

const NON_ASCII = /[^\t-~]|[\u007f]/u;

/** Go `encoding/json` field-name folding (Go ≥ 1.21 `foldName`), restricted to what can reach ASCII. */
function goFold(s: string): string {
  if (!NON_ASCII.test(s)) return s.toUpperCase();
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x61 && cp <= 0x7a) out += String.fromCharCode(cp - 32);
    else if (cp === 0x17f) out += 'S';
    else if (cp === 0x212a) out += 'K';
    else if (cp === 0x130 || cp === 0x131) out += 'I';
    else out += ch;
  }
  return out;
}

/** Go `encoding/json` struct field lookup: exact name first, then case-folded. */
function matchField<F extends string>(key: string, fields: readonly F[]): F | undefined {
  for (const f of fields) if (f === key) return f;
  const folded = goFold(key);
  for (const f of fields) if (f.toUpperCase() === folded) return f;
  return undefined;
}

const HAS_SURROGATE = /[\ud800-\udfff]/;

/** Byte-wise (UTF-8) string order, as Go's `json.Marshal` sorts map keys. */
function compareCodePoints(a: string, b: string): number {
  if (!HAS_SURROGATE.test(a) && !HAS_SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done === true || y.done === true) return (x.done === true ? 0 : 1) - (y.done === true ? 0 : 1);
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx - cy;
  }
}

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      prev[j] = Math.min(up + 1, (prev[j - 1] ?? 0) + 1, diag + cost);
      diag = up;
    }
  }
  return prev[b.length] ?? 0;
}

function truncate(s: string, max = 80): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function plural(n: number, noun: { one: string; many: string }): string {
  return `${n} ${n === 1 ? noun.one : noun.many}`;
}

// ---------------------------------------------------------------------------------------------
// YAML loading (syntax from the `yaml` package, character rules from libyaml)
// ---------------------------------------------------------------------------------------------

/** A failure that makes go-yaml / sigs.k8s.io/yaml reject the whole value. Internal only. */
class DecodeFailure extends Error {
  override readonly name = 'DecodeFailure';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

type YamlNode = NonNullable<Document['contents']>;

interface LoadedYaml {
  doc: Document | undefined;
  root: unknown;
  lc: LineCounter;
}

/** libyaml's reader rejects these before parsing ("control characters are not allowed"). */
function findForbiddenChar(text: string): DecodeFailure | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      return new DecodeFailure('invalid UTF-8 (unpaired surrogate)', i);
    }
    if (c >= 0xdc00 && c <= 0xdfff) return new DecodeFailure('invalid UTF-8 (unpaired surrogate)', i);
    const ok =
      c === 0x09 ||
      c === 0x0a ||
      c === 0x0d ||
      (c >= 0x20 && c <= 0x7e) ||
      c === 0x85 ||
      (c >= 0xa0 && c <= 0xd7ff) ||
      (c >= 0xe000 && c <= 0xfffd);
    if (!ok) {
      return new DecodeFailure(
        `control characters are not allowed (U+${c.toString(16).toUpperCase().padStart(4, '0')})`,
        i,
      );
    }
  }
  return undefined;
}

/** Parses the first YAML document like go-yaml v2 does (later documents are never read). */
function loadYaml(text: string): LoadedYaml {
  const bad = findForbiddenChar(text);
  if (bad !== undefined) throw bad;
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, {
    version: '1.1',
    schema: 'failsafe',
    merge: false,
    uniqueKeys: false,
    prettyErrors: false,
    lineCounter: lc,
  });
  const doc = docs[0];
  if (doc === undefined) return { doc: undefined, root: null, lc };
  const err = doc.errors[0];
  if (err !== undefined) throw new DecodeFailure(err.message, err.pos[0]);
  return { doc, root: doc.contents, lc };
}

function nodeStart(node: unknown, fallback: number): number {
  const range = (node as { range?: unknown } | null)?.range;
  return Array.isArray(range) && typeof range[0] === 'number' ? range[0] : fallback;
}

// ---------------------------------------------------------------------------------------------
// go-yaml v2 scalar resolution (resolve.go)
// ---------------------------------------------------------------------------------------------

const TAG_PREFIX = 'tag:yaml.org,2002:';
const STR_TAG = `${TAG_PREFIX}str`;
const BOOL_TAG = `${TAG_PREFIX}bool`;
const INT_TAG = `${TAG_PREFIX}int`;
const FLOAT_TAG = `${TAG_PREFIX}float`;
const NULL_TAG = `${TAG_PREFIX}null`;
const TIMESTAMP_TAG = `${TAG_PREFIX}timestamp`;
const BINARY_TAG = `${TAG_PREFIX}binary`;
const MERGE_TAG = `${TAG_PREFIX}merge`;
const RESOLVABLE_TAGS = new Set(['', STR_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, NULL_TAG, TIMESTAMP_TAG]);

type Resolved =
  | { tag: 'null' }
  | { tag: 'bool'; v: boolean }
  | { tag: 'int'; v: bigint }
  | { tag: 'float'; v: number }
  | { tag: 'str'; v: string }
  | { tag: 'timestamp'; v: string }
  | { tag: 'merge' }
  | { tag: 'other'; fullTag: string; v: string };

const RESOLVE_MAP = new Map<string, Resolved>();
for (const [words, r] of [
  [['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'], { tag: 'bool', v: true }],
  [['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'], { tag: 'bool', v: false }],
  [['', '~', 'null', 'Null', 'NULL'], { tag: 'null' }],
  [['.nan', '.NaN', '.NAN'], { tag: 'float', v: Number.NaN }],
  [['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'], { tag: 'float', v: Number.POSITIVE_INFINITY }],
  [['-.inf', '-.Inf', '-.INF'], { tag: 'float', v: Number.NEGATIVE_INFINITY }],
  [['<<'], { tag: 'merge' }],
] as const) {
  for (const w of words) RESOLVE_MAP.set(w, r as Resolved);
}

function resolveHint(s: string): 'M' | '.' | 'D' | 'S' | undefined {
  if (s === '') return 'M'; // go-yaml uses 'N'; the empty string is in the map (null) either way.
  const c = s[0] ?? '';
  if (c === '+' || c === '-') return 'S';
  if (c >= '0' && c <= '9') return 'D';
  if ('yYnNtTfFoO~'.includes(c)) return 'M';
  if (c === '.') return '.';
  return undefined;
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const UINT64_MAX = (1n << 64n) - 1n;

/** Go `strconv.ParseUint(s, 0, 64)` digits after the sign (no underscores). */
function goParseUnsigned(s: string): bigint | undefined {
  if (s === '') return undefined;
  let base = 10;
  let digits = s;
  if (s[0] === '0') {
    const p = s[1]?.toLowerCase();
    if (s.length >= 3 && p === 'b') [base, digits] = [2, s.slice(2)];
    else if (s.length >= 3 && p === 'o') [base, digits] = [8, s.slice(2)];
    else if (s.length >= 3 && p === 'x') [base, digits] = [16, s.slice(2)];
    else [base, digits] = [8, s.slice(1)];
  }
  const re = base === 2 ? /^[01]*$/ : base === 8 ? /^[0-7]*$/ : base === 16 ? /^[0-9a-fA-F]*$/ : /^[0-9]*$/;
  if (!re.test(digits)) return undefined;
  let n = 0n;
  const b = BigInt(base);
  for (const ch of digits) n = n * b + BigInt(Number.parseInt(ch, base));
  return n <= UINT64_MAX ? n : undefined;
}

function goParseInt(s: string): bigint | undefined {
  const neg = s[0] === '-';
  const body = s[0] === '-' || s[0] === '+' ? s.slice(1) : s;
  const u = goParseUnsigned(body);
  if (u === undefined) return undefined;
  const v = neg ? -u : u;
  return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
}

function goParseUint(s: string): bigint | undefined {
  if (s[0] === '+' || s[0] === '-') return undefined;
  return goParseUnsigned(s);
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+(_[0-9]+)*([eE][-+]?[0-9]+(_[0-9]+)*)?$/;

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** go-yaml v2 `parseTimestamp` with Go `time.Parse` on its four layouts. */
function isGoTimestamp(s: string): boolean {
  const m =
    /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:([Tt])|( ))([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.exec(
      s,
    );
  if (m === null) return false;
  const [, y, mo, d, t, space, hh, mi, ss, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return false;
  if (hh === undefined) return true;
  if (t !== undefined && zone === undefined) return false; // the T layouts require a zone
  if (space !== undefined && zone !== undefined) return false; // the space layout has none
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 59) return false;
  if (
    zone !== undefined &&
    zone !== 'Z' &&
    (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4, 6)) > 59)
  ) {
    return false;
  }
  return true;
}

function shortTag(tag: string): string {
  return tag.startsWith(TAG_PREFIX) ? `!!${tag.slice(TAG_PREFIX.length)}` : tag;
}

function resolvedTagName(r: Resolved): string {
  switch (r.tag) {
    case 'other':
      return r.fullTag;
    case 'merge':
      return MERGE_TAG;
    default:
      return `${TAG_PREFIX}${r.tag}`;
  }
}

/** go-yaml v2 `resolve(tag, in)`; throws like its `failf` when an explicit tag does not fit. */
function goResolve(tag: string, s: string, offset: number): Resolved {
  if (!RESOLVABLE_TAGS.has(tag)) return { tag: 'other', fullTag: tag, v: s };
  let out: Resolved = { tag: 'str', v: s };
  const hint = resolveHint(s);
  if (hint !== undefined && tag !== STR_TAG) {
    const fromMap = RESOLVE_MAP.get(s);
    if (fromMap !== undefined) out = fromMap;
    else if (hint === '.') {
      if (DOT_FLOAT.test(s)) {
        const f = Number(s.replaceAll('_', ''));
        if (Number.isFinite(f)) out = { tag: 'float', v: f };
      }
    } else if (hint === 'D' || hint === 'S') {
      const plain = s.replaceAll('_', '');
      const iv = goParseInt(plain) ?? goParseUint(plain);
      if ((tag === '' || tag === TIMESTAMP_TAG) && isGoTimestamp(s)) out = { tag: 'timestamp', v: s };
      else if (iv !== undefined) out = { tag: 'int', v: iv };
      else if (YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain))) {
        out = { tag: 'float', v: Number(plain) };
      }
    }
  }
  const rtag = resolvedTagName(out);
  if (tag === '' || tag === rtag || tag === STR_TAG) return out;
  if (tag === FLOAT_TAG && out.tag === 'int') return { tag: 'float', v: Number(out.v) };
  throw new DecodeFailure(
    `cannot decode ${shortTag(rtag)} \`${truncate(s, 40)}\` as a ${shortTag(tag)}`,
    offset,
  );
}

/** Go `base64.StdEncoding.DecodeString` (ignores CR/LF) followed by a UTF-8 read. */
function decodeBinary(s: string, offset: number): string {
  const clean = s.replace(/[\r\n]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0) {
    throw new DecodeFailure('!!binary value contains invalid base64 data', offset);
  }
  const bin = atob(clean);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8').decode(bytes);
}

/** libyaml rejects `\u`/`\U` escapes that are surrogates or beyond U+10FFFF; the `yaml` package combines them. */
function checkDoubleQuotedEscapes(raw: string, offset: number): void {
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== '\\') continue;
    const kind = raw[i + 1];
    const len = kind === 'u' ? 4 : kind === 'U' ? 8 : 0;
    if (len > 0) {
      const hex = raw.slice(i + 2, i + 2 + len);
      const cp = /^[0-9a-fA-F]+$/.test(hex) ? Number.parseInt(hex, 16) : Number.NaN;
      if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
        throw new DecodeFailure('found invalid Unicode character escape code', offset + i);
      }
    }
    i++;
  }
}

// ---------------------------------------------------------------------------------------------
// go-yaml v2 decoding into interface{} (decode.go)
// ---------------------------------------------------------------------------------------------

type GoVal =
  | { t: 'null'; pos: number }
  | { t: 'str'; v: string; pos: number; dashFold: boolean }
  | { t: 'int'; v: bigint; pos: number }
  | { t: 'float'; v: number; pos: number }
  | { t: 'bool'; v: boolean; pos: number }
  | { t: 'map'; entries: GoEntry[]; pos: number }
  | { t: 'seq'; items: GoVal[]; pos: number };

interface GoEntry {
  key: GoVal;
  value: GoVal;
}

function goKeyId(k: GoVal, seq: number): string {
  switch (k.t) {
    case 'null':
      return 'n';
    case 'str':
      return `s:${k.v}`;
    case 'int':
      return `i:${k.v}`;
    case 'float':
      return Number.isNaN(k.v) ? `nan:${seq}` : `f:${k.v}`;
    case 'bool':
      return `b:${k.v}`;
    default:
      return `x:${seq}`;
  }
}

/** go-yaml v2.4 `allowedAliasRatio`. */
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= 400_000) return 0.99;
  if (decodeCount >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - 400_000) / 3_600_000);
}

class GoYamlDecoder {
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;
  private readonly activeAliases = new Set<unknown>();
  private readonly aliasTargets = new Map<unknown, YamlNode | undefined>();

  constructor(
    private readonly doc: Document | undefined,
    private readonly text: string,
  ) {}

  private count(offset: number): void {
    this.decodeCount++;
    if (this.aliasDepth > 0) this.aliasCount++;
    if (
      this.aliasCount > 100 &&
      this.decodeCount > 1000 &&
      this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)
    ) {
      throw new DecodeFailure('document contains excessive aliasing', offset);
    }
  }

  target(alias: Alias): YamlNode {
    let t = this.aliasTargets.get(alias);
    if (!this.aliasTargets.has(alias)) {
      t = this.doc === undefined ? undefined : (alias.resolve(this.doc) as YamlNode | undefined);
      this.aliasTargets.set(alias, t);
    }
    if (t === undefined) {
      throw new DecodeFailure(`unknown anchor '${alias.source}' referenced`, nodeStart(alias, 0));
    }
    return t;
  }

  /** Runs `fn` on an alias's target with go-yaml's self-reference and alias-ratio bookkeeping. */
  withAlias<T>(alias: Alias, fn: (target: YamlNode) => T): T {
    const pos = nodeStart(alias, 0);
    if (this.activeAliases.has(alias)) {
      throw new DecodeFailure(`anchor '${alias.source}' value contains itself`, pos);
    }
    const target = this.target(alias);
    this.activeAliases.add(alias);
    this.aliasDepth++;
    try {
      return fn(target);
    } finally {
      this.aliasDepth--;
      this.activeAliases.delete(alias);
    }
  }

  value(node: unknown, fallbackPos: number): GoVal {
    const pos = nodeStart(node, fallbackPos);
    this.count(pos);
    if (node === null || node === undefined) return { t: 'null', pos };
    if (isAlias(node)) return { ...this.withAlias(node, (t) => this.value(t, pos)), pos };
    if (isScalar(node)) return this.scalar(node, pos);
    if (isMap(node)) return this.mapping(node, pos);
    if (isSeq(node)) return { t: 'seq', items: node.items.map((item) => this.value(item, pos)), pos };
    throw new DecodeFailure('unsupported YAML node', pos);
  }

  /** Tag and text of a scalar as go-yaml's parser sees them. */
  scalarParts(node: Scalar, pos: number): { tag: string; implicit: boolean; text: string } {
    const src = (node as { source?: unknown }).source;
    const text = typeof src === 'string' ? src : String(node.value ?? '');
    const tag = typeof node.tag === 'string' ? node.tag : '';
    const plain = node.type === 'PLAIN' || node.type === undefined;
    if (node.type === 'QUOTE_DOUBLE') {
      const end = Array.isArray(node.range) ? node.range[1] : pos;
      checkDoubleQuotedEscapes(this.text.slice(pos, end), pos);
    }
    return { tag, implicit: (plain && tag === '') || tag === '!', text };
  }

  resolveScalar(node: Scalar, pos: number): { r: Resolved; text: string } {
    const { tag, implicit, text } = this.scalarParts(node, pos);
    if (tag === '' && !implicit) return { r: { tag: 'str', v: text }, text };
    const r = goResolve(tag, text, pos);
    if (r.tag === 'other' && r.fullTag === BINARY_TAG)
      return { r: { tag: 'str', v: decodeBinary(r.v, pos) }, text };
    return { r, text };
  }

  scalar(node: Scalar, pos: number): GoVal {
    const { r, text } = this.resolveScalar(node, pos);
    switch (r.tag) {
      case 'null':
        return { t: 'null', pos };
      case 'bool':
        return { t: 'bool', v: r.v, pos };
      case 'int':
        return { t: 'int', v: r.v, pos };
      case 'float':
        return { t: 'float', v: r.v, pos };
      case 'merge':
        return { t: 'str', v: '<<', pos, dashFold: false };
      default: {
        // str, timestamp (kept as text when decoding into interface{}), other tags.
        const end = Array.isArray(node.range) ? node.range[1] : pos;
        const dashFold =
          node.type === 'PLAIN' && text.includes(' - ') && /\n[ \t]*- /.test(this.text.slice(pos, end));
        return { t: 'str', v: r.tag === 'str' ? r.v : text, pos, dashFold };
      }
    }
  }

  isMergeKey(key: unknown): boolean {
    if (!isScalar(key)) return false;
    const { tag, implicit, text } = this.scalarParts(key, nodeStart(key, 0));
    return text === '<<' && (implicit || tag === MERGE_TAG);
  }

  mapping(node: YAMLMap, pos: number): GoVal {
    const entries = new Map<string, GoEntry>();
    let seq = 0;
    const set = (key: GoVal, value: GoVal): void => {
      entries.set(goKeyId(key, seq++), { key, value });
    };
    for (const pair of node.items) {
      const keyPos = nodeStart(pair.key, pos);
      if (this.isMergeKey(pair.key)) {
        this.count(keyPos);
        for (const e of this.mergeSource(pair.value, keyPos)) set(e.key, e.value);
        continue;
      }
      const key = this.value(pair.key, keyPos);
      if (key.t === 'map' || key.t === 'seq') {
        // Point at `{` of `username: {{SessionName}}` rather than at the inner mapping.
        throw new DecodeFailure(
          `invalid map key: a ${key.t === 'map' ? 'mapping' : 'sequence'} cannot be a mapping key`,
          node.flow === true ? pos : keyPos,
        );
      }
      set(key, this.value(pair.value, keyPos));
    }
    return { t: 'map', entries: [...entries.values()], pos };
  }

  /** go-yaml v2 `merge`: a map, an alias to a map, or a list of those (earlier ones win). */
  mergeSource(value: unknown, pos: number): GoEntry[] {
    const wantMap = (): never => {
      throw new DecodeFailure(
        'map merge requires map or sequence of maps as the value',
        nodeStart(value, pos),
      );
    };
    const one = (n: unknown): GoEntry[] => {
      if (isAlias(n)) {
        if (!isMap(this.target(n))) wantMap();
      } else if (!isMap(n)) wantMap();
      const v = this.value(n, pos);
      return v.t === 'map' ? v.entries : wantMap();
    };
    if (isMap(value) || isAlias(value)) return one(value);
    if (isSeq(value)) {
      const out: GoEntry[] = [];
      for (let i = value.items.length - 1; i >= 0; i--) out.push(...one(value.items[i]));
      return out;
    }
    return wantMap();
  }
}

// ---------------------------------------------------------------------------------------------
// sigs.k8s.io/yaml YAMLToJSON (convertToJSONableObject + json.Marshal)
// ---------------------------------------------------------------------------------------------

type JVal =
  | { t: 'null'; pos: number }
  | { t: 'string'; v: string; pos: number; dashFold: boolean }
  | { t: 'number'; text: string; pos: number }
  | { t: 'bool'; v: boolean; pos: number }
  | { t: 'object'; entries: JEntry[]; pos: number }
  | { t: 'array'; items: JVal[]; pos: number };

interface JEntry {
  key: string;
  keyPos: number;
  value: JVal;
}

/** Go `strconv.FormatFloat(f, 'g', -1, 32)` as sigs.k8s.io/yaml uses for float map keys. */
function formatFloat32G(x: number): string {
  if (Number.isNaN(x)) return '.nan';
  const f = Math.fround(x);
  if (f === Number.POSITIVE_INFINITY) return '.inf';
  if (f === Number.NEGATIVE_INFINITY) return '-.inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  let digits = '';
  let exp = 0;
  for (let p = 1; p <= 9; p++) {
    const s = Math.abs(f).toExponential(p - 1);
    if (Math.fround(Number(s)) === Math.abs(f) || p === 9) {
      const [mant = '0', e = '0'] = s.split('e');
      digits = mant.replace('.', '');
      exp = Number(e);
      break;
    }
  }
  const sign = f < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp).toString().padStart(2, '0');
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${e}`;
  }
  const dp = exp + 1;
  if (dp <= 0) return `${sign}0.${'0'.repeat(-dp)}${digits}`;
  if (dp >= digits.length) return `${sign}${digits}${'0'.repeat(dp - digits.length)}`;
  return `${sign}${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

function jsonKey(k: GoVal): string {
  switch (k.t) {
    case 'str':
      return k.v;
    case 'int':
      if (k.v > INT64_MAX) {
        throw new DecodeFailure(`unsupported map key of type: uint64, key: ${k.v}`, k.pos);
      }
      return k.v.toString();
    case 'float':
      return formatFloat32G(k.v);
    case 'bool':
      return k.v ? 'true' : 'false';
    default:
      throw new DecodeFailure('unsupported map key of type: <nil> (an empty or null mapping key)', k.pos);
  }
}

function toJsonable(v: GoVal): JVal {
  switch (v.t) {
    case 'map': {
      const byKey = new Map<string, JEntry>();
      for (const e of v.entries) {
        const key = jsonKey(e.key);
        byKey.set(key, { key, keyPos: e.key.pos, value: toJsonable(e.value) });
      }
      const entries = [...byKey.values()].sort((a, b) => compareCodePoints(a.key, b.key));
      return { t: 'object', entries, pos: v.pos };
    }
    case 'seq':
      return { t: 'array', items: v.items.map(toJsonable), pos: v.pos };
    case 'float':
      if (!Number.isFinite(v.v)) {
        const name = Number.isNaN(v.v) ? 'NaN' : v.v > 0 ? '+Inf' : '-Inf';
        throw new DecodeFailure(`json: unsupported value: ${name}`, v.pos);
      }
      return { t: 'number', text: String(v.v), pos: v.pos };
    case 'int':
      return { t: 'number', text: v.v.toString(), pos: v.pos };
    case 'str':
      return { t: 'string', v: v.v, pos: v.pos, dashFold: v.dashFold };
    case 'bool':
      return { t: 'bool', v: v.v, pos: v.pos };
    default:
      return { t: 'null', pos: v.pos };
  }
}

// ---------------------------------------------------------------------------------------------
// encoding/json into []RoleMapping / []UserMapping, then Validate()
// ---------------------------------------------------------------------------------------------

interface RawSso {
  permissionSetName: string;
  accountID: string;
  partition: string;
}

interface RawEntry {
  arn: string;
  sso: RawSso | null;
  username: string;
  groups: string[];
  userid: string;
}

function jsonTypeName(v: JVal): string {
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

function describeJVal(v: JVal): string {
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

function entryDesc(key: AwsAuthKey, e: RawEntry | undefined): string {
  if (e === undefined) return 'not a mapping';
  if (e.arn !== '') return `${key === 'mapUsers' ? 'userarn' : 'rolearn'} ${e.arn}`;
  if (e.sso !== null) {
    const p = e.sso.permissionSetName || '?';
    return `sso ${p} in ${e.sso.accountID || '?'}`;
  }
  return key === 'mapUsers' ? 'no userarn' : 'no rolearn';
}

interface Located {
  pos: number;
  kind: AwsAuthIssue['kind'];
  message: string;
  lost: string;
  entryIndex?: number;
}

/** Issues of one entry, built once the entry's description (which needs the whole entry) is known. */
type Pending = Array<(desc: string) => Located>;

/** Decodes the JSON value of one key into entries, like `json.Unmarshal(..., &[]RoleMapping)`. */
class EntryListDecoder {
  readonly issues: Located[] = [];
  /** The current entry's pending issues (reused: entries are decoded one at a time). */
  private readonly pending: Pending = [];

  constructor(private readonly key: 'mapRoles' | 'mapUsers') {}

  private get goType(): string {
    return this.key === 'mapRoles' ? 'RoleMapping' : 'UserMapping';
  }

  decode(list: JVal & { t: 'array' }): Array<{ entry: RawEntry; pos: number; index: number }> {
    const out: Array<{ entry: RawEntry; pos: number; index: number }> = [];
    list.items.forEach((item, index) => {
      out.push({ entry: this.entry(item, index), pos: item.pos, index });
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

  private groups(cur: string[], v: JVal, index: number, pending: Pending): string[] {
    if (v.t === 'null') return [];
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
    const out: string[] = [];
    for (let j = 0; j < v.items.length; j++) {
      const item = v.items[j] as JVal;
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
        out.push(item.v);
        continue;
      }
      if (item.t !== 'null') {
        this.mismatch(
          pending,
          index,
          `groups[${j}]`,
          item,
          'a string',
          'string',
          (d) => `group ${j} of ${this.key} entry ${index} (${d}), decoded as an empty string`,
        );
      }
      out.push('');
    }
    return out;
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
      return cur;
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
    const near = fields.find((f) => levenshtein(lower, f.toLowerCase()) <= (f.length >= 5 ? 2 : 1));
    const other = this.key === 'mapRoles' ? 'userarn' : 'rolearn';
    let hint = near !== undefined ? `; did you mean "${prefix}${near}"?` : '';
    if (prefix === '' && goFold(key) === goFold(other)) {
      hint = `; "${other}" belongs in ${this.key === 'mapRoles' ? 'mapUsers' : 'mapRoles'}, not ${this.key}`;
    }
    const valueText = value.t === 'string' ? ` (${JSON.stringify(truncate(value.v, 60))})` : '';
    return {
      pos,
      kind: 'unknown-field',
      entryIndex: index,
      message: `${this.key} entry ${index} (${desc}): field "${prefix}${key}"${valueText} is not a ${this.goType} field, even ignoring case; the authenticator ignores it${hint}`,
      lost:
        near !== undefined
          ? `whatever "${prefix}${key}" was meant to set (the ${prefix}${near} of ${this.key} entry ${index})`
          : 'nothing directly: the field is ignored',
    };
  }
}

/** `RoleMapping.Validate()` / `UserMapping.Validate()`; returns upstream's error text. */
function validateEntry(key: 'mapRoles' | 'mapUsers', e: RawEntry): string | undefined {
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

// ---------------------------------------------------------------------------------------------
// mapAccounts: go-yaml v2 Unmarshal into []string
// ---------------------------------------------------------------------------------------------

function kindName(n: unknown): string {
  if (isMap(n)) return '!!map';
  if (isSeq(n)) return '!!seq';
  return '!!str';
}

interface AccountsResult {
  accounts: Array<{ value: string; pos: number; index: number }>;
  typeErrors: Located[];
  /** A go-yaml panic mid-list: the slice keeps decoded items plus zero values for the rest. */
  hardFailure?: DecodeFailure;
  /** The root is not a list (or null): nothing decoded. */
  notAList?: { pos: number; what: string };
  isNull: boolean;
}

function decodeAccounts(loaded: LoadedYaml, text: string): AccountsResult {
  const dec = new GoYamlDecoder(loaded.doc, text);
  const res: AccountsResult = { accounts: [], typeErrors: [], isNull: false };
  let root = loaded.root;
  if (loaded.doc === undefined || root === null || root === undefined) return { ...res, isNull: true };
  while (isAlias(root)) root = dec.target(root);
  if (isScalar(root)) {
    const { r } = dec.resolveScalar(root, nodeStart(root, 0));
    if (r.tag === 'null') return { ...res, isNull: true };
    return {
      ...res,
      notAList: {
        pos: nodeStart(root, 0),
        what: `a scalar (${JSON.stringify(truncate(String(root.source ?? root.value), 40))})`,
      },
    };
  }
  if (!isSeq(root)) return { ...res, notAList: { pos: nodeStart(root, 0), what: 'a mapping' } };
  const items = root.items;
  try {
    items.forEach((item, index) => {
      const pos = nodeStart(item, nodeStart(root, 0));
      const one = (n: unknown): void => {
        if (isAlias(n)) {
          dec.withAlias(n, one);
          return;
        }
        if (n === null || n === undefined) {
          res.accounts.push({ value: '', pos, index });
          return;
        }
        if (isScalar(n)) {
          const { r, text: t } = dec.resolveScalar(n, pos);
          const value = r.tag === 'null' ? '' : r.tag === 'str' ? r.v : t;
          res.accounts.push({ value, pos, index });
          return;
        }
        res.typeErrors.push({
          pos,
          kind: 'type-mismatch',
          entryIndex: index,
          message: `mapAccounts item ${index} is a ${isMap(n) ? 'mapping' : 'list'}, not a string; the authenticator skips it (yaml: cannot unmarshal ${kindName(n)} into string)`,
          lost: `mapAccounts item ${index}`,
        });
      };
      one(item);
    });
  } catch (e) {
    if (!(e instanceof DecodeFailure)) throw e;
    res.hardFailure = e;
  }
  return res;
}

// ---------------------------------------------------------------------------------------------
// Loss descriptions for whole-key failures (best effort: the value did not parse)
// ---------------------------------------------------------------------------------------------

function describeKeyLoss(key: AwsAuthKey, text: string): string {
  const field = key === 'mapRoles' ? '(?:rolearn|sso)' : 'userarn';
  let n: number;
  if (key === 'mapAccounts') n = (text.match(/^[ \t]*-[ \t]*\S/gm) ?? []).length;
  else n = (text.match(new RegExp(`^[ \\t]*(?:-[ \\t]+)*["']?${field}["']?[ \\t]*:`, 'gim')) ?? []).length;
  const arns = [...new Set(text.match(/arn:[^\s"',\]}#]+/g) ?? [])];
  const list = arns.length > 0 ? ` (${arns.slice(0, 3).join(', ')}${arns.length > 3 ? ', …' : ''})` : '';
  const nodes =
    key === 'mapRoles' && /system:nodes|system:node:|EC2PrivateDNSName/.test(text)
      ? ', including node roles: nodes using them can no longer authenticate'
      : '';
  const what = n > 0 ? `all ${plural(n, KEY_NOUN[key])} in ${key}` : `every ${KEY_NOUN[key].one} in ${key}`;
  return `${what}${list}${nodes}`;
}

// ---------------------------------------------------------------------------------------------
// parseAwsAuth
// ---------------------------------------------------------------------------------------------

interface KeyOutcome {
  status: KeyStatus;
  issues: Located[];
  roles: RoleMapping[];
  users: UserMapping[];
  accounts: string[];
  lc?: LineCounter;
}

function keyFailure(
  key: AwsAuthKey,
  text: string,
  message: string,
  pos: number,
  lc?: LineCounter,
): KeyOutcome {
  const outcome: KeyOutcome = {
    status: 'failed',
    roles: [],
    users: [],
    accounts: [],
    issues: [{ pos, kind: 'key-parse-failure', message, lost: describeKeyLoss(key, text) }],
  };
  if (lc !== undefined) outcome.lc = lc;
  return outcome;
}

function flowMappingHint(text: string): string {
  const m = /^[ \t]*(?:-[ \t]+)?([A-Za-z_]+)[ \t]*:[ \t]+(\{\{[^\n]*)/m.exec(text);
  return m === null
    ? ''
    : `; hint: an unquoted value that starts with "{" is a YAML flow mapping: write ${m[1]}: "${(m[2] ?? '').trim()}"`;
}

function lineCounterFor(text: string): LineCounter {
  const lc = new LineCounter();
  lc.addNewLine(0);
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lc.addNewLine(i + 1);
  return lc;
}

/** Whether a plain scalar resolves to a string under go-yaml v2 rules (for the fast path). */
function plainIsString(s: string): boolean {
  if (resolveHint(s) === undefined) return true; // goResolve keeps it a string without looking further
  try {
    return goResolve('', s, 0).tag === 'str';
  } catch {
    return false;
  }
}

function lineCounterFromStarts(starts: number[]): LineCounter {
  const lc = new LineCounter();
  lc.lineStarts = starts;
  return lc;
}

/**
 * Whether `text` (a `mapRoles`/`mapUsers` value) is in the subset the hand-written scanner of
 * `aws-auth-fast.ts` reads; everything else goes through the `yaml` package. Same result either way.
 */
export function awsAuthFastPathAccepts(text: string): boolean {
  return scanEntryList(text, plainIsString) !== undefined;
}

function parseEntryKey(key: 'mapRoles' | 'mapUsers', text: string, fast: boolean): KeyOutcome {
  const trimmed = goTrimLeft(text);
  if (trimmed.startsWith('{')) {
    return keyFailure(
      key,
      text,
      `${key} starts with "{", so the authenticator decodes it as JSON, and a JSON object (or invalid JSON) is not a list of mappings${flowMappingHint(text)}`,
      text.length - trimmed.length,
      lineCounterFor(text),
    );
  }
  let lc: LineCounter;
  let json: JVal;
  // The common shape (block list of block mappings of simple scalars) is read by a line scanner
  // that yields the same JSON-level value and offsets as the library path below.
  const scanned = fast ? scanEntryList(text, plainIsString) : undefined;
  if (scanned !== undefined) {
    lc = lineCounterFromStarts(scanned.lineStarts);
    json = scanned.root;
  } else {
    try {
      const loaded = loadYaml(text);
      lc = loaded.lc;
      json = toJsonable(new GoYamlDecoder(loaded.doc, text).value(loaded.root, 0));
    } catch (e) {
      if (!(e instanceof DecodeFailure)) throw e;
      return keyFailure(
        key,
        text,
        `${key} could not be converted from YAML to JSON, so the authenticator keeps none of its entries: ${e.message}${flowMappingHint(text)}`,
        e.offset,
        lineCounterFor(text),
      );
    }
  }
  const base = { roles: [], users: [], accounts: [], lc };
  if (json.t === 'null') return { ...base, status: 'empty', issues: [] };
  if (json.t !== 'array') {
    return keyFailure(
      key,
      text,
      `${key} is ${describeJVal(json)}, not a list, so the authenticator keeps none of its entries (json: cannot unmarshal ${jsonTypeName(json)} into Go value of type []config.${key === 'mapRoles' ? 'RoleMapping' : 'UserMapping'})`,
      json.pos,
      lc,
    );
  }
  const decoder = new EntryListDecoder(key);
  const decoded = decoder.decode(json);
  const outcome: KeyOutcome = { ...base, status: 'ok', issues: decoder.issues };
  for (const { entry, pos, index } of decoded) {
    const err = validateEntry(key, entry);
    if (err !== undefined) {
      const desc = entryDesc(key, entry);
      outcome.issues.push({
        pos,
        kind: 'invalid-entry',
        entryIndex: index,
        message: `${key} entry ${index} (${desc}) is dropped by the authenticator: ${err}`,
        lost: `${key} entry ${index} (${desc})`,
      });
      continue;
    }
    const { line, col } = lc.linePos(pos);
    const location: EntryLocation = { dataKey: key, index, line, column: col };
    if (key === 'mapRoles') {
      const role: RoleMapping = { username: entry.username, groups: entry.groups, location };
      if (entry.arn !== '') role.rolearn = entry.arn;
      if (entry.sso !== null) {
        const sso: SsoMatcher = {
          permissionSetName: entry.sso.permissionSetName,
          accountID: entry.sso.accountID,
        };
        if (entry.sso.partition !== '') sso.partition = entry.sso.partition;
        role.sso = sso;
      }
      if (entry.userid !== '') role.userid = entry.userid;
      outcome.roles.push(role);
    } else {
      const user: UserMapping = {
        userarn: entry.arn,
        username: entry.username,
        groups: entry.groups,
        location,
      };
      if (entry.userid !== '') user.userid = entry.userid;
      outcome.users.push(user);
    }
  }
  return outcome;
}

function parseAccountsKey(text: string): KeyOutcome {
  let loaded: LoadedYaml;
  let res: AccountsResult;
  try {
    loaded = loadYaml(text);
    res = decodeAccounts(loaded, text);
  } catch (e) {
    if (!(e instanceof DecodeFailure)) throw e;
    return keyFailure(
      'mapAccounts',
      text,
      `mapAccounts is not valid YAML for a list of strings, so the authenticator keeps none of it: ${e.message}`,
      e.offset,
      lineCounterFor(text),
    );
  }
  if (res.isNull) return { status: 'empty', issues: [], roles: [], users: [], accounts: [], lc: loaded.lc };
  if (res.notAList !== undefined) {
    return keyFailure(
      'mapAccounts',
      text,
      `mapAccounts is ${res.notAList.what}, not a list, so the authenticator keeps no accounts`,
      res.notAList.pos,
      loaded.lc,
    );
  }
  const accounts = res.accounts.map((a) => a.value);
  const issues: Located[] = [...res.typeErrors];
  if (res.hardFailure !== undefined) {
    // go-yaml sized the slice before failing: the items not decoded stay as empty strings.
    const total = isSeq(loaded.root) ? loaded.root.items.length : accounts.length;
    while (accounts.length < total) accounts.push('');
    issues.push({
      pos: res.hardFailure.offset,
      kind: 'key-parse-failure',
      message: `mapAccounts failed to decode part-way (${res.hardFailure.message}); the authenticator keeps the ${res.accounts.length} accounts decoded before the error and empty strings for the rest`,
      lost: `every mapAccounts item from the failing one on`,
    });
  }
  for (const a of res.accounts) {
    if (!ACCOUNT_ID_RE.test(a.value)) {
      const hint = /^[0-9]{1,11}$/.test(a.value) ? `; did you mean "${a.value.padStart(12, '0')}"?` : '';
      issues.push({
        pos: a.pos,
        kind: 'suspicious-value',
        entryIndex: a.index,
        message: `mapAccounts item ${a.index} ${JSON.stringify(truncate(a.value, 60))} is not a 12-digit AWS account ID, so no principal can match it${hint}`,
        lost: `auto-mapping of the account meant by ${JSON.stringify(truncate(a.value, 60))}`,
      });
    }
  }
  return {
    status: res.hardFailure !== undefined ? 'failed' : 'ok',
    issues,
    roles: [],
    users: [],
    accounts,
    lc: loaded.lc,
  };
}

function parseKey(key: AwsAuthKey, value: unknown, fast: boolean): KeyOutcome {
  if (typeof value !== 'string') {
    return keyFailure(
      key,
      '',
      `${key} is not a string (${value === null ? 'null' : typeof value}); ConfigMap data values are always strings`,
      0,
    );
  }
  if (isSkippable(value)) return { status: 'empty', issues: [], roles: [], users: [], accounts: [] };
  try {
    return key === 'mapAccounts' ? parseAccountsKey(value) : parseEntryKey(key, value, fast);
  } catch (e) {
    // Safety net: a bug here must not hide the other keys. Property tests assert it never fires.
    return keyFailure(key, value, `internal error while parsing ${key}: ${String(e)}`, 0);
  }
}

const KEY_TARGETS: Record<string, AwsAuthKey> = {
  maproles: 'mapRoles',
  mapusers: 'mapUsers',
  mapaccounts: 'mapAccounts',
};

function nearMissKey(key: string): AwsAuthKey | undefined {
  const norm = key.toLowerCase().replace(/[-_.\s]/g, '');
  const exact = KEY_TARGETS[norm];
  if (exact !== undefined) return exact;
  let best: AwsAuthKey | undefined;
  let bestD = 3;
  for (const target of AWS_AUTH_KEYS) {
    const d = levenshtein(norm, target.toLowerCase());
    if (d < bestD) [best, bestD] = [target, d];
  }
  return best;
}

function ignoredKeyIssue(key: string, value: unknown, fast: boolean): AwsAuthIssue {
  const target = nearMissKey(key);
  if (target === undefined) {
    return {
      kind: 'ignored-key',
      dataKey: key,
      message: `data key "${key}" is ignored: the authenticator reads only mapRoles, mapUsers and mapAccounts`,
      lost: 'nothing the authenticator reads (check whether this content was meant for mapRoles, mapUsers or mapAccounts)',
    };
  }
  let lost = `everything written under "${key}"`;
  try {
    const probe = parseWith({ [target]: value as string }, fast);
    const items =
      target === 'mapRoles'
        ? probe.roles.map((r) => r.rolearn ?? `sso ${r.sso?.permissionSetName ?? ''}`)
        : target === 'mapUsers'
          ? probe.users.map((u) => u.userarn)
          : probe.accounts;
    if (items.length > 0) {
      const list = items.slice(0, 3).join(', ') + (items.length > 3 ? ', …' : '');
      const nodes = probe.roles.some((r) => r.groups.includes('system:nodes'))
        ? ', including node roles: their nodes cannot authenticate'
        : '';
      lost = `the ${plural(items.length, KEY_NOUN[target])} written under "${key}" (${list})${nodes}`;
    }
  } catch {
    // keep the generic description
  }
  return {
    kind: 'ignored-key',
    dataKey: key,
    message: `data key "${key}" is ignored: the authenticator reads only the exact, case-sensitive keys mapRoles, mapUsers and mapAccounts; did you mean "${target}"?`,
    lost,
  };
}

function emptyResult(): ParsedAwsAuth {
  return {
    roles: [],
    users: [],
    accounts: [],
    issues: [],
    keyStatus: { mapRoles: 'missing', mapUsers: 'missing', mapAccounts: 'missing' },
  };
}

/**
 * Parses a ConfigMap's `data` the way aws-iam-authenticator does, returning every mapping it
 * keeps (file order, duplicates included) and every issue. Never throws.
 */
export function parseAwsAuth(data: Record<string, string>): ParsedAwsAuth {
  return parseWith(data, true);
}

/**
 * `parseAwsAuth` without the fast path: every value goes through the `yaml` package. Same result;
 * exists so that tests can prove the two paths equal.
 */
export function parseAwsAuthSlow(data: Record<string, string>): ParsedAwsAuth {
  return parseWith(data, false);
}

function parseWith(data: Record<string, string>, fast: boolean): ParsedAwsAuth {
  const result = emptyResult();
  let entries: Array<[string, unknown]>;
  try {
    entries = data !== null && typeof data === 'object' ? Object.entries(data) : [];
  } catch {
    entries = [];
  }
  for (const key of AWS_AUTH_KEYS) {
    const found = entries.find(([k]) => k === key);
    if (found === undefined) continue;
    const outcome = parseKey(key, found[1], fast);
    result.keyStatus[key] = outcome.status;
    for (const r of outcome.roles) result.roles.push(r);
    for (const u of outcome.users) result.users.push(u);
    for (const a of outcome.accounts) result.accounts.push(a);
    // Per entry: causes (type mismatches, unknown fields) before the resulting drop.
    const rank = (i: Located) => (i.kind === 'invalid-entry' ? 1 : 0);
    const sorted = [...outcome.issues].sort(
      (a, b) => (a.entryIndex ?? -1) - (b.entryIndex ?? -1) || rank(a) - rank(b) || a.pos - b.pos,
    );
    for (const i of sorted) {
      const issue: AwsAuthIssue = { kind: i.kind, dataKey: key, message: i.message, lost: i.lost };
      if (i.entryIndex !== undefined) issue.entryIndex = i.entryIndex;
      if (outcome.lc !== undefined) {
        const { line, col } = outcome.lc.linePos(i.pos);
        issue.line = line;
        issue.column = col;
      }
      result.issues.push(issue);
    }
  }
  const others = entries
    .filter(([k]) => !(AWS_AUTH_KEYS as readonly string[]).includes(k))
    .sort(([a], [b]) => compareCodePoints(a, b));
  for (const [k, v] of others) {
    try {
      result.issues.push(ignoredKeyIssue(k, v, fast));
    } catch {
      result.issues.push({
        kind: 'ignored-key',
        dataKey: k,
        message: `data key "${k}" is ignored`,
        lost: 'nothing the authenticator reads',
      });
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Encoding (go-yaml v2 Marshal of []RoleMapping / []UserMapping / []string)
// ---------------------------------------------------------------------------------------------

function isYamlPrintable(cp: number): boolean {
  // libyaml `is_printable` as go-yaml v2 implements it (4-byte UTF-8 counts as not printable).
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
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
  let resolvesToStr: boolean;
  try {
    const r = goResolve('', s, 0);
    resolvesToStr = r.tag === 'str';
  } catch {
    resolvesToStr = false;
  }
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
  if (m.roles.length > 0) out.mapRoles = m.roles.map((r) => listItem(roleLines(r, ''))).join('');
  if (m.users.length > 0) out.mapUsers = m.users.map((u) => listItem(userLines(u))).join('');
  if (m.accounts.length > 0) out.mapAccounts = m.accounts.map((a) => `- ${yamlScalar(a)}\n`).join('');
  return out;
}

/**
 * One `mapRoles` list item as a user would paste it (groups indented under the key, as in the
 * EKS docs); values that YAML would misread, such as a leading `{`, are quoted.
 */
export function formatRoleMappingYaml(mapping: Omit<RoleMapping, 'location'>): string {
  return listItem(roleLines(mapping, '  '));
}

// ---------------------------------------------------------------------------------------------
// Whole-manifest reading (`kubectl get cm aws-auth -o yaml`)
// ---------------------------------------------------------------------------------------------

const CONFIG_MAP_KEY_RE = /^[-._a-zA-Z0-9]+$/;

export type ConfigMapManifestResult =
  | { ok: true; data: Record<string, string>; resourceVersion?: string }
  | { ok: false; error: string; line?: number };

/**
 * Reads `data` from a ConfigMap manifest. Rejects what the API server would refuse to store: a
 * data value that is not a string (e.g. `mapRoles:` without `|`, upstream `aws-auth-missing-bar.yaml`)
 * or an invalid data key.
 */
export function configMapDataFromManifest(yamlText: string): ConfigMapManifestResult {
  let lc: LineCounter | undefined;
  const fail = (error: string, pos?: number): ConfigMapManifestResult =>
    pos !== undefined && lc !== undefined
      ? { ok: false, error, line: lc.linePos(pos).line }
      : { ok: false, error };
  try {
    if (typeof yamlText !== 'string') return fail('the manifest is not a string');
    lc = lineCounterFor(yamlText);
    let json: JVal;
    try {
      const loaded = loadYaml(yamlText);
      json = toJsonable(new GoYamlDecoder(loaded.doc, yamlText).value(loaded.root, 0));
    } catch (e) {
      if (!(e instanceof DecodeFailure)) throw e;
      return fail(`the manifest is not valid YAML: ${e.message}`, e.offset);
    }
    if (json.t !== 'object')
      return fail('the manifest is not a mapping (expected a ConfigMap object)', json.pos);
    const field = (obj: JVal & { t: 'object' }, name: string) =>
      obj.entries.find((e) => e.key === name)?.value;
    const kind = field(json, 'kind');
    if (kind !== undefined && !(kind.t === 'string' && kind.v === 'ConfigMap')) {
      return fail(
        `the manifest is not a ConfigMap (kind: ${kind.t === 'string' ? kind.v : describeJVal(kind)})`,
        kind.pos,
      );
    }
    const data: Record<string, string> = {};
    const dataVal = field(json, 'data');
    if (dataVal !== undefined && dataVal.t !== 'null') {
      if (dataVal.t !== 'object') {
        return fail(
          `creating the ConfigMap object fails: "data" is ${describeJVal(dataVal)}, not a mapping of strings`,
          dataVal.pos,
        );
      }
      for (const { key, keyPos, value } of dataVal.entries) {
        if (key.length > 253 || !CONFIG_MAP_KEY_RE.test(key) || key === '.' || key.startsWith('..')) {
          return fail(
            `creating the ConfigMap object fails: data key ${JSON.stringify(truncate(key, 60))} is not a valid ConfigMap key (alphanumerics, "-", "_" or ".")`,
            keyPos,
          );
        }
        if (value.t === 'null') data[key] = '';
        else if (value.t === 'string') data[key] = value.v;
        else {
          const bar = value.t === 'array' || value.t === 'object' ? ` (missing "|" after "${key}:"?)` : '';
          return fail(
            `creating the ConfigMap object fails: data.${key} is ${describeJVal(value)}, but ConfigMap data values must be strings${bar}`,
            keyPos,
          );
        }
      }
    }
    const metadata = field(json, 'metadata');
    const rv = metadata?.t === 'object' ? field(metadata, 'resourceVersion') : undefined;
    return rv?.t === 'string' ? { ok: true, data, resourceVersion: rv.v } : { ok: true, data };
  } catch (e) {
    return fail(`internal error while reading the manifest: ${String(e)}`);
  }
}
