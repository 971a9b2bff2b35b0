/**
 * The layering as a test: the use cases (shared/app) import only the core, the ports, the error
 * hierarchy and each other — no adapter, no SDK, no package; the composition root that wires
 * adapters to use cases is functions/wiring/. shared/errors.ts imports nothing, and the core's
 * relative imports stay inside the core or reach only shared/errors.ts.
 */
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/snapshot-builder.ts';
import { importsOf, sourceFiles } from '../support/source-imports.ts';

const SHARED = join(ROOT, 'shared');

const specifiers = (file: string): string[] => importsOf(file).map((i) => i.spec);

/** The imports of `file` that resolve outside `allowed` (paths relative to shared/), as `file: spec`. */
function importsOutside(file: string, allowed: (target: string) => boolean): string[] {
  return specifiers(file)
    .filter((spec) => !spec.startsWith('.') || !allowed(relative(SHARED, resolve(dirname(file), spec))))
    .map((spec) => `${relative(ROOT, file)}: ${spec}`);
}

describe('shared/app (the use cases)', () => {
  const sources = sourceFiles(join(SHARED, 'app'));

  it('is not empty (the check would pass vacuously)', () => {
    expect(sources.length).toBeGreaterThan(5);
  });

  it('holds no wiring: the composition root is functions/wiring/', () => {
    expect(sources.map((f) => relative(ROOT, f)).filter((f) => /wiring/.test(f))).toEqual([]);
  });

  it('imports only the core, the ports, shared/errors.ts and other use cases', () => {
    const allowed = (target: string) =>
      target.startsWith('core/') ||
      target.startsWith('app/') ||
      target === 'ports.ts' ||
      target === 'errors.ts';
    expect(sources.flatMap((f) => importsOutside(f, allowed))).toEqual([]);
  });
});

describe('shared/errors.ts', () => {
  it('imports nothing, so every layer may use it', () => {
    expect(specifiers(join(SHARED, 'errors.ts'))).toEqual([]);
  });
});

describe('the core', () => {
  it('reaches outside shared/core only for shared/errors.ts', () => {
    const allowed = (target: string) => target.startsWith('core/') || target === 'errors.ts';
    const bad = sourceFiles(join(SHARED, 'core'))
      .flatMap((f) => importsOutside(f, allowed))
      // Packages are the purity test's concern (yaml and zod only).
      .filter((line) => /: \./.test(line));
    expect(bad).toEqual([]);
  });
});
