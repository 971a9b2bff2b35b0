/**
 * No import cycle in `shared/`, counting type-only imports too: a cycle makes module
 * initialisation order matter (a class used before it is defined) and ties the files' designs
 * together. Relative imports and re-exports only; packages are no part of the graph.
 */
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../support/source-imports.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SHARED = join(ROOT, 'shared');

/**
 * Cycles known and not yet broken, each written as its files sorted and joined by ' ↔ ' (none
 * now): the test fails on any other, and on a listed one once it is gone (remove it here).
 */
const KNOWN_CYCLES: readonly string[] = [];

function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const { spec } of importsOf(file)) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (;;) {
      const w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

const label = (component: readonly string[]): string =>
  component
    .map((f) => relative(ROOT, f))
    .sort()
    .join(' ↔ ');

describe('import cycles in shared/', () => {
  const graph = importGraph(sourceFiles(SHARED));

  it('reads the import graph (value and type imports alike)', () => {
    expect(graph.size).toBeGreaterThan(100);
    const engine = graph.get(join(SHARED, 'core/predict/engine.ts')) ?? [];
    expect(engine).toContain(join(SHARED, 'core/model.ts'));
  });

  it('finds a cycle it is shown, type-only imports included', () => {
    const a = join(SHARED, 'a.ts');
    const b = join(SHARED, 'b.ts');
    const c = join(SHARED, 'c.ts');
    const shown = new Map([
      [a, [b]],
      [b, [a, c]],
      [c, []],
    ]);
    expect(cycles(shown).map(label)).toEqual(['shared/a.ts ↔ shared/b.ts']);
  });

  it('has none but the known ones', () => {
    expect(cycles(graph).map(label).sort()).toEqual([...KNOWN_CYCLES].sort());
  });
});
