/**
 * `parseAwsAuth`: each data key on its own (fast path or the go-yaml v2 port, then the shared entry
 * decoder), issues with line/column, loss descriptions and near-miss data keys.
 */
import { DecodeFailure } from './decode-failure.ts';
import { describeMapped, ignoredDocumentIssue } from './documents.ts';
import { parseFromKnown, rememberEntries, toMapping } from './entry-memo.ts';
import { scanEntryList } from './fast-path.ts';
import { compareCodePoints, goTrimLeft, isSkippable, levenshtein, plural, truncate } from './go-text.ts';
import { type AccountsResult, decodeAccountsGoYaml, goYamlToJVal } from './go-yaml-front.ts';
import { resolve, STR_TAG } from './goyaml/resolve.ts';
import {
  addRepeat,
  describeJVal,
  EntryListDecoder,
  entryDesc,
  type JVal,
  jsonTypeName,
  type Located,
  type RawEntry,
  validateEntry,
} from './json-decode.ts';
import { LineIndex } from './line-index.ts';
import {
  AWS_AUTH_KEYS,
  type AwsAuthIssue,
  type AwsAuthKey,
  type EntryLocation,
  type KeyStatus,
  type ParsedAwsAuth,
  type RoleMapping,
  type UserMapping,
} from './parse-result.ts';
import { ACCOUNT_ID_RE, KEY_NOUN } from './upstream.ts';

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

/**
 * The YAML front end that reads what the fast path does not. The product has one, `GO_YAML` (the
 * go-yaml v2 port, what the authenticator runs); the parameter exists so that the benchmark can
 * run a `yaml`-package reader (`bench/legacy-aws-auth/`) through the same decoder and compare
 * the two. Both throw `DecodeFailure` for a value go-yaml rejects whole.
 */
export interface YamlFront {
  /** `mapRoles` / `mapUsers`: the JSON-level tree sigs.k8s.io/yaml's `YAMLToJSON` produces. */
  entries(text: string): JVal;
  /** `mapAccounts`: go-yaml `Unmarshal` into `[]string`; `total`: items the slice was sized to. */
  accounts(text: string): AccountsResult & { total: number };
}

const GO_YAML: YamlFront = { entries: goYamlToJVal, accounts: decodeAccountsGoYaml };

interface KeyOutcome {
  status: KeyStatus;
  issues: Located[];
  roles: RoleMapping[];
  users: UserMapping[];
  accounts: string[];
  lc?: LineIndex;
}

function keyFailure(key: AwsAuthKey, text: string, message: string, pos: number, lc?: LineIndex): KeyOutcome {
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

/** Whether a plain scalar resolves to a string under go-yaml v2 rules (for the fast path). */
function plainIsString(s: string): boolean {
  return resolve('', s).tag === STR_TAG;
}

/**
 * Whether `text` (a `mapRoles`/`mapUsers` value) is in the subset the hand-written scanner of
 * `fast-path.ts` reads; everything else goes through the go-yaml v2 port. Same result either way.
 */
export function awsAuthFastPathAccepts(text: string): boolean {
  return scanEntryList(text, plainIsString) !== undefined;
}

function parseEntryKey(
  key: 'mapRoles' | 'mapUsers',
  text: string,
  fast: boolean,
  front: YamlFront,
): KeyOutcome {
  const trimmed = goTrimLeft(text);
  if (trimmed.startsWith('{')) {
    return keyFailure(
      key,
      text,
      `${key} starts with "{", so the authenticator decodes it as JSON, and a JSON object (or invalid JSON) is not a list of mappings${flowMappingHint(text)}`,
      text.length - trimmed.length,
      LineIndex.of(text),
    );
  }
  const reused = fast ? parseFromKnown(key, text, plainIsString) : undefined;
  if (reused !== undefined) {
    const outcome: KeyOutcome = {
      status: 'ok',
      issues: [],
      roles: [],
      users: [],
      accounts: [],
      lc: new LineIndex(reused.lineStarts),
    };
    reused.entries.forEach((entry, i) => {
      const m = toMapping(key, entry, reused.locations[i] as EntryLocation);
      if ('role' in m) outcome.roles.push(m.role);
      else outcome.users.push(m.user);
    });
    return outcome;
  }
  let lc: LineIndex;
  let json: JVal;
  // The common shape (block list of block mappings of simple scalars) is read by a line scanner
  // that yields the same JSON-level value and offsets as the library path below.
  const scanned = fast ? scanEntryList(text, plainIsString) : undefined;
  if (scanned !== undefined) {
    lc = new LineIndex(scanned.lineStarts);
    json = scanned.root;
  } else {
    try {
      json = front.entries(text);
      lc = LineIndex.of(text);
    } catch (e) {
      if (!(e instanceof DecodeFailure)) throw e;
      return keyFailure(
        key,
        text,
        `${key} could not be converted from YAML to JSON, so the authenticator keeps none of its entries: ${e.message}${flowMappingHint(text)}`,
        e.offset,
        LineIndex.of(text),
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
  // The drop of an entry that repeats an earlier one (an alias of the same node) is that one's.
  const dropped = new Map<number, Located>();
  const entries: RawEntry[] = [];
  const locations: EntryLocation[] = [];
  for (const { entry, pos, index, repeatOf } of decoded) {
    const first = repeatOf === undefined ? undefined : dropped.get(repeatOf);
    if (first !== undefined) {
      addRepeat(first, index);
      continue;
    }
    const err = validateEntry(key, entry);
    if (err !== undefined) {
      const desc = entryDesc(key, entry);
      const issue: Located = {
        pos,
        kind: 'invalid-entry',
        entryIndex: index,
        message: `${key} entry ${index} (${desc}) is dropped by the authenticator: ${err}`,
        lost: `${key} entry ${index} (${desc})`,
      };
      outcome.issues.push(issue);
      dropped.set(index, issue);
      continue;
    }
    const { line, col } = lc.linePos(pos);
    const location: EntryLocation = { dataKey: key, index, line, column: col };
    const mapping = toMapping(key, entry, location);
    if ('role' in mapping) outcome.roles.push(mapping.role);
    else outcome.users.push(mapping.user);
    entries.push(entry);
    locations.push(location);
  }
  if (scanned !== undefined && outcome.issues.length === 0)
    rememberEntries({ key, text, lineStarts: lc.lineStarts, entries, locations });
  return outcome;
}

function parseAccountsKey(text: string, front: YamlFront): KeyOutcome {
  let lc: LineIndex;
  let res: AccountsResult & { total: number };
  try {
    res = front.accounts(text);
    lc = LineIndex.of(text);
  } catch (e) {
    if (!(e instanceof DecodeFailure)) throw e;
    return keyFailure(
      'mapAccounts',
      text,
      `mapAccounts is not valid YAML for a list of strings, so the authenticator keeps none of it: ${e.message}`,
      e.offset,
      LineIndex.of(text),
    );
  }
  if (res.isNull) return { status: 'empty', issues: [], roles: [], users: [], accounts: [], lc };
  if (res.notAList !== undefined) {
    return keyFailure(
      'mapAccounts',
      text,
      `mapAccounts is ${res.notAList.what}, not a list, so the authenticator keeps no accounts`,
      res.notAList.pos,
      lc,
    );
  }
  const accounts = res.accounts.map((a) => a.value);
  const issues: Located[] = [...res.typeErrors];
  if (res.hardFailure !== undefined) {
    // go-yaml sized the slice before failing: the items not decoded stay as empty strings.
    while (accounts.length < res.total) accounts.push('');
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
    lc,
  };
}

function parseKey(key: AwsAuthKey, value: unknown, fast: boolean, front: YamlFront): KeyOutcome {
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
    return key === 'mapAccounts' ? parseAccountsKey(value, front) : parseEntryKey(key, value, fast, front);
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

function ignoredKeyIssue(key: string, value: unknown, fast: boolean, front: YamlFront): AwsAuthIssue {
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
    lost =
      describeMapped(
        target,
        parseWith({ [target]: value as string }, fast, front),
        `written under "${key}"`,
      ) ?? lost;
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
  return parseWith(data, true, GO_YAML);
}

/**
 * `parseAwsAuth` without the fast path: every value goes through the go-yaml v2 port. Same
 * result; exists so that tests can prove the two paths equal.
 */
export function parseAwsAuthSlow(data: Record<string, string>): ParsedAwsAuth {
  return parseWith(data, false, GO_YAML);
}

/**
 * `parseAwsAuth` (fast path included) over another YAML front end. Not in `index.ts`: only the
 * benchmark calls it, with the `yaml`-package reader of `bench/legacy-aws-auth/`.
 */
export function parseAwsAuthWithFront(data: Record<string, string>, front: YamlFront): ParsedAwsAuth {
  return parseWith(data, true, front);
}

/** `laterDocuments: false` for a probe of one ignored document (no probe of its own). */
function parseWith(
  data: Record<string, string>,
  fast: boolean,
  front: YamlFront,
  laterDocuments = true,
): ParsedAwsAuth {
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
    const outcome = parseKey(key, found[1], fast, front);
    if (laterDocuments && outcome.status !== 'failed' && typeof found[1] === 'string') {
      const ignored = ignoredDocumentIssue(
        key,
        found[1],
        (t) => parseWith({ [key]: t }, fast, front, false),
        outcome.roles,
      );
      if (ignored !== undefined) {
        outcome.issues.push(ignored);
        outcome.lc ??= LineIndex.of(found[1]);
      }
    }
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
      if (i.repeats !== undefined) issue.repeats = i.repeats;
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
      result.issues.push(ignoredKeyIssue(k, v, fast, front));
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
