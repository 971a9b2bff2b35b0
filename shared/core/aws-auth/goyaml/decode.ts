/**
 * Port of gopkg.in/yaml.v2 2.4.0 `decode.go` (node tree, then decoding into `interface{}` or
 * `[]string`) and `yaml.go` `unmarshal` (first document only, `yaml: ` error prefix, type errors
 * gathered as `yaml: unmarshal errors:`).
 */

import { goBytesToString, goSharpV } from './go-format.ts';
import type { GoMapEntry, GoValue, GoYamlResult } from './go-values.ts';
import { Kind, type Node, NodeParser } from './nodes.ts';
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

// Enums bound once (tsx and vitest reach imported bindings through getters).
const Kind_ = Kind;

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
  return n.kind === Kind_.Scalar && n.value === '<<' && (n.implicit || n.tag === MERGE_TAG);
}

/** A go-yaml `failf` at a node (the position is for locating the issue; Go's text has none). */
function failAt(message: string, n: Node): never {
  throw new GoYamlFailure(message, { cause: { pos: n.mark.pos } });
}

function failWantMap(n: Node): never {
  failAt('map merge requires map or sequence of maps as the value', n);
}

/** The `decoder` of decode.go, for the two targets the authenticator uses. */
class Decoder {
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;
  private readonly active = new Set<Node>();
  /**
   * `interface{}` values of anchored nodes already decoded through an alias, with the number of
   * `count()` calls that decoding made. Go decodes the anchored node again at every alias; the
   * result is the same value (nothing mutates a decoded value) and the counts the same, so a
   * later alias reuses both: decoding is linear in the input, not in the expanded tree. The
   * excessive-aliasing check over the replayed counts is monotone (both counts grow together, the
   * ratio only rises, the allowance only falls), so checking once after adding them is checking
   * at every step. A memoized decode succeeded, so no alias inside it can close a cycle later.
   */
  private readonly aliasMemo = new Map<Node, { value: GoValue; counts: number }>();
  readonly terrors: string[] = [];
  /** The `[]string` being filled: Go's `MakeSlice(l)` stays visible when a panic stops decoding. */
  partial: string[] | undefined;
  /** Per-item detail of the `[]string` decode, for locating issues. */
  readonly detail: StringListDetail = { root: 'null', rootPos: 0, rootText: '', items: [], rejected: [] };

  private count(n = 1): void {
    this.decodeCount += n;
    if (this.aliasDepth > 0) this.aliasCount += n;
    if (
      this.aliasCount > 100 &&
      this.decodeCount > 1000 &&
      this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)
    ) {
      throw new GoYamlFailure('document contains excessive aliasing');
    }
  }

  private withAlias<T>(n: Node, fn: (target: Node) => T): T {
    if (this.active.has(n)) failAt(`anchor '${n.value}' value contains itself`, n);
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
    let r: { tag: string; value: Resolved };
    try {
      r = resolve(n.tag, n.value);
    } catch (e) {
      if (e instanceof GoYamlFailure) failAt(e.message, n);
      throw e;
    }
    if (r.tag === BINARY_TAG) {
      const data = decodeBase64(r.value.t === 'str' ? r.value.v : '');
      if (data === undefined) failAt('!!binary value contains invalid base64 data', n);
      return { tag: r.tag, value: { t: 'str', v: goBytesToString(data) } };
    }
    return r;
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

  /**
   * `d.unmarshal(n, out)` with `out` an `interface{}`. Go recurses; this keeps an explicit stack
   * of steps (each returns true when finished) so that 10000 levels of nesting decode, and runs
   * the same operations in the same order: counting, alias bookkeeping, keys before values,
   * merges in place, merge sequences backwards.
   */
  iface(root: Node): GoValue {
    let result: GoValue | undefined;
    const steps: Array<() => boolean> = [];
    this.enterValue(root, steps, (v) => {
      result = v;
    });
    while (steps.length > 0) {
      const step = steps[steps.length - 1] as () => boolean;
      if (step()) {
        // A step may have pushed more steps above itself before finishing; remove it where it is.
        const at = steps.lastIndexOf(step);
        steps.splice(at, 1);
      }
    }
    return result as GoValue;
  }

  /** Pushes the alias bookkeeping `d.alias` does around decoding the anchored node. */
  private enterAlias(n: Node, steps: Array<() => boolean>): Node {
    if (this.active.has(n)) failAt(`anchor '${n.value}' value contains itself`, n);
    this.active.add(n);
    this.aliasDepth++;
    steps.push(() => {
      this.aliasDepth--;
      this.active.delete(n);
      return true;
    });
    return n.alias as Node;
  }

  private enterValue(n: Node, steps: Array<() => boolean>, deliver: (v: GoValue) => void): void {
    this.count();
    switch (n.kind) {
      case Kind_.Document:
        this.enterValue(n.children[0] as Node, steps, deliver);
        return;
      case Kind_.Alias: {
        const target = n.alias as Node;
        const memo = this.aliasMemo.get(target);
        if (memo !== undefined) {
          this.aliasDepth++;
          this.count(memo.counts);
          this.aliasDepth--;
          deliver(memo.value);
          return;
        }
        this.enterAlias(n, steps);
        const before = this.decodeCount;
        this.enterValue(target, steps, (v) => {
          this.aliasMemo.set(target, { value: v, counts: this.decodeCount - before });
          deliver(v);
        });
        return;
      }
      case Kind_.Scalar:
        deliver(this.scalar(n));
        return;
      case Kind_.Sequence: {
        const items: GoValue[] = [];
        let i = 0;
        steps.push(() => {
          const c = n.children[i];
          if (c === undefined) {
            deliver({ kind: 'seq', items, mark: n.mark });
            return true;
          }
          const at = i++;
          this.enterValue(c, steps, (v) => {
            items[at] = v;
          });
          return false;
        });
        return;
      }
      default: {
        const m = new GoMap();
        this.enterMapping(n, m, steps, () =>
          deliver({ kind: 'map', entries: [...m.byKey.values()] as GoMapEntry[], mark: n.mark }),
        );
      }
    }
  }

  /** `d.mapping` into a (new or merged-into) map. */
  private enterMapping(n: Node, m: GoMap, steps: Array<() => boolean>, done: () => void): void {
    const c = n.children;
    let i = 0;
    let key: GoValue | undefined;
    let phase = 0;
    steps.push(() => {
      if (phase === 1) {
        const k = key as GoValue;
        // Located at the mapping: `username: {{SessionName}}` points at its first `{`.
        if (k.kind === 'map' || k.kind === 'seq') failAt(`invalid map key: ${goSharpV(k)}`, n);
        phase = 2;
        this.enterValue(c[i + 1] as Node, steps, (v) => m.set(k, v));
        return false;
      }
      if (phase === 2) {
        phase = 0;
        i += 2;
      }
      const kn = c[i];
      if (kn === undefined) {
        done();
        return true;
      }
      if (isMerge(kn)) {
        i += 2;
        this.merge(c[i - 1] as Node, m, steps);
        return false;
      }
      phase = 1;
      this.enterValue(kn, steps, (k) => {
        key = k;
      });
      return false;
    });
  }

  /** `d.unmarshal(n, out)` with `out` an existing map (merge only passes mappings and aliases to them). */
  private enterInto(n: Node, m: GoMap, steps: Array<() => boolean>): void {
    this.count();
    if (n.kind === Kind_.Alias) this.enterInto(this.enterAlias(n, steps), m, steps);
    else this.enterMapping(n, m, steps, () => {});
  }

  private merge(n: Node, m: GoMap, steps: Array<() => boolean>): void {
    switch (n.kind) {
      case Kind_.Mapping:
        this.enterInto(n, m, steps);
        return;
      case Kind_.Alias:
        if (n.alias !== undefined && n.alias.kind !== Kind_.Mapping) failWantMap(n);
        this.enterInto(n, m, steps);
        return;
      case Kind_.Sequence: {
        let i = n.children.length - 1;
        steps.push(() => {
          const ni = n.children[i--];
          if (ni === undefined) return true;
          if (ni.kind === Kind_.Alias) {
            if (ni.alias !== undefined && ni.alias.kind !== Kind_.Mapping) failWantMap(ni);
          } else if (ni.kind !== Kind_.Mapping) {
            failWantMap(ni);
          }
          this.enterInto(ni, m, steps);
          return false;
        });
        return;
      }
      default:
        failWantMap(n);
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
      case Kind_.Document:
        return this.str(n.children[0] as Node);
      case Kind_.Alias:
        return this.withAlias(n, (t) => this.str(t));
      case Kind_.Scalar: {
        const { tag, value } = this.resolveScalar(n);
        if (value.t === 'null') return '';
        if (tag === BINARY_TAG && value.t === 'str') return value.v;
        return n.value;
      }
      default:
        this.terror(n, n.kind === Kind_.Mapping ? MAP_TAG : SEQ_TAG, 'string');
        return undefined;
    }
  }

  /** `d.unmarshal(n, out)` with `out` a `[]string`: undefined = left nil/unchanged. */
  strings(n: Node): string[] | undefined {
    this.count();
    switch (n.kind) {
      case Kind_.Document:
        return this.strings(n.children[0] as Node);
      case Kind_.Alias:
        return this.withAlias(n, (t) => this.strings(t));
      case Kind_.Scalar: {
        Object.assign(this.detail, { root: 'scalar', rootPos: n.mark.pos, rootText: n.value });
        const { tag, value } = this.resolveScalar(n);
        if (value.t === 'null') {
          this.detail.root = 'null';
          return [];
        }
        this.terror(n, tag, '[]string');
        return undefined;
      }
      case Kind_.Mapping:
        Object.assign(this.detail, { root: 'mapping', rootPos: n.mark.pos });
        this.terror(n, MAP_TAG, '[]string');
        return undefined;
      default: {
        Object.assign(this.detail, { root: 'list', rootPos: n.mark.pos });
        const out = new Array<string>(n.children.length).fill('');
        this.partial = out;
        let j = 0;
        n.children.forEach((c, index) => {
          const s = this.str(c);
          if (s !== undefined) {
            out[j++] = s;
            this.detail.items.push({ index, value: s, pos: c.mark.pos });
            return;
          }
          let t = c;
          while (t.kind === Kind_.Alias && t.alias !== undefined) t = t.alias;
          this.detail.rejected.push({
            index,
            pos: c.mark.pos,
            kind: t.kind === Kind_.Mapping ? 'mapping' : 'list',
          });
        });
        return out.slice(0, j);
      }
    }
  }
}

function encodeInput(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** Go's error text, and where it happened as a UTF-16 offset (reader errors give a byte offset). */
function failure(e: unknown, input: Uint8Array): { ok: false; error: string; pos?: number } {
  if (!(e instanceof GoYamlFailure)) throw e;
  const cause = e.cause as { pos?: number; byteOffset?: number } | undefined;
  const base = { ok: false as const, error: `yaml: ${e.message}` };
  if (cause?.pos !== undefined) return { ...base, pos: cause.pos };
  if (cause?.byteOffset !== undefined) {
    return { ...base, pos: new TextDecoder().decode(input.subarray(0, cause.byteOffset)).length };
  }
  return base;
}

/** `yaml.Unmarshal([]byte(text), &v)` with `var v interface{}`. */
export function unmarshalGoYaml(text: string | Uint8Array): GoYamlResult {
  const input = typeof text === 'string' ? encodeInput(text) : text;
  try {
    const root = new NodeParser(input).parse();
    if (root === undefined) return { ok: true, value: null };
    const v = new Decoder().iface(root);
    return { ok: true, value: v.kind === 'null' ? null : v };
  } catch (e) {
    return failure(e, input);
  }
}

/** Where the items of a `[]string` decode came from (not part of go-yaml; for locating issues). */
export interface StringListDetail {
  root: 'null' | 'list' | 'mapping' | 'scalar';
  rootPos: number;
  /** A scalar root's text. */
  rootText: string;
  /** Items decoded, with their index in the YAML sequence. */
  items: Array<{ index: number; value: string; pos: number }>;
  /** Items skipped with a type error (a mapping or a list where a string is expected). */
  rejected: Array<{ index: number; pos: number; kind: 'mapping' | 'list' }>;
}

export type StringListResult =
  | {
      readonly ok: true;
      readonly values: readonly string[];
      readonly error?: string;
      /** False when the document's root is neither a sequence nor null (nothing can be decoded). */
      readonly rootIsList: boolean;
      readonly detail: StringListDetail;
    }
  | {
      readonly ok: false;
      readonly error: string;
      /** Where it failed (UTF-16 offset into the text), when known. */
      readonly pos?: number;
      /** What the list holds after the failure (decoded items, then zero values). */
      readonly values: readonly string[];
      readonly detail: StringListDetail;
    };

/**
 * `yaml.Unmarshal([]byte(text), &list)` with `list := make([]string, 0)` (mapAccounts). Type
 * errors keep the decoded items and come back as `error` (`yaml: unmarshal errors:\n  line …`).
 */
export function unmarshalGoYamlStrings(text: string | Uint8Array): StringListResult {
  const d = new Decoder();
  const input = typeof text === 'string' ? encodeInput(text) : text;
  try {
    const root = new NodeParser(input).parse();
    if (root === undefined) return { ok: true, values: [], rootIsList: true, detail: d.detail };
    const list = d.strings(root);
    const values = list ?? [];
    const rootIsList = list !== undefined;
    if (d.terrors.length > 0) {
      const error = `yaml: unmarshal errors:\n  ${d.terrors.join('\n  ')}`;
      return { ok: true, values, rootIsList, error, detail: d.detail };
    }
    return { ok: true, values, rootIsList, detail: d.detail };
  } catch (e) {
    return { ...failure(e, input), values: d.partial ?? [], detail: d.detail };
  }
}
