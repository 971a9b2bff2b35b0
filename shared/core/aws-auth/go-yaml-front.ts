/**
 * The go-yaml v2 port (`goyaml/`) as the parser's slow path: a `mapRoles`/`mapUsers` value to
 * the JSON-level tree the entry decoder reads, and `mapAccounts` to its per-item result. Issue
 * texts stay the parser's; the YAML behaviour is go-yaml's.
 */
import { DecodeFailure } from './decode-failure.ts';
import { truncate } from './go-text.ts';
import { type JsonValue, unmarshalGoYaml, unmarshalGoYamlStrings, yamlToJson } from './goyaml/index.ts';
import type { JVal, Located } from './json-decode.ts';

/** `mapAccounts` decoded: the items kept, the ones skipped and how decoding ended. */
export interface AccountsResult {
  accounts: Array<{ value: string; pos: number; index: number }>;
  typeErrors: Located[];
  /** A go-yaml panic mid-list: the slice keeps decoded items plus zero values for the rest. */
  hardFailure?: DecodeFailure;
  /** The root is not a list (or null): nothing decoded. */
  notAList?: { pos: number; what: string };
  isNull: boolean;
}

/** Levels of the tree the entry decoder looks into (list, entry, field, group); deeper ones keep only their kind. */
const DEPTH = 4;

/** A plain scalar folded from `- ` lines: `a - b` written as a continuation line of item `a`. */
function dashFold(v: JsonValue & { t: 'string' }, text: string): boolean {
  return v.style === 'plain' && v.v.includes(' - ') && /\n[ \t]*- /.test(text.slice(v.pos, v.end));
}

/** Converted values by depth: a subtree reached through several aliases is one object (goyaml/decode.ts), converted once, so the entry decoder sees one value and reports its issues once. */
type Done = Map<JsonValue, { depth: number; jval: JVal }>;

function toJVal(v: JsonValue, text: string, depth: number, done: Done): JVal {
  if (v.t !== 'array' && v.t !== 'object' && v.t !== 'string') return v;
  const hit = done.get(v);
  if (hit !== undefined && hit.depth === depth) return hit.jval;
  const jval = convertOne(v, text, depth, done);
  done.set(v, { depth, jval });
  return jval;
}

function convertOne(
  v: JsonValue & { t: 'array' | 'object' | 'string' },
  text: string,
  depth: number,
  done: Done,
): JVal {
  switch (v.t) {
    case 'string':
      return { t: 'string', v: v.v, pos: v.pos, dashFold: dashFold(v, text) };
    case 'array':
      return {
        t: 'array',
        items: depth > 0 ? v.items.map((i) => toJVal(i, text, depth - 1, done)) : [],
        pos: v.pos,
      };
    default:
      return {
        t: 'object',
        entries:
          depth > 0
            ? v.entries.map((e) => ({
                key: e.key,
                keyPos: e.keyPos,
                value: toJVal(e.value, text, depth - 1, done),
              }))
            : [],
        pos: v.pos,
      };
  }
}

/** sigs.k8s.io/yaml `YAMLToJSON` over the go-yaml port; throws DecodeFailure with go-yaml's text. */
export function goYamlToJVal(text: string, depth = DEPTH): JVal {
  const y = unmarshalGoYaml(text);
  if (!y.ok) throw new DecodeFailure(y.error, y.pos ?? 0);
  const j = yamlToJson(y.value);
  if (!j.ok) throw new DecodeFailure(j.error, j.pos);
  return toJVal(j.value, text, depth, new Map());
}

/** go-yaml `Unmarshal` into `[]string` (mapAccounts). */
export function decodeAccountsGoYaml(text: string): AccountsResult & { total: number } {
  const r = unmarshalGoYamlStrings(text);
  const d = r.detail;
  const res: AccountsResult & { total: number } = {
    accounts: d.items.map((i) => ({ value: i.value, pos: i.pos, index: i.index })),
    typeErrors: d.rejected.map((x) => ({
      pos: x.pos,
      kind: 'type-mismatch',
      entryIndex: x.index,
      message: `mapAccounts item ${x.index} is a ${x.kind}, not a string; the authenticator skips it (yaml: cannot unmarshal ${x.kind === 'mapping' ? '!!map' : '!!seq'} into string)`,
      lost: `mapAccounts item ${x.index}`,
    })),
    isNull: d.root === 'null',
    total: r.values.length,
  };
  if (!r.ok) {
    // A failure before the root was reached fails the whole key (the caller reports it).
    if (d.root !== 'list') throw new DecodeFailure(r.error, r.pos ?? 0);
    res.hardFailure = new DecodeFailure(r.error, r.pos ?? d.rootPos);
    return res;
  }
  if (d.root === 'mapping') res.notAList = { pos: d.rootPos, what: 'a mapping' };
  if (d.root === 'scalar') {
    res.notAList = { pos: d.rootPos, what: `a scalar (${JSON.stringify(truncate(d.rootText, 40))})` };
  }
  return res;
}
