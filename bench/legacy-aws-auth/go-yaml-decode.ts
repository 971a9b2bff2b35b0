/**
 * The former go-yaml v2 emulation (benchmark only): decoding into interface{} (decode.go): the `GoVal` tree built from a `yaml` document,
 * with go-yaml's aliases, merge keys, map-key rules and alias-ratio limit.
 */
import { type Alias, type Document, isAlias, isMap, isScalar, isSeq, type Scalar, type YAMLMap } from 'yaml';
import { DecodeFailure } from '../../shared/core/aws-auth/decode-failure.ts';
import {
  BINARY_TAG,
  checkDoubleQuotedEscapes,
  decodeBinary,
  goResolve,
  MERGE_TAG,
  type Resolved,
} from './go-yaml-resolve.ts';
import { nodeStart, type YamlNode } from './yaml-load.ts';

export type GoVal =
  | { t: 'null'; pos: number }
  | { t: 'str'; v: string; pos: number; dashFold: boolean }
  | { t: 'int'; v: bigint; pos: number }
  | { t: 'float'; v: number; pos: number }
  | { t: 'bool'; v: boolean; pos: number }
  | { t: 'map'; entries: GoEntry[]; pos: number }
  | { t: 'seq'; items: GoVal[]; pos: number };

export interface GoEntry {
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

export class GoYamlDecoder {
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
