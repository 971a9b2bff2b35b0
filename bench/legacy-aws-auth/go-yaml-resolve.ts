/**
 * The former go-yaml v2 scalar resolution of the `yaml`-package front end (benchmark only; the
 * product resolves with `goyaml/resolve.ts`), after resolve.go: YAML 1.1 bools, ints, floats,
 * nulls, timestamps, explicit tags, `!!binary`, and libyaml's check of double-quoted escapes.
 */

import { DecodeFailure } from '../../shared/core/aws-auth/decode-failure.ts';
import { truncate } from '../../shared/core/aws-auth/go-text.ts';
import {
  DOT_FLOAT,
  goParseInt,
  goParseUint,
  isTimestamp as isGoTimestamp,
  YAML_STYLE_FLOAT,
} from '../../shared/core/aws-auth/goyaml/resolve.ts';

const TAG_PREFIX = 'tag:yaml.org,2002:';
const STR_TAG = `${TAG_PREFIX}str`;
const BOOL_TAG = `${TAG_PREFIX}bool`;
const INT_TAG = `${TAG_PREFIX}int`;
const FLOAT_TAG = `${TAG_PREFIX}float`;
const NULL_TAG = `${TAG_PREFIX}null`;
const TIMESTAMP_TAG = `${TAG_PREFIX}timestamp`;
export const BINARY_TAG = `${TAG_PREFIX}binary`;
export const MERGE_TAG = `${TAG_PREFIX}merge`;
const RESOLVABLE_TAGS = new Set(['', STR_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, NULL_TAG, TIMESTAMP_TAG]);

export type Resolved =
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

export function resolveHint(s: string): 'M' | '.' | 'D' | 'S' | undefined {
  if (s === '') return 'M'; // go-yaml uses 'N'; the empty string is in the map (null) either way.
  const c = s[0] ?? '';
  if (c === '+' || c === '-') return 'S';
  if (c >= '0' && c <= '9') return 'D';
  if ('yYnNtTfFoO~'.includes(c)) return 'M';
  if (c === '.') return '.';
  return undefined;
}

export const INT64_MAX = (1n << 63n) - 1n;

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
export function goResolve(tag: string, s: string, offset: number): Resolved {
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
export function decodeBinary(s: string, offset: number): string {
  const clean = s.replace(/[\r\n]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0) {
    throw new DecodeFailure('!!binary value contains invalid base64 data', offset);
  }
  const bin = atob(clean);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8').decode(bytes);
}

/** libyaml rejects `\u`/`\U` escapes that are surrogates or beyond U+10FFFF; the `yaml` package combines them. */
export function checkDoubleQuotedEscapes(raw: string, offset: number): void {
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
