/**
 * The core grouped by feature: a handful of files loose at the top of `shared/core` (the model and
 * small pure helpers), every feature folder with one entry file (`index.ts`), and code outside the
 * core (the use cases, the adapters, the CLI, the functions) reaching a feature only through that
 * entry, so that a folder's other files can move or split without touching its callers.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../support/source-imports.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CORE = join(ROOT, 'shared', 'core');
const MAX_LOOSE = 8;

/**
 * Static relative imports and re-exports, `import type` included. A lazy `import()` is left out
 * on purpose: it loads one heavy file alone (the zod schema, the HTML report) so that a cold start
 * that does not need it never pays for the rest of its folder or for the file itself.
 */
const staticSpecifiers = (file: string): string[] =>
  importsOf(file)
    .filter((i) => !i.lazy && i.spec.startsWith('.'))
    .map((i) => i.spec);

const features = readdirSync(CORE, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

describe('shared/core by feature', () => {
  it(`keeps at most ${MAX_LOOSE} files loose at its top`, () => {
    const loose = readdirSync(CORE, { withFileTypes: true }).filter(
      (e) => e.isFile() && e.name.endsWith('.ts'),
    );
    expect(loose.length).toBeGreaterThan(0);
    expect(loose.map((e) => e.name).length).toBeLessThanOrEqual(MAX_LOOSE);
  });

  it('gives every feature folder one entry file, index.ts', () => {
    expect(features.length).toBeGreaterThanOrEqual(10);
    expect(features.filter((f) => !readdirSync(join(CORE, f)).includes('index.ts'))).toEqual([]);
  });

  it('is reached from outside the core only through a feature entry or a loose file', () => {
    const outside = [
      ...sourceFiles(join(ROOT, 'shared')).filter((f) => !f.startsWith(CORE + '/')),
      ...sourceFiles(join(ROOT, 'functions')),
    ];
    expect(outside.length).toBeGreaterThan(20);
    const deep = outside.flatMap((file) =>
      staticSpecifiers(file)
        .map((spec) => relative(CORE, resolve(dirname(file), spec)))
        .filter(
          (target) => !target.startsWith('..') && target.includes('/') && !/^[^/]+\/index\.ts$/.test(target),
        )
        .map((target) => `${relative(ROOT, file)} → shared/core/${target}`),
    );
    expect(deep).toEqual([]);
  });
});
