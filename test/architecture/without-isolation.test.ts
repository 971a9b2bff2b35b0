/**
 * The unit and property projects run their files in one module graph per worker (vitest.config.ts,
 * `isolate: false`): a file there must leave nothing behind for the next one — no module mocks, no
 * stubbed globals or timers, no environment variables set, no change of directory. A file that
 * needs any of these belongs to the sandbox project, which keeps isolation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD, PROPERTY, SANDBOX } from '../../vitest.config.ts';

const ROOT = resolve(import.meta.dirname, '../..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testFiles(path);
    return e.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

/** The config's patterns are `dir/**` and `**\/*.suffix`: matched as such, any other is refused. */
function matches(file: string, pattern: string): boolean {
  if (!pattern.includes('*')) return file === pattern;
  if (pattern.endsWith('/**') && !pattern.slice(0, -3).includes('*'))
    return file.startsWith(pattern.slice(0, -2));
  const suffix = /^test\/\*\*\/\*(\.[\w.-]+)$/.exec(pattern)?.[1];
  if (suffix !== undefined) return file.startsWith('test/') && file.endsWith(suffix);
  throw new Error(`a pattern this test cannot read: ${pattern}`);
}

const LEAKS: Array<[string, RegExp]> = [
  ['a module mock', /\bvi\.(?:mock|doMock)\(/],
  ['a stubbed global or environment', /\bvi\.(?:stubGlobal|stubEnv)\(/],
  ['fake timers', /\bvi\.useFakeTimers\(/],
  ['a spy', /\bvi\.spyOn\(/],
  [
    'an environment variable set',
    /\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)|delete\s+process\.env|Object\.assign\(\s*process\.env/,
  ],
  ['a change of directory', /\bprocess\.chdir\(/],
];

describe('the unit and property projects, run without isolation', () => {
  const all = testFiles(join(ROOT, 'test'));
  const isIn = (patterns: readonly string[]) => (f: string) => patterns.some((p) => matches(f, p));
  const isolated = isIn([...BUILD, ...SANDBOX]);
  const unit = all.filter((f) => !isolated(f) && !isIn(PROPERTY)(f));
  const property = all.filter((f) => !isolated(f) && isIn(PROPERTY)(f));

  it('hold most of the test files (the patterns are read as the config means them)', () => {
    expect(unit.length).toBeGreaterThan(40);
    expect(property.length).toBeGreaterThan(10);
    expect(unit).toContain('test/architecture/without-isolation.test.ts');
    expect(property).toContain('test/core/engine.property.test.ts');
    expect([...unit, ...property]).not.toContain('test/adapters/tls-environment.test.ts');
  });

  it('have no file that mocks, stubs, sets the environment or changes directory', () => {
    const found = [...unit, ...property].flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return LEAKS.filter(([, re]) => re.test(text)).map(([what]) => `${file}: ${what}`);
    });
    expect(found).toEqual([]);
  });
});
