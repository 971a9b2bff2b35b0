/**
 * Entries of `mapRoles` / `mapUsers` reused between parses of one evaluation (`withEntryMemo`,
 * switched on by `withAwsAuthMemo`). A plan's state after shares almost every entry with the
 * state before, and the line scan of the fast path is most of a parse: a second text is cut at
 * its entry lines, and an entry whose text (from the line of its `- ` to the next entry's) was
 * read before, in a parse with no issue, is taken from there instead of scanned and decoded.
 *
 * Why that is the same result: the scanner of `fast-path.ts` starts afresh at every `- ` line at
 * the list's indent (the entry, its key column and its open list are reset; only the indent,
 * which the entry's text starts with, carries over), so an entry's text is read the same wherever
 * it stands, and its position only shifts the line of its location. Entries seen for the first
 * time are scanned and decoded on their own; anything the scanner rejects, and any issue at all,
 * gives up (`undefined`) and the caller parses the whole text as before. Only for texts in the
 * fast path's subset; nothing survives the evaluation.
 */
import { scanEntryList } from './fast-path.ts';
import { EntryListDecoder, type RawEntry, validateEntry } from './json-decode.ts';
import { LineIndex } from './line-index.ts';
import type { EntryLocation, RoleMapping, SsoMatcher, UserMapping } from './parse-result.ts';

type EntryKey = 'mapRoles' | 'mapUsers';

/** A clean parse (fast path, no issue) to take entries from: its decoded entries and their locations. */
interface Source {
  key: EntryKey;
  text: string;
  lineStarts: readonly number[];
  entries: RawEntry[];
  locations: EntryLocation[];
}

/** Entry `at` of a source. */
interface Known {
  src: Source;
  at: number;
}

interface State {
  sources: Source[];
  /** How many of `sources` are in `known`: built only when entries are not in the order of the last source. */
  learned: number;
  /** By data key, then by an entry's text. */
  known: Record<EntryKey, Map<string, Known>>;
}

let state: State | undefined;

/** Runs `fn` with the memo on (nested calls share the outer one); it is emptied afterwards. */
export function withEntryMemo<T>(fn: () => T): T {
  if (state !== undefined) return fn();
  state = { sources: [], learned: 0, known: { mapRoles: new Map(), mapUsers: new Map() } };
  try {
    return fn();
  } finally {
    state = undefined;
  }
}

/** The mapping the parser keeps for a decoded, valid entry (fields in the parser's order). */
export function toMapping(
  key: EntryKey,
  entry: RawEntry,
  location: EntryLocation,
): { role: RoleMapping } | { user: UserMapping } {
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
    return { role };
  }
  const user: UserMapping = { userarn: entry.arn, username: entry.username, groups: entry.groups, location };
  if (entry.userid !== '') user.userid = entry.userid;
  return { user };
}

/** Offers a clean parse's entries to later parses of the evaluation (nothing when the memo is off). */
export function rememberEntries(source: Source): void {
  if (state !== undefined && source.entries.length > 0) state.sources.push(source);
}

/** Where entry `at` of `src` starts (its line's start) and ends (the next entry's line, or the end). */
function chunkOf(src: Source, at: number): [number, number] {
  const from = src.lineStarts[(src.locations[at]?.line ?? 1) - 1] ?? 0;
  const next = src.locations[at + 1];
  return [from, next === undefined ? src.text.length : (src.lineStarts[(next.line ?? 1) - 1] ?? 0)];
}

function learn(s: State): void {
  for (; s.learned < s.sources.length; s.learned++) {
    const src = s.sources[s.learned] as Source;
    const known = s.known[src.key];
    for (let at = 0; at < src.entries.length; at++) {
      const [from, to] = chunkOf(src, at);
      known.set(src.text.slice(from, to), { src, at });
    }
  }
}

/** One entry's text read on its own: its decoded entry and the column of its first key, if clean. */
function readAlone(
  key: EntryKey,
  text: string,
  plainIsString: (s: string) => boolean,
): { entry: RawEntry; column: number } | undefined {
  const scanned = scanEntryList(text, plainIsString);
  if (scanned === undefined || scanned.root.items.length !== 1) return undefined;
  const decoder = new EntryListDecoder(key);
  const [item] = decoder.decode(scanned.root);
  if (item === undefined || decoder.issues.length > 0 || validateEntry(key, item.entry) !== undefined)
    return undefined;
  const column = new LineIndex(scanned.lineStarts).linePos(item.pos).col;
  return { entry: item.entry, column };
}

const SPACE = 0x20;
const DASH = 0x2d;

/** Whether the line at `p` (a line start) is an entry line (`- ` and more) at indent `root`. */
function entryLineAt(text: string, p: number, root: number): boolean {
  let end = text.indexOf('\n', p);
  if (end === -1) end = text.length;
  let ind = p;
  while (ind < end && text.charCodeAt(ind) === SPACE) ind++;
  let last = end;
  while (last > ind && text.charCodeAt(last - 1) === SPACE) last--;
  return (
    ind - p === root && text.charCodeAt(ind) === DASH && ind + 1 < last && text.charCodeAt(ind + 1) === SPACE
  );
}

/**
 * `text` parsed from the entries known in this evaluation (see the file comment), or `undefined`
 * when the memo is off, nothing is known for `key`, or anything is not clean. Entries are first
 * looked for where they stood in the last parse (an edit leaves most of them in order), then by
 * their text.
 */
export function parseFromKnown(
  key: EntryKey,
  text: string,
  plainIsString: (s: string) => boolean,
): Source | undefined {
  const s = state;
  if (s === undefined) return undefined;
  const previous = s.sources.findLast((p) => p.key === key);
  // No test for characters outside the subset: every character is in a blank line before the first
  // entry (spaces only), in an entry taken from a source (scanned), or in one read on its own.
  if (previous === undefined || previous.text === text) return undefined;
  const known = s.known[key];
  const out: Source = { key, text, lineStarts: [], entries: [], locations: [] };
  const lineStarts = out.lineStarts as number[];
  const len = text.length;
  let cursor: Known = { src: previous, at: 0 };
  const add = (entry: RawEntry, line: number, column: number): void => {
    const location: EntryLocation = { dataKey: key, index: out.entries.length, line, column };
    out.entries.push({ ...entry, groups: entry.groups.slice() });
    out.locations.push(location);
  };
  /** Where entry `cursor` ends if `text` has it, whole, at `p` (it is then added); -1 otherwise. */
  const atCursor = (p: number, root: number): number => {
    const { src, at } = cursor;
    if (at >= src.entries.length) return -1;
    const [from, to] = chunkOf(src, at);
    const end = p + to - from;
    if (end > len || !text.startsWith(src.text.slice(from, to), p)) return -1;
    if (end < len && !entryLineAt(text, end, root)) return -1;
    const line = lineStarts.length + 1;
    for (let i = (src.locations[at]?.line ?? 1) - 1; i < src.lineStarts.length; i++) {
      const start = src.lineStarts[i] as number;
      if (start >= to) break;
      lineStarts.push(start - from + p);
    }
    add(src.entries[at] as RawEntry, line, src.locations[at]?.column ?? 0);
    cursor = { src, at: at + 1 };
    return end;
  };
  let chunkStart = -1;
  let chunkLine = 0;
  /** The entry whose lines were read one by one: known by its text, or read on its own. */
  const close = (end: number): boolean => {
    if (chunkStart < 0) return true;
    const chunk = text.slice(chunkStart, end);
    chunkStart = -1;
    if (s.learned < s.sources.length) learn(s);
    const k = known.get(chunk);
    if (k !== undefined) {
      add(k.src.entries[k.at] as RawEntry, chunkLine, k.src.locations[k.at]?.column ?? 0);
      cursor = { src: k.src, at: k.at + 1 };
      return true;
    }
    const alone = readAlone(key, chunk, plainIsString);
    if (alone === undefined) return false;
    add(alone.entry, chunkLine, alone.column);
    cursor = { src: cursor.src, at: cursor.at + 1 };
    return true;
  };
  let rootIndent = -1;
  let start = 0;
  // The scanner's line loop (fast-path.ts), deciding only where entries start.
  while (start <= len) {
    if (start === len && start > 0) break;
    let end = text.indexOf('\n', start);
    if (end === -1) end = len;
    let ind = start;
    while (ind < end && text.charCodeAt(ind) === SPACE) ind++;
    let last = end;
    while (last > ind && text.charCodeAt(last - 1) === SPACE) last--;
    if (ind < last) {
      const dashItem = text.charCodeAt(ind) === DASH && ind + 1 < last && text.charCodeAt(ind + 1) === SPACE;
      if (rootIndent === -1) {
        if (!dashItem) return undefined;
        rootIndent = ind - start;
      }
      if (dashItem && ind - start === rootIndent) {
        if (!close(start)) return undefined;
        const to = atCursor(start, rootIndent);
        if (to >= 0) {
          start = to;
          continue;
        }
        chunkStart = start;
        chunkLine = lineStarts.length + 1;
      }
    }
    lineStarts.push(start);
    start = end + 1;
  }
  if (!close(len) || out.entries.length === 0) return undefined;
  s.sources.push(out);
  return out;
}
