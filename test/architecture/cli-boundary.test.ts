/**
 * The CLI as a thin shell: it parses the command line, calls a use case (shared/app/commands/),
 * renders the result (core/render) and turns it into an exit code. So `shared/cli` reaches the
 * core only for the renderer's entry, the model's types and names, and errors; the use cases,
 * the ports and shared/errors.ts are open to it; the adapters only in its node wiring
 * (node-io.ts), so that a test drives the CLI with any `CliIo`.
 */
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../support/source-imports.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SHARED = join(ROOT, 'shared');
const CLI = join(SHARED, 'cli');
const MAX_CORE_IMPORTS = 10;

const sources = sourceFiles(CLI);

interface Import {
  file: string;
  spec: string;
  /** The path relative to shared/ (a package: its name). */
  target: string;
  /** A lazy `import()`: one heavy file loaded alone when a command needs it. */
  lazy: boolean;
}

/** Every import, re-export and lazy `import()` of a file, with its target. */
function imports(file: string): Import[] {
  return importsOf(file).map(({ spec, lazy }) => {
    const target = spec.startsWith('.') ? relative(SHARED, resolve(dirname(file), spec)) : spec;
    return { file: relative(ROOT, file), spec, target, lazy };
  });
}

const all = sources.flatMap(imports);
const show = (list: { file: string; spec: string }[]) => list.map((i) => `${i.file}: ${i.spec}`);

describe('shared/cli (the command line as a thin shell)', () => {
  it('has sources and imports to check (the checks would pass vacuously)', () => {
    expect(sources.length).toBeGreaterThan(5);
    expect(all.some((i) => i.target.startsWith('app/'))).toBe(true);
  });

  it('reaches the core only for core/render/index.ts and core/model.ts (and lazily a renderer file)', () => {
    const allowed = new Set(['core/render/index.ts', 'core/model.ts']);
    const bad = all.filter(
      (i) =>
        i.target.startsWith('core/') &&
        !allowed.has(i.target) &&
        !(i.lazy && i.target.startsWith('core/render/')),
    );
    expect(show(bad)).toEqual([]);
  });

  it(`has at most ${MAX_CORE_IMPORTS} import statements from the core`, () => {
    const core = all.filter((i) => i.target.startsWith('core/'));
    const lines = show(core);
    expect(lines.length, `the CLI's imports from shared/core:\n${lines.join('\n')}`).toBeLessThanOrEqual(
      MAX_CORE_IMPORTS,
    );
  });

  it('imports within shared/ only the use cases, the ports, the errors, the core above and itself', () => {
    const bad = all.filter(
      (i) =>
        i.spec.startsWith('.') &&
        !(
          i.target.startsWith('cli/') ||
          i.target.startsWith('app/') ||
          i.target.startsWith('core/') ||
          i.target === 'ports.ts' ||
          i.target === 'errors.ts' ||
          (i.target.startsWith('adapters/') && i.file === 'shared/cli/node-io.ts')
        ),
    );
    expect(show(bad)).toEqual([]);
  });

  it('reaches the adapters only from node-io.ts, the node wiring', () => {
    const adapters = all.filter((i) => i.target.startsWith('adapters/'));
    expect(adapters.length).toBeGreaterThan(0);
    expect(show(adapters.filter((i) => i.file !== 'shared/cli/node-io.ts'))).toEqual([]);
  });

  it('imports no package but Node built-ins (the rest comes through the use cases and node-io.ts)', () => {
    const packages = all.filter((i) => !i.spec.startsWith('.') && !i.spec.startsWith('node:'));
    expect(show(packages)).toEqual([]);
  });
});
