import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/snapshot-builder.ts';

const FOLDER = join(ROOT, 'shared', 'core', 'aws-auth');
const INDEX = join(FOLDER, 'index.ts');
/**
 * The parser's former `yaml`-package front end, kept for the benchmark's old-vs-new comparison:
 * it plugs into the parser's internals (`parseAwsAuthWithFront`, the decoder's types) on purpose,
 * and is not product code.
 */
const LEGACY = join(ROOT, 'bench', 'legacy-aws-auth');

/** Product code; tests may import a module of the folder directly to unit-test it. */
const DIRS = ['shared', 'functions', 'scripts', 'bench', 'infra', 'tools'];

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules') return [];
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p) : /\.(ts|mts|js|mjs)$/.test(e.name) ? [p] : [];
  });
}

/** The file a specifier names, or undefined when it is a package. */
function target(from: string, spec: string): string | undefined {
  if (spec.startsWith('.')) return resolve(dirname(from), spec);
  return undefined;
}

describe('shared/core/aws-auth/', () => {
  const outside = DIRS.flatMap((d) => files(join(ROOT, d))).filter(
    (f) => !f.startsWith(FOLDER + sep) && !f.startsWith(LEGACY + sep),
  );
  const imports = outside.flatMap((file) =>
    [
      ...readFileSync(file, 'utf8').matchAll(
        /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
      ),
    ].map((m) => ({ file: relative(ROOT, file), to: target(file, m[1] ?? m[2] ?? '') })),
  );
  const intoFolder = imports.filter(
    ({ to }) => to !== undefined && (to === FOLDER || to.startsWith(FOLDER + sep)),
  );

  it('is imported from outside (the check would pass vacuously)', () => {
    expect(intoFolder.filter(({ to }) => to === INDEX).length).toBeGreaterThan(5);
  });

  it('is imported from outside only through index.ts', () => {
    const bad = intoFolder
      .filter(({ to }) => to !== INDEX)
      .map(({ file, to }) => `${file} -> ${relative(ROOT, to ?? '')}`);
    expect(bad).toEqual([]);
  });
});
