/**
 * Port of gopkg.in/yaml.v2 2.4.0 `decode.go` (node tree, then decoding into `interface{}` or
 * `[]string`) and `yaml.go` `unmarshal` (first document only, `yaml: ` error prefix, type errors
 * gathered as `yaml: unmarshal errors:`).
 */

import { goBytesToString, goSharpV } from './go-format.ts';
import type { GoMapEntry, GoMark, GoValue, GoYamlResult, ScalarStyle } from './index.ts';
import { EVENT_NAMES, EventType, parseEvent, type YamlEvent } from './parser.ts';
import { ErrorType, ScalarStyleCode, YamlParser } from './reader.ts';
import {
  BINARY_TAG,
  GoYamlFailure,
  MAP_TAG,
  MERGE_TAG,
  type Resolved,
  resolve,
  SEQ_TAG,
  STR_TAG,
  shortTag,
} from './resolve.ts';

enum Kind {
  Document = 1,
  Mapping = 2,
  Sequence = 4,
  Scalar = 8,
  Alias = 16,
}

interface Node {
  kind: Kind;
  mark: GoMark;
  end: number;
  style: ScalarStyle;
  tag: string;
  alias: Node | undefined;
  value: string;
  implicit: boolean;
  children: Node[];
}

const STYLES: Record<number, ScalarStyle> = {
  [ScalarStyleCode.SingleQuoted]: 'single',
  [ScalarStyleCode.DoubleQuoted]: 'double',
  [ScalarStyleCode.Literal]: 'literal',
  [ScalarStyleCode.Folded]: 'folded',
};

/** The `parser` type of decode.go: events to nodes. */
class NodeParser {
  private readonly p: YamlParser;
  private ev: YamlEvent | undefined;
  private anchors = new Map<string, Node>();
  private doneInit = false;

  constructor(input: Uint8Array) {
    this.p = new YamlParser(input.length === 0 ? new Uint8Array([0x0a]) : input);
  }

  private fail(): never {
    const pr = this.p;
    let line = 0;
    if (pr.problem_mark.line !== 0) {
      line = pr.problem_mark.line;
      if (pr.error === ErrorType.Scanner) line++;
    } else if (pr.context_mark.line !== 0) {
      line = pr.context_mark.line;
    }
    const where = line !== 0 ? `line ${line}: ` : '';
    const msg = pr.problem.length > 0 ? pr.problem : 'unknown problem parsing YAML content';
    throw new GoYamlFailure(`${where}${msg}`, {
      cause: { line: pr.problem_mark.line, pos: pr.problem_mark.pos },
    });
  }

  private peek(): YamlEvent {
    if (this.ev !== undefined) return this.ev;
    const e = parseEvent(this.p);
    if (e === undefined) this.fail();
    this.ev = e;
    return e;
  }

  private expect(t: EventType): void {
    const e = this.ev ?? parseEvent(this.p);
    if (e === undefined) this.fail();
    this.ev = e;
    if (e.typ === EventType.StreamEnd)
      throw new GoYamlFailure('attempted to go past the end of stream; corrupted value?');
    if (e.typ !== t) {
      this.p.problem = `expected ${EVENT_NAMES[t]} event but got ${EVENT_NAMES[e.typ]}`;
      this.fail();
    }
    this.ev = undefined;
  }

  private node(kind: Kind): Node {
    const e = this.ev as YamlEvent;
    return {
      kind,
      mark: { pos: e.start_mark.pos, line: e.start_mark.line, column: e.start_mark.column },
      end: e.end_mark.pos,
      style: STYLES[e.style] ?? 'plain',
      tag: '',
      alias: undefined,
      value: '',
      implicit: false,
      children: [],
    };
  }

  private anchor(n: Node, anchor: number[] | null): void {
    if (anchor !== null) this.anchors.set(goBytesToString(anchor), n);
  }

  parse(): Node | undefined {
    if (!this.doneInit) {
      this.expect(EventType.StreamStart);
      this.doneInit = true;
    }
    switch (this.peek().typ) {
      case EventType.Scalar:
        return this.scalar();
      case EventType.Alias:
        return this.alias();
      case EventType.MappingStart:
        return this.mapping();
      case EventType.SequenceStart:
        return this.sequence();
      case EventType.DocumentStart:
        return this.document();
      case EventType.StreamEnd:
        return undefined;
      default:
        throw new Error(`attempted to parse unknown event: ${EVENT_NAMES[this.peek().typ]}`);
    }
  }

  private child(): Node {
    const n = this.parse();
    if (n === undefined) throw new GoYamlFailure('attempted to go past the end of stream; corrupted value?');
    return n;
  }

  private document(): Node {
    const n = this.node(Kind.Document);
    this.anchors = new Map();
    this.expect(EventType.DocumentStart);
    n.children.push(this.child());
    this.expect(EventType.DocumentEnd);
    return n;
  }

  private alias(): Node {
    const n = this.node(Kind.Alias);
    n.value = goBytesToString((this.ev as YamlEvent).anchor ?? []);
    n.alias = this.anchors.get(n.value);
    if (n.alias === undefined) throw new GoYamlFailure(`unknown anchor '${n.value}' referenced`);
    this.expect(EventType.Alias);
    return n;
  }

  private scalar(): Node {
    const e = this.ev as YamlEvent;
    const n = this.node(Kind.Scalar);
    n.value = goBytesToString(e.value);
    n.tag = goBytesToString(e.tag);
    n.implicit = e.implicit;
    this.anchor(n, e.anchor);
    this.expect(EventType.Scalar);
    return n;
  }

  private sequence(): Node {
    const n = this.node(Kind.Sequence);
    this.anchor(n, (this.ev as YamlEvent).anchor);
    this.expect(EventType.SequenceStart);
    while (this.peek().typ !== EventType.SequenceEnd) n.children.push(this.child());
    this.expect(EventType.SequenceEnd);
    return n;
  }

  private mapping(): Node {
    const n = this.node(Kind.Mapping);
    this.anchor(n, (this.ev as YamlEvent).anchor);
    this.expect(EventType.MappingStart);
    while (this.peek().typ !== EventType.MappingEnd) {
      n.children.push(this.child());
      n.children.push(this.child());
    }
    this.expect(EventType.MappingEnd);
    return n;
  }
}

const ALIAS_RATIO_RANGE_LOW = 400_000;
const ALIAS_RATIO_RANGE_HIGH = 4_000_000;

function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= ALIAS_RATIO_RANGE_LOW) return 0.99;
  if (decodeCount >= ALIAS_RATIO_RANGE_HIGH) return 0.1;
  return (
    0.99 - 0.89 * ((decodeCount - ALIAS_RATIO_RANGE_LOW) / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW))
  );
}

/** Go map key identity for `map[interface{}]interface{}` (dynamic type + value; NaN never equal). */
function keyId(k: GoValue, seq: number): string {
  switch (k.kind) {
    case 'null':
      return 'n';
    case 'str':
      return `s:${k.value}`;
    case 'int':
      return `${k.unsigned ? 'u' : 'i'}:${k.value}`;
    case 'float':
      return Number.isNaN(k.value) ? `nan:${seq}` : `f:${k.value === 0 ? 0 : k.value}`;
    case 'bool':
      return `b:${k.value}`;
    default:
      return `x:${seq}`;
  }
}

/** `map[interface{}]interface{}` under construction: Go map semantics, first-insertion order kept. */
class GoMap {
  readonly byKey = new Map<string, { key: GoValue; value: GoValue }>();
  private seq = 0;
  set(key: GoValue, value: GoValue): void {
    const id = keyId(key, this.seq++);
    const cur = this.byKey.get(id);
    if (cur === undefined) this.byKey.set(id, { key, value });
    else {
      cur.key = key;
      cur.value = value;
    }
  }
}

/** Go `base64.StdEncoding.DecodeString` (CR and LF ignored); undefined when invalid. */
function decodeBase64(s: string): number[] | undefined {
  const clean = s.replace(/[\r\n]/g, '');
  if (clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(clean)) {
    return undefined;
  }
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const out: number[] = [];
  for (let i = 0; i < clean.length; i += 4) {
    const q = clean.slice(i, i + 4);
    const n = [...q].map((c) => (c === '=' ? 0 : alphabet.indexOf(c)));
    const v = ((n[0] ?? 0) << 18) | ((n[1] ?? 0) << 12) | ((n[2] ?? 0) << 6) | (n[3] ?? 0);
    out.push((v >> 16) & 0xff);
    if (q[2] !== '=') out.push((v >> 8) & 0xff);
    if (q[3] !== '=') out.push(v & 0xff);
  }
  return out;
}

function isMerge(n: Node): boolean {
  return n.kind === Kind.Scalar && n.value === '<<' && (n.implicit || n.tag === MERGE_TAG);
}

function failWantMap(): never {
  throw new GoYamlFailure('map merge requires map or sequence of maps as the value');
}

/** The `decoder` of decode.go, for the two targets the authenticator uses. */
class Decoder {
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;
  private readonly active = new Set<Node>();
  readonly terrors: string[] = [];

  private count(): void {
    this.decodeCount++;
    if (this.aliasDepth > 0) this.aliasCount++;
    if (
      this.aliasCount > 100 &&
      this.decodeCount > 1000 &&
      this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)
    ) {
      throw new GoYamlFailure('document contains excessive aliasing');
    }
  }

  private withAlias<T>(n: Node, fn: (target: Node) => T): T {
    if (this.active.has(n)) throw new GoYamlFailure(`anchor '${n.value}' value contains itself`);
    this.active.add(n);
    this.aliasDepth++;
    const r = fn(n.alias as Node);
    this.aliasDepth--;
    this.active.delete(n);
    return r;
  }

  /** `d.scalar` up to the resolved value: [tag, resolved]. */
  private resolveScalar(n: Node): { tag: string; value: Resolved } {
    if (n.tag === '' && !n.implicit) return { tag: STR_TAG, value: { t: 'str', v: n.value } };
    const r = resolve(n.tag, n.value);
    if (r.tag === BINARY_TAG) {
      const data = decodeBase64(r.value.t === 'str' ? r.value.v : '');
      if (data === undefined) throw new GoYamlFailure('!!binary value contains invalid base64 data');
      return { tag: r.tag, value: { t: 'str', v: goBytesToString(data) } };
    }
    return r;
  }

  /** `d.unmarshal(n, out)` with `out` an `interface{}`. */
  iface(n: Node): GoValue {
    this.count();
    switch (n.kind) {
      case Kind.Document:
        return this.iface(n.children[0] as Node);
      case Kind.Alias:
        return this.withAlias(n, (t) => this.iface(t));
      case Kind.Scalar:
        return this.scalar(n);
      case Kind.Sequence:
        return { kind: 'seq', items: n.children.map((c) => this.iface(c)), mark: n.mark };
      default: {
        const m = new GoMap();
        this.fillMap(n, m);
        return { kind: 'map', entries: [...m.byKey.values()] as GoMapEntry[], mark: n.mark };
      }
    }
  }

  private scalar(n: Node): GoValue {
    const { value } = this.resolveScalar(n);
    const mark = n.mark;
    switch (value.t) {
      case 'null':
        return { kind: 'null', mark };
      case 'bool':
        return { kind: 'bool', value: value.v, mark };
      case 'int':
        return { kind: 'int', value: value.v, unsigned: false, mark };
      case 'uint':
        return { kind: 'int', value: value.v, unsigned: true, mark };
      case 'float':
        return { kind: 'float', value: value.v, mark };
      case 'timestamp':
        return { kind: 'str', value: n.value, mark, end: n.end, style: n.style };
      default:
        return { kind: 'str', value: value.v, mark, end: n.end, style: n.style };
    }
  }

  /** `d.mapping` into a (new or merged-into) map. */
  private fillMap(n: Node, m: GoMap): void {
    const c = n.children;
    for (let i = 0; i < c.length; i += 2) {
      const kn = c[i] as Node;
      const vn = c[i + 1] as Node;
      if (isMerge(kn)) {
        this.merge(vn, m);
        continue;
      }
      const k = this.iface(kn);
      if (k.kind === 'map' || k.kind === 'seq') throw new GoYamlFailure(`invalid map key: ${goSharpV(k)}`);
      m.set(k, this.iface(vn));
    }
  }

  /** `d.unmarshal(n, out)` with `out` an existing map (merge only passes mappings and aliases to them). */
  private intoMap(n: Node, m: GoMap): void {
    this.count();
    if (n.kind === Kind.Alias) this.withAlias(n, (t) => this.intoMap(t, m));
    else this.fillMap(n, m);
  }

  private merge(n: Node, m: GoMap): void {
    switch (n.kind) {
      case Kind.Mapping:
        this.intoMap(n, m);
        return;
      case Kind.Alias:
        if (n.alias !== undefined && n.alias.kind !== Kind.Mapping) failWantMap();
        this.intoMap(n, m);
        return;
      case Kind.Sequence:
        for (let i = n.children.length - 1; i >= 0; i--) {
          const ni = n.children[i] as Node;
          if (ni.kind === Kind.Alias) {
            if (ni.alias !== undefined && ni.alias.kind !== Kind.Mapping) failWantMap();
          } else if (ni.kind !== Kind.Mapping) {
            failWantMap();
          }
          this.intoMap(ni, m);
        }
        return;
      default:
        failWantMap();
    }
  }

  private terror(n: Node, tag: string, outType: string): void {
    const t = n.tag !== '' ? n.tag : tag;
    let value = n.value;
    if (t !== SEQ_TAG && t !== MAP_TAG) {
      const chars = [...new TextEncoder().encode(value)];
      value = chars.length > 10 ? ` \`${goBytesToString(chars.slice(0, 7))}...\`` : ` \`${value}\``;
    }
    this.terrors.push(`line ${n.mark.line + 1}: cannot unmarshal ${shortTag(t)}${value} into ${outType}`);
  }

  /** `d.unmarshal(n, out)` with `out` a `string`: the value, or undefined when not set (type error). */
  str(n: Node): string | undefined {
    this.count();
    switch (n.kind) {
      case Kind.Document:
        return this.str(n.children[0] as Node);
      case Kind.Alias:
        return this.withAlias(n, (t) => this.str(t));
      case Kind.Scalar: {
        const { tag, value } = this.resolveScalar(n);
        if (value.t === 'null') return '';
        if (tag === BINARY_TAG && value.t === 'str') return value.v;
        return n.value;
      }
      default:
        this.terror(n, n.kind === Kind.Mapping ? MAP_TAG : SEQ_TAG, 'string');
        return undefined;
    }
  }

  /** `d.unmarshal(n, out)` with `out` a `[]string`: undefined = left nil/unchanged. */
  strings(n: Node): string[] | undefined {
    this.count();
    switch (n.kind) {
      case Kind.Document:
        return this.strings(n.children[0] as Node);
      case Kind.Alias:
        return this.withAlias(n, (t) => this.strings(t));
      case Kind.Scalar: {
        const { tag, value } = this.resolveScalar(n);
        if (value.t === 'null') return [];
        this.terror(n, tag, '[]string');
        return undefined;
      }
      case Kind.Mapping:
        this.terror(n, MAP_TAG, '[]string');
        return undefined;
      default: {
        const out: string[] = [];
        for (const c of n.children) {
          const s = this.str(c);
          if (s !== undefined) out.push(s);
        }
        return out;
      }
    }
  }
}

function encodeInput(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function failure(e: unknown): { ok: false; error: string; mark?: GoMark } {
  if (!(e instanceof GoYamlFailure)) throw e;
  const cause = e.cause as { line: number; pos: number } | undefined;
  const base = { ok: false as const, error: `yaml: ${e.message}` };
  return cause === undefined ? base : { ...base, mark: { pos: cause.pos, line: cause.line, column: 0 } };
}

/** `yaml.Unmarshal([]byte(text), &v)` with `var v interface{}`. */
export function unmarshalGoYaml(text: string | Uint8Array): GoYamlResult {
  try {
    const root = new NodeParser(typeof text === 'string' ? encodeInput(text) : text).parse();
    if (root === undefined) return { ok: true, value: null };
    const v = new Decoder().iface(root);
    return { ok: true, value: v.kind === 'null' ? null : v };
  } catch (e) {
    return failure(e);
  }
}

export type StringListResult =
  | { readonly ok: true; readonly values: readonly string[]; readonly error?: string }
  | { readonly ok: false; readonly error: string; readonly mark?: GoMark };

/**
 * `yaml.Unmarshal([]byte(text), &list)` with `list := make([]string, 0)` (mapAccounts). Type
 * errors keep the decoded items and come back as `error` (`yaml: unmarshal errors:\n  line …`).
 */
export function unmarshalGoYamlStrings(text: string | Uint8Array): StringListResult {
  try {
    const root = new NodeParser(typeof text === 'string' ? encodeInput(text) : text).parse();
    if (root === undefined) return { ok: true, values: [] };
    const d = new Decoder();
    const values = d.strings(root) ?? [];
    if (d.terrors.length > 0) {
      return { ok: true, values, error: `yaml: unmarshal errors:\n  ${d.terrors.join('\n  ')}` };
    }
    return { ok: true, values };
  } catch (e) {
    return failure(e);
  }
}
