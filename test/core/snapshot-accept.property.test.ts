/**
 * The precompiled snapshot validator (shared/core/snapshot/accept.ts) against the zod schema it is
 * generated from: on any value, it returns exactly what zod's `safeParse` returns as `data` (same
 * keys, same order) when zod accepts, and undefined when zod rejects — so the CLI, which asks zod
 * (`validateSnapshot`) only when the precompiled checks say no, reads and rejects what it did before.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateSnapshotShape, SHAPE_FILE } from '../../scripts/gen-snapshot-validator.ts';
import { loadSnapshot } from '../../shared/cli/input-files.ts';
import { acceptSnapshot } from '../../shared/core/snapshot/accept.ts';
import { SNAPSHOT_SHAPE } from '../../shared/core/snapshot/shape.generated.ts';
import type { Shape } from '../../shared/core/snapshot/shape.ts';
import { clusterSnapshotSchema, validateSnapshot } from '../../shared/core/snapshot/snapshot-schema.ts';
import { createFakeIo } from '../support/fake-io.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);

/** Both validators on one value: they agree, and an accepted value is zod's output to the key order. */
function expectAgreement(value: unknown): void {
  const zod = clusterSnapshotSchema().safeParse(value, { reportInput: true });
  const fast = acceptSnapshot(value);
  if (zod.success) {
    expect(fast).toBeDefined();
    expect(isDeepStrictEqual(fast, zod.data)).toBe(true);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
  } else {
    expect(fast).toBeUndefined();
  }
}

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return name.endsWith('.json') ? [path] : [];
  });
}

const parsed = (path: string): unknown[] => {
  try {
    return [JSON.parse(readFileSync(path, 'utf8'))];
  } catch {
    return [];
  }
};

const SCENARIOS = jsonFiles(join(ROOT, 'scenarios')).flatMap(parsed);

/** Values just outside a leaf shape: bounds, wrong types, near misses. */
function outside(shape: Shape): unknown[] {
  if (shape === 'boolean') return ['true', 0, null];
  if ('string' in shape)
    return ['', ' ', 'x', 7, null, '2026-02-30T00:00:00Z', 'arn:aws:iam::12345678901:role/x'];
  if ('int' in shape) return [shape.min - 1, shape.min + 0.5, String(shape.min), Number.MAX_SAFE_INTEGER + 1];
  if ('oneOf' in shape)
    return [...shape.oneOf.map((v) => (typeof v === 'string' ? v.toLowerCase() : String(v))), null];
  return [null, [], {}, 'x'];
}

/**
 * Values of a shape (strings from their patterns); `noisy`: now and then a value just outside it,
 * so that most such snapshots are invalid in one or two places.
 */
function values(shape: Shape, noisy: boolean): fc.Arbitrary<unknown> {
  const good = inside(shape, noisy);
  return noisy
    ? fc.oneof({ arbitrary: good, weight: 30 }, { arbitrary: fc.constantFrom(...outside(shape)), weight: 1 })
    : good;
}

function inside(shape: Shape, noisy: boolean): fc.Arbitrary<unknown> {
  if (shape === 'boolean') return fc.boolean();
  if ('string' in shape) {
    const [pattern] = shape.string;
    const s =
      pattern === undefined ? fc.string({ minLength: shape.minLength ?? 0 }) : fc.stringMatching(pattern);
    return s.filter((v) => v.length >= (shape.minLength ?? 0) && shape.string.every((p) => p.test(v)));
  }
  if ('int' in shape) return fc.integer({ min: shape.min, max: 10_000 });
  if ('oneOf' in shape) return fc.constantFrom(...shape.oneOf);
  if ('array' in shape) return fc.array(values(shape.array, noisy), { maxLength: 3 });
  // Plain objects, as JSON.parse makes them (fast-check's have no prototype); no `__proto__` key (below).
  if ('record' in shape) {
    const key = fc.string({ maxLength: 6 }).filter((k) => k !== '__proto__');
    return fc.dictionary(key, values(shape.record, noisy), { maxKeys: 3 }).map((o) => ({ ...o }));
  }
  if ('object' in shape) {
    const optional = shape.optional ?? [];
    const entries = Object.entries(shape.object);
    return fc
      .record(Object.fromEntries(entries.map(([k, s]) => [k, values(s, noisy)])), {
        requiredKeys: entries.map(([k]) => k).filter((k) => !optional.includes(k)),
      })
      .map((o) => ({ ...o }));
  }
  return fc.oneof(...Object.values(shape.options).map((option) => values(option, noisy)));
}

type Edit = { at: number; op: 'delete' | 'add' | 'replace' | 'reorder'; key: string; value: unknown };

/** The value with one edit applied at its `at`-th object or array (a copy; the input is kept). */
function edited(value: unknown, edit: Edit): unknown {
  const copy = structuredClone(value);
  const containers: Array<Record<string, unknown> | unknown[]> = [];
  const visit = (v: unknown) => {
    if (typeof v !== 'object' || v === null) return;
    containers.push(v as Record<string, unknown>);
    for (const x of Object.values(v)) visit(x);
  };
  visit(copy);
  const target = containers[edit.at % Math.max(1, containers.length)];
  if (target === undefined) return edit.value;
  const keys = Object.keys(target);
  const key = keys.length > 0 ? (keys[edit.key.length % keys.length] as string) : edit.key;
  const t = target as Record<string, unknown>;
  // An array's `length` cannot be deleted and takes only a valid length: no edit there.
  if (Array.isArray(target) && (edit.op === 'add' ? edit.key : key) === 'length') return copy;
  if (edit.op === 'delete') delete t[key];
  else if (edit.op === 'add') t[edit.key] = edit.value;
  else if (edit.op === 'replace') t[key] = edit.value;
  else if (!Array.isArray(target)) {
    const kept = t[key];
    delete t[key];
    t[key] = kept;
  }
  return copy;
}

const editArb: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(200),
  op: fc.constantFrom('delete', 'add', 'replace', 'reorder'),
  key: fc.oneof(
    fc.string({ maxLength: 8 }).filter((k) => k !== '__proto__'),
    fc.constantFrom('status', 'data', 'name', 'roleArn', 'labels'),
  ),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v))),
    fc.constantFrom(
      'ok',
      'absent',
      'error',
      '',
      'arn:aws:iam::111122223333:role/x',
      '2026-11-20T10:00:00Z',
      -1,
      1.5,
    ),
  ),
});

describe('the precompiled snapshot validator', () => {
  it('is generated from the current zod schema (scripts/gen-snapshot-validator.ts)', () => {
    expect(readFileSync(SHAPE_FILE, 'utf8')).toBe(generateSnapshotShape());
  });

  it('accepts every scenario as zod returns it', () => {
    expect(SCENARIOS.length).toBeGreaterThan(5);
    for (const snapshot of SCENARIOS) {
      expect(acceptSnapshot(snapshot)).toBeDefined();
      expectAgreement(snapshot);
    }
  });

  it('agrees with zod on every JSON file of the repo’s scenarios and test fixtures', () => {
    const values = [...jsonFiles(join(ROOT, 'test', 'fixtures')).flatMap(parsed), ...SCENARIOS];
    expect(values.length).toBeGreaterThan(50);
    for (const value of values) expectAgreement(value);
  });

  it('agrees with zod on generated snapshots, valid and edited', () => {
    fc.assert(
      fc.property(values(SNAPSHOT_SHAPE, false), fc.array(editArb, { maxLength: 3 }), (snapshot, edits) => {
        expectAgreement(snapshot);
        let value = snapshot;
        for (const edit of edits) {
          value = edited(value, edit);
          expectAgreement(value);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('agrees with zod on generated snapshots with values just outside the schema here and there', () => {
    fc.assert(
      fc.property(values(SNAPSHOT_SHAPE, true), (value) => expectAgreement(value)),
      { numRuns: RUNS },
    );
  });

  it('agrees with zod on edited scenarios', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SCENARIOS),
        fc.array(editArb, { minLength: 1, maxLength: 3 }),
        (s, edits) => {
          let value = s;
          for (const edit of edits) {
            value = edited(value, edit);
            expectAgreement(value);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('leaves to zod what it does not copy exactly: a __proto__ key in a record, another prototype', async () => {
    const base = SCENARIOS.find((s) => (s as { awsAuth: { status: string } }).awsAuth.status === 'ok');
    const text = JSON.stringify(base);
    expect(text).toContain('"data":{"data":{');
    // The ConfigMap's data is a record: zod drops the key and accepts; the precompiled checks decline.
    const withProto = JSON.parse(text.replace('"data":{"data":{', '"data":{"data":{"__proto__":"x",'));
    expect(acceptSnapshot(withProto)).toBeUndefined();
    const viaZod = clusterSnapshotSchema().safeParse(withProto);
    expect(viaZod.success).toBe(true);
    expect(validateSnapshot(withProto)).toEqual({ ok: true, snapshot: viaZod.data });
    // The CLI reads such a file as zod returns it.
    const { io } = createFakeIo({ 'proto.json': JSON.stringify(withProto) });
    expect(await loadSnapshot(io, 'proto.json')).toEqual(viaZod.data);
    const odd = Object.assign(Object.create({ inherited: true }), structuredClone(base));
    expect(acceptSnapshot(odd)).toBeUndefined();
    expect(validateSnapshot(odd).ok).toBe(clusterSnapshotSchema().safeParse(odd).success);
  });
});
