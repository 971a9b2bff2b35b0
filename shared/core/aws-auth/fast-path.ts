/**
 * The hand-written fast path: `scanEntryList`, a line scanner for the common shape of
 * `mapRoles` / `mapUsers` that yields the same JSON-level value as the go-yaml v2 port.
 */
/**
 * Fast path for the common shape of `mapRoles` / `mapUsers`.
 *
 * Why hand-written: a general YAML reader (the go-yaml v2 port, like the `yaml` package of
 * `bench/legacy-aws-auth/`) takes about a second for a 10,000-entry `mapRoles` (~1 MB; BENCHMARKS.md, engine section)
 * — 10 to 20 times the budget of the whole engine (parse + resolve + every rule in under 100 ms). Almost every aws-auth in the wild is written by
 * EKS, eksctl, Terraform or our own encoder and has one rigid shape, which a line scanner reads in
 * a few milliseconds.
 *
 * The scanner recognises ONLY a conservative subset of YAML and returns `undefined` for anything
 * else; the caller then takes the go-yaml port unchanged. Accepted:
 *
 * - printable ASCII and `\n` only (no tab, CR, BOM, NEL, control or non-ASCII character anywhere);
 * - blank lines (empty or spaces only) anywhere;
 * - a block sequence at one indent R whose every item is `- key: …` opening a block mapping, with
 *   all later keys of that entry at the column of the first key (E = R + 1 + spaces after `-`);
 * - keys: `[A-Za-z][A-Za-z0-9_-]*` (at most 64 characters) that YAML 1.1 resolves to a string,
 *   directly followed by `:`; duplicates and unknown names are allowed (the shared decoder deals
 *   with them exactly as for the go-yaml port);
 * - values: `key: []`, `key:` followed by one or more `- scalar` lines all at one indent G ≥ E, or
 *   `key: scalar`;
 * - scalars on one line, optionally followed by spaces: single-quoted without `'` inside,
 *   double-quoted without `\` or `"` inside, or plain: first character `[A-Za-z0-9_]`, the rest
 *   `[A-Za-z0-9_./:@=+,{}()$-]` or space, no `: `, no ` - `, no trailing `:`, and resolving to a
 *   string under go-yaml v2 (YAML 1.1) rules — so no y/yes/no/on/off/true/false/null/~ in any case,
 *   no number, no timestamp.
 *
 * Everything else — comments, anchors, aliases, tags, merge keys, flow mappings, non-empty flow
 * sequences, block scalars, multi-line scalars, null values, nested mappings (`sso:`), document
 * markers, directives, odd indentation — is rejected. The result is the JSON-level value the
 * go-yaml port would build (`goYamlToJVal`), with the same source offsets, so
 * decoding into entries, validation and issue reporting are shared, not duplicated.
 */

export interface FastString {
  t: 'string';
  v: string;
  pos: number;
  dashFold: false;
}

export interface FastList {
  t: 'array';
  items: FastString[];
  pos: number;
}

export interface FastField {
  key: string;
  keyPos: number;
  value: FastString | FastList;
}

export interface FastEntry {
  t: 'object';
  /** Sorted by key, one per key (the last duplicate wins), like sigs.k8s.io/yaml's JSON object. */
  entries: FastField[];
  pos: number;
}

export interface FastScan {
  root: { t: 'array'; items: FastEntry[]; pos: number };
  /** Offsets where each line starts (0 first), for line/column positions. */
  lineStarts: number[];
}

/** Anything outside printable ASCII and `\n`. */
const OUTSIDE_ASCII = /[^\n\x20-\x7e]/;
const MAX_KEY_LENGTH = 64;

const SPACE = 0x20;
const DASH = 0x2d;
const COLON = 0x3a;
const SQUOTE = 0x27;
const DQUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isKeyChar(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === 0x5f || c === DASH;
}

/** First character of a plain scalar: `[A-Za-z0-9_]`. */
function isPlainStart(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === 0x5f;
}

/** Later characters of a plain scalar: `[A-Za-z0-9_./:@=+,{}()$-]` and space. */
const PLAIN_BODY = new Uint8Array(128);
for (const ch of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@=+,{}()$- ') {
  PLAIN_BODY[ch.charCodeAt(0)] = 1;
}

/** Field names as written by EKS, eksctl, Terraform and the encoder: shared strings, no allocation. */
const KNOWN_KEYS = ['rolearn', 'userarn', 'username', 'groups', 'userid'];

function knownKey(text: string, from: number, to: number): string | undefined {
  for (const k of KNOWN_KEYS) if (k.length === to - from && text.startsWith(k, from)) return k;
  return undefined;
}

/**
 * Scans `text` (one data value) if it is in the subset described above; `undefined` otherwise.
 * `plainIsString` tells whether a plain scalar resolves to a string under go-yaml v2 rules.
 */
export function scanEntryList(text: string, plainIsString: (s: string) => boolean): FastScan | undefined {
  if (OUTSIDE_ASCII.test(text)) return undefined;
  const lineStarts: number[] = [];
  const items: FastEntry[] = [];
  let rootIndent = -1;
  let rootPos = 0;
  let entry: FastEntry | undefined;
  let keyIndent = -1;
  /** The field whose block list is open (after `key:`), and the indent of its items once known. */
  let list: FastList | undefined;
  let listIndent = -1;
  const len = text.length;

  /** Parses a one-line scalar in [p, end) (trailing spaces already excluded). */
  const scalar = (p: number, end: number): FastString | undefined => {
    if (p >= end) return undefined;
    const c = text.charCodeAt(p);
    if (c === SQUOTE || c === DQUOTE) {
      if (end - p < 2 || text.charCodeAt(end - 1) !== c) return undefined;
      for (let i = p + 1; i < end - 1; i++) {
        const d = text.charCodeAt(i);
        if (d === c || (c === DQUOTE && d === BACKSLASH)) return undefined;
      }
      return { t: 'string', v: text.slice(p + 1, end - 1), pos: p, dashFold: false };
    }
    if (!isPlainStart(c)) return undefined;
    for (let i = p + 1; i < end; i++) {
      const d = text.charCodeAt(i);
      if (PLAIN_BODY[d] !== 1) return undefined;
      if (d === COLON && text.charCodeAt(i + 1) === SPACE) return undefined;
      if (d === SPACE && text.charCodeAt(i + 1) === DASH && text.charCodeAt(i + 2) === SPACE)
        return undefined;
    }
    if (text.charCodeAt(end - 1) === COLON) return undefined;
    const v = text.slice(p, end);
    return plainIsString(v) ? { t: 'string', v, pos: p, dashFold: false } : undefined;
  };

  /** Parses `key: value`, `key: []` or `key:` at p (a key's column) to the line end; false if outside the subset. */
  const field = (p: number, end: number): boolean => {
    if (entry === undefined) return false;
    let i = p;
    if (!isLetter(text.charCodeAt(i))) return false;
    while (i < end && isKeyChar(text.charCodeAt(i))) i++;
    if (i - p > MAX_KEY_LENGTH || text.charCodeAt(i) !== COLON || i >= end) return false;
    const key = knownKey(text, p, i) ?? text.slice(p, i);
    if (!plainIsString(key)) return false;
    i++; // past ':'
    let value: FastString | FastList;
    if (i === end) {
      list = { t: 'array', items: [], pos: -1 };
      listIndent = -1;
      value = list;
    } else {
      if (text.charCodeAt(i) !== SPACE) return false;
      while (i < end && text.charCodeAt(i) === SPACE) i++;
      if (i === end) {
        list = { t: 'array', items: [], pos: -1 };
        listIndent = -1;
        value = list;
      } else if (end - i === 2 && text.charCodeAt(i) === LBRACKET && text.charCodeAt(i + 1) === RBRACKET) {
        value = { t: 'array', items: [], pos: i };
      } else {
        const s = scalar(i, end);
        if (s === undefined) return false;
        value = s;
      }
    }
    // Kept sorted by key (ASCII, so `<` is byte order), the last duplicate replacing the earlier one.
    const fields = entry.entries;
    const f: FastField = { key, keyPos: p, value };
    let k = fields.length;
    while (k > 0 && key < (fields[k - 1] as FastField).key) k--;
    if (k > 0 && (fields[k - 1] as FastField).key === key) {
      fields[k - 1] = f;
    } else {
      fields.push(f);
      for (let j = fields.length - 1; j > k; j--) fields[j] = fields[j - 1] as FastField;
      fields[k] = f;
    }
    return true;
  };

  /** An open `key:` list that never got an item is a null value: outside the subset. */
  const closeList = (): boolean => {
    const ok = list === undefined || list.items.length > 0;
    list = undefined;
    listIndent = -1;
    return ok;
  };

  let start = 0;
  while (start <= len) {
    if (start === len && start > 0) break;
    lineStarts.push(start);
    let end = text.indexOf('\n', start);
    if (end === -1) end = len;
    const next = end + 1;
    let ind = start;
    while (ind < end && text.charCodeAt(ind) === SPACE) ind++;
    let last = end;
    while (last > ind && text.charCodeAt(last - 1) === SPACE) last--;
    if (ind === last) {
      start = next;
      continue; // blank line
    }
    const indent = ind - start;
    const c = text.charCodeAt(ind);
    const dashItem = c === DASH && ind + 1 < last && text.charCodeAt(ind + 1) === SPACE;
    if (dashItem && (rootIndent === -1 || indent === rootIndent)) {
      // A new entry: `- key…`.
      if (!closeList()) return undefined;
      if (rootIndent === -1) {
        rootIndent = indent;
        rootPos = ind;
      }
      let p = ind + 1;
      while (text.charCodeAt(p) === SPACE) p++;
      keyIndent = p - start;
      entry = { t: 'object', entries: [], pos: p };
      items.push(entry);
      if (!field(p, last)) return undefined;
    } else if (
      dashItem &&
      list !== undefined &&
      indent >= keyIndent &&
      (listIndent === -1 || indent === listIndent)
    ) {
      // An item of the open `key:` list.
      if (listIndent === -1) {
        listIndent = indent;
        list.pos = ind;
      }
      let p = ind + 1;
      while (text.charCodeAt(p) === SPACE) p++;
      const s = scalar(p, last);
      if (s === undefined) return undefined;
      list.items.push(s);
    } else if (!dashItem && entry !== undefined && indent === keyIndent) {
      if (!closeList()) return undefined;
      if (!field(ind, last)) return undefined;
    } else {
      return undefined;
    }
    start = next;
  }
  if (!closeList() || items.length === 0) return undefined;
  return { root: { t: 'array', items, pos: rootPos }, lineStarts };
}
