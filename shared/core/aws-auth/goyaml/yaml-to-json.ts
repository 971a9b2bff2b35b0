/**
 * Port of sigs.k8s.io/yaml `yamlToJSON` / `convertToJSONableObject` (the copy Debian ships, over
 * gopkg.in/yaml.v2) followed by `encoding/json` `Marshal`: map keys become strings the Go way,
 * numbers and booleans become strings where the JSON target is a string, NaN/±Inf are rejected
 * by the marshaller, object keys come out sorted bytewise.
 */
import { compareGoStrings, formatFloatG, formatJsonFloat, goSharpV, postOrder } from './go-format.ts';
import type { GoValue, JsonEntry, JsonResult, JsonValue } from './go-values.ts';

/** The reflect.Value `jsonTarget` walks (only `Unmarshal` passes one; `YAMLToJSON` passes nil). */
export type JsonTarget =
  | { readonly kind: 'string' }
  | {
      readonly kind: 'struct';
      readonly fields: readonly { readonly name: string; readonly target: JsonTarget }[];
    }
  | { readonly kind: 'slice'; readonly elem: JsonTarget }
  | { readonly kind: 'map'; readonly elem: JsonTarget }
  | { readonly kind: 'other' };

class ConvertFailure extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

function goTypeName(v: GoValue): string {
  switch (v.kind) {
    case 'null':
      // `%s` of a nil reflect.Type.
      return '%!s(<nil>)';
    case 'int':
      return v.unsigned ? 'uint64' : 'int';
    case 'float':
      return 'float64';
    case 'bool':
      return 'bool';
    case 'str':
      return 'string';
    case 'seq':
      return '[]interface {}';
    default:
      return 'map[interface {}]interface {}';
  }
}

function topSharpV(v: GoValue): string {
  return v.kind === 'null' ? '<nil>' : goSharpV(v);
}

function keyString(k: GoValue, v: GoValue): string {
  switch (k.kind) {
    case 'str':
      return k.value;
    case 'int':
      if (!k.unsigned) return k.value.toString();
      break;
    case 'float': {
      const s = formatFloatG(k.value, 32);
      return s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s === 'NaN' ? '.nan' : s;
    }
    case 'bool':
      return k.value ? 'true' : 'false';
  }
  throw new ConvertFailure(
    `Unsupported map key of type: ${goTypeName(k)}, key: ${topSharpV(k)}, value: ${topSharpV(v)}`,
    k.mark.pos,
  );
}

/** encoding/json field lookup as sigs.k8s.io/yaml does it: exact name, else the first fold match. */
function findField(
  fields: readonly { readonly name: string; readonly target: JsonTarget }[],
  key: string,
  fold: (field: string, key: string) => boolean,
): JsonTarget | undefined {
  let found: JsonTarget | undefined;
  for (const f of fields) {
    if (f.name === key) return f.target;
    if (found === undefined && fold(f.name, key)) found = f.target;
  }
  return found;
}

interface Converted {
  key: string;
  keyPos: number;
  value: Conv;
}

type Conv =
  | { kind: 'leaf'; v: GoValue }
  | { kind: 'coerced'; s: string; v: GoValue }
  | { kind: 'object'; entries: Converted[]; v: GoValue }
  | { kind: 'array'; items: Conv[]; v: GoValue };

interface ConvNode {
  v: GoValue;
  target: JsonTarget | undefined;
  keys?: { key: string; keyPos: number }[];
}

/** `convertToJSONableObject` (keys to strings, jsonTarget coercion), all keys checked before `Marshal`. */
function convert(
  root: GoValue,
  rootTarget: JsonTarget | undefined,
  fold: (f: string, k: string) => boolean,
): Conv {
  // A value decoded once and reached through several aliases is one object (decode.ts): convert
  // it once per target, so that the work follows the input, not the expanded tree.
  const done = new Map<GoValue, { target: JsonTarget | undefined; conv: Conv }>();
  const cached = (n: ConvNode): Conv | undefined => {
    const hit = done.get(n.v);
    return hit !== undefined && hit.target === n.target ? hit.conv : undefined;
  };
  return postOrder<ConvNode, Conv>(
    { v: root, target: rootTarget },
    (n) => {
      const { v, target } = n;
      if (cached(n) !== undefined) return undefined;
      if (v.kind === 'seq') {
        const elem = target?.kind === 'slice' ? target.elem : undefined;
        return v.items.map((i) => ({ v: i, target: elem }));
      }
      if (v.kind !== 'map') return undefined;
      n.keys = [];
      const kids: ConvNode[] = [];
      for (const e of v.entries) {
        const key = keyString(e.key, e.value);
        let sub: JsonTarget | undefined;
        if (target?.kind === 'struct') sub = findField(target.fields, key, fold);
        else if (target?.kind === 'map') sub = target.elem;
        n.keys.push({ key, keyPos: e.key.mark.pos });
        kids.push({ v: e.value, target: sub });
      }
      return kids;
    },
    (n, kids) => {
      const hit = cached(n);
      if (hit !== undefined) return hit;
      const conv = convertOne(n, kids);
      done.set(n.v, { target: n.target, conv });
      return conv;
    },
  );
}

function convertOne(n: ConvNode, kids: Conv[]): Conv {
  const { v, target } = n;
  if (v.kind === 'map') {
    // Go iterates its map in random order; a collision between e.g. `1` and `"1"` keeps the
    // last one here, one of the two there.
    const byKey = new Map<string, Converted>();
    (n.keys ?? []).forEach((k, i) => {
      byKey.set(k.key, { ...k, value: kids[i] as Conv });
    });
    return { kind: 'object', entries: [...byKey.values()], v };
  }
  if (v.kind === 'seq') return { kind: 'array', items: kids, v };
  if (target?.kind === 'string') {
    let s = '';
    if (v.kind === 'int') s = v.value.toString();
    else if (v.kind === 'float') s = formatFloatG(v.value, 32);
    else if (v.kind === 'bool') s = v.value ? 'true' : 'false';
    if (s.length > 0) return { kind: 'coerced', s, v };
  }
  return { kind: 'leaf', v };
}

/** `json.Marshal` of the converted tree (sorted keys; NaN and ±Inf are unsupported values). */
function marshal(root: Conv): JsonValue {
  const sorted = new Map<Conv, Converted[]>();
  // Shared subtrees (aliases, see `convert`) are marshalled once.
  const done = new Map<Conv, JsonValue>();
  return postOrder<Conv, JsonValue>(
    root,
    (c) => {
      if (done.has(c)) return undefined;
      if (c.kind === 'array') return c.items;
      if (c.kind !== 'object') return undefined;
      const entries = [...c.entries].sort((a, b) => compareGoStrings(a.key, b.key));
      sorted.set(c, entries);
      return entries.map((e) => e.value);
    },
    (c, kids) => {
      const hit = done.get(c);
      if (hit !== undefined) return hit;
      const value = marshalOne(c, kids, sorted);
      done.set(c, value);
      return value;
    },
  );
}

function marshalOne(c: Conv, kids: JsonValue[], sorted: Map<Conv, Converted[]>): JsonValue {
  const pos = c.v.mark.pos;
  if (c.kind === 'coerced') return { t: 'string', v: c.s, pos, end: pos, style: 'plain' };
  if (c.kind === 'array') return { t: 'array', items: kids, pos };
  if (c.kind === 'object') {
    const entries: JsonEntry[] = (sorted.get(c) ?? []).map((e, i) => ({
      key: e.key,
      keyPos: e.keyPos,
      value: kids[i] as JsonValue,
    }));
    return { t: 'object', entries, pos };
  }
  const v = c.v;
  switch (v.kind) {
    case 'str':
      return { t: 'string', v: v.value, pos, end: v.end, style: v.style };
    case 'int':
      return { t: 'number', text: v.value.toString(), pos };
    case 'float':
      if (!Number.isFinite(v.value)) {
        throw new ConvertFailure(`json: unsupported value: ${formatFloatG(v.value, 64)}`, pos);
      }
      return { t: 'number', text: formatJsonFloat(v.value), pos };
    case 'bool':
      return { t: 'bool', v: v.value, pos };
    default:
      return { t: 'null', pos };
  }
}

/** ASCII-only case folding; go-json.ts passes encoding/json's exact fold rules. */
function asciiFold(field: string, key: string): boolean {
  return field.toLowerCase() === key.toLowerCase() && !/[^\x20-\x7e]/.test(key);
}

/**
 * sigs.k8s.io/yaml conversion of a go-yaml `interface{}` tree, then `json.Marshal`. `null` (an
 * empty document) is JSON `null`. `fold` is the field-name fold used with a struct `target`.
 */
export function yamlToJson(
  value: GoValue | null,
  target?: JsonTarget,
  fold: (field: string, key: string) => boolean = asciiFold,
): JsonResult {
  if (value === null) return { ok: true, value: { t: 'null', pos: 0 } };
  try {
    return { ok: true, value: marshal(convert(value, target, fold)) };
  } catch (e) {
    if (!(e instanceof ConvertFailure)) throw e;
    return { ok: false, error: e.message, pos: e.pos };
  }
}
