/**
 * The precompiled validator of ClusterSnapshot: `acceptSnapshot(value)` returns what the zod
 * schema's `safeParse` returns as `data` for a valid snapshot — a copy, each object's keys in
 * schema order — and undefined for anything else, and for what it leaves to zod: a `__proto__`
 * key in a record (zod drops it), an object that JSON.parse cannot make (another prototype, symbol
 * keys). The CLI's input decoder (shared/app/commands/decode-input.ts) loads the zod schema (`validateSnapshot`,
 * snapshot-schema.ts) only then, for the error messages: a start that reads a valid snapshot pays
 * neither for loading zod and building the schema nor for zod's first parse (≈ 30 ms).
 *
 * The checks come from SNAPSHOT_SHAPE, generated from the zod schema
 * (scripts/gen-snapshot-validator.ts); test/core/snapshot-accept.property.test.ts checks that the
 * two validators agree and that the generated file is fresh.
 */
import type { ClusterSnapshot } from '../model.ts';
import { SNAPSHOT_SHAPE } from './shape.generated.ts';
import type { Shape } from './shape.ts';

const NO: unique symbol = Symbol('invalid');
type Check = (v: unknown) => unknown;

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

function objectCheck(fields: Record<string, Shape>, optional: readonly string[] = []): Check {
  const keys = Object.keys(fields);
  const known = new Set(keys);
  const checks = keys.map((key) => ({
    key,
    check: compile(fields[key] as Shape),
    optional: optional.includes(key),
  }));
  return (v) => {
    if (!isPlain(v) || Object.getOwnPropertySymbols(v).length > 0) return NO;
    for (const key in v) if (!known.has(key)) return NO;
    const out: Record<string, unknown> = {};
    for (const { key, check, optional: isOptional } of checks) {
      if (isOptional && !(key in v)) continue;
      const x = check(v[key]);
      if (x === NO) return NO;
      out[key] = x;
    }
    return out;
  };
}

function compile(shape: Shape): Check {
  if (shape === 'boolean') return (v) => (typeof v === 'boolean' ? v : NO);
  if ('string' in shape) {
    const { string: patterns, minLength = 0 } = shape;
    // zod counts code points; for a minimum of 0 or 1 that is the length in UTF-16 units.
    if (minLength > 1) throw new Error('acceptSnapshot: a minLength above 1 is not supported');
    return (v) =>
      typeof v === 'string' && v.length >= minLength && patterns.every((p) => p.test(v)) ? v : NO;
  }
  if ('int' in shape) {
    const { min } = shape;
    return (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= min ? v : NO);
  }
  if ('oneOf' in shape) {
    const values = new Set<unknown>(shape.oneOf);
    return (v) => (values.has(v) ? v : NO);
  }
  if ('array' in shape) {
    const element = compile(shape.array);
    return (v) => {
      if (!Array.isArray(v)) return NO;
      const out: unknown[] = new Array(v.length);
      for (let i = 0; i < v.length; i++) {
        const x = element(v[i]);
        if (x === NO) return NO;
        out[i] = x;
      }
      return out;
    };
  }
  if ('record' in shape) {
    const value = compile(shape.record);
    return (v) => {
      if (!isPlain(v) || Object.getOwnPropertySymbols(v).length > 0) return NO;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v)) {
        if (key === '__proto__') return NO;
        const x = value(v[key]);
        if (x === NO) return NO;
        out[key] = x;
      }
      return out;
    };
  }
  if ('object' in shape) return objectCheck(shape.object, shape.optional);
  const { union: tag } = shape;
  const options = new Map(Object.entries(shape.options).map(([value, option]) => [value, compile(option)]));
  return (v) => (isPlain(v) ? (options.get(v[tag] as string) ?? (() => NO))(v) : NO);
}

let accept: Check | undefined;

/** The snapshot `value` is, as zod would return it; undefined: invalid, or left to zod. */
export function acceptSnapshot(value: unknown): ClusterSnapshot | undefined {
  accept ??= compile(SNAPSHOT_SHAPE);
  const out = accept(value);
  return out === NO ? undefined : (out as ClusterSnapshot);
}
