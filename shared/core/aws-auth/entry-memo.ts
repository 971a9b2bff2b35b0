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
import type { EntryLocation, RoleMapping, SsoMatcher, UserMapping } from './model.ts';

type EntryKey = 'mapRoles' | 'mapUsers';

/** A clean parse (fast path, no issue) to take entries from: its decoded entries and their locations. */
interface Source {
  key: EntryKey;
  text: string;
  lineStarts: readonly number[];
  entries: RawEntry[];
  locations: EntryLocation[];
}

interface Known {
  entry: RawEntry;
  column: number;
}

interface State {
  pending: Source[];
  /** By data key, then by an entry's text. */
  known: Record<EntryKey, Map<string, Known>>;
}

let state: State | undefined;

/** Runs `fn` with the memo on (nested calls share the outer one); it is emptied afterwards. */
export function withEntryMemo<T>(fn: () => T): T {
  if (state !== undefined) return fn();
  state = { pending: [], known: { mapRoles: new Map(), mapUsers: new Map() } };
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
  if (state !== undefined && source.entries.length > 0) state.pending.push(source);
}

function learn(s: State): void {
  for (const src of s.pending) {
    const known = s.known[src.key];
    const starts = src.locations.map((l) => src.lineStarts[(l.line ?? 1) - 1] ?? 0);
    for (let i = 0; i < starts.length; i++) {
      const text = src.text.slice(starts[i], starts[i + 1] ?? src.text.length);
      known.set(text, { entry: src.entries[i] as RawEntry, column: src.locations[i]?.column ?? 0 });
    }
  }
  s.pending = [];
}

/** One entry's text read on its own: its decoded entry and the column of its first key, if clean. */
function readAlone(key: EntryKey, text: string, plainIsString: (s: string) => boolean): Known | undefined {
  const scanned = scanEntryList(text, plainIsString);
  if (scanned === undefined || scanned.root.items.length !== 1) return undefined;
  const decoder = new EntryListDecoder(key);
  const [item] = decoder.decode(scanned.root);
  if (item === undefined || decoder.issues.length > 0 || validateEntry(key, item.entry) !== undefined)
    return undefined;
  return { entry: item.entry, column: new LineIndex(scanned.lineStarts).linePos(item.pos).col };
}

const SPACE = 0x20;
const DASH = 0x2d;
const OUTSIDE_ASCII = /[^\n\x20-\x7e]/;

export interface EntryParse {
  mappings: Array<{ role: RoleMapping } | { user: UserMapping }>;
  entries: RawEntry[];
  locations: EntryLocation[];
  lineStarts: number[];
}

/**
 * `text` parsed from the entries known in this evaluation (see the file comment), or `undefined`
 * when the memo is off, nothing is known for `key`, or anything is not clean.
 */
export function parseFromKnown(
  key: EntryKey,
  text: string,
  plainIsString: (s: string) => boolean,
): EntryParse | undefined {
  const s = state;
  if (s === undefined || (s.pending.length === 0 && s.known[key].size === 0)) return undefined;
  if (s.pending.some((p) => p.key === key && p.text === text)) return undefined;
  learn(s);
  const known = s.known[key];
  if (known.size === 0 || OUTSIDE_ASCII.test(text)) return undefined;
  const out: EntryParse = { mappings: [], entries: [], locations: [], lineStarts: [] };
  const lineStarts = out.lineStarts;
  const fresh: Array<[string, Known]> = [];
  let rootIndent = -1;
  let chunkStart = -1;
  let chunkLine = 0;
  const close = (end: number): boolean => {
    if (chunkStart < 0) return true;
    const chunk = text.slice(chunkStart, end);
    let k = known.get(chunk);
    if (k === undefined) {
      k = readAlone(key, chunk, plainIsString);
      if (k === undefined) return false;
      fresh.push([chunk, k]);
    }
    const index = out.entries.length;
    const entry = { ...k.entry, groups: k.entry.groups.slice() };
    const location: EntryLocation = { dataKey: key, index, line: chunkLine, column: k.column };
    out.entries.push(entry);
    out.locations.push(location);
    out.mappings.push(toMapping(key, entry, location));
    return true;
  };
  const len = text.length;
  let start = 0;
  // The scanner's line loop (fast-path.ts), deciding only where entries start.
  while (start <= len) {
    if (start === len && start > 0) break;
    lineStarts.push(start);
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
        chunkStart = start;
        chunkLine = lineStarts.length;
      }
    }
    start = end + 1;
  }
  if (chunkStart < 0 || !close(len)) return undefined;
  for (const [chunk, k] of fresh) known.set(chunk, k);
  return out;
}
