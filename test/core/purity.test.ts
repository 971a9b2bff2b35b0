import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/snapshot-builder.ts';

const CORE = join(ROOT, 'shared', 'core');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The only packages the pure core may import. */
// @dagrejs/dagre: graph layout for the HTML report's picture, plain computation (no I/O, no clock).
const ALLOWED_PACKAGES = new Set(['yaml', 'zod', '@dagrejs/dagre']);

describe('the core', () => {
  const sources = files(CORE).map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

  it('is not empty (the check would pass vacuously)', () => {
    expect(sources.length).toBeGreaterThan(20);
  });

  it('imports no SDK, no node: module and no package beyond yaml, zod and dagre', () => {
    const bad: string[] = [];
    for (const { file, text } of sources) {
      for (const m of text.matchAll(
        /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
      )) {
        const spec = m[1] ?? m[2] ?? '';
        if (spec.startsWith('.')) continue;
        // The package of a specifier: `zod/mini` and `zod/v4/core` are zod.
        const parts = spec.split('/');
        const pkg = spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec);
        if (!ALLOWED_PACKAGES.has(pkg)) bad.push(`${file}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('reads no process, clock, timer or global fetch', () => {
    const bad: string[] = [];
    for (const { file, text } of sources) {
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const pattern of [
        /\bprocess\./,
        /\bDate\.now\(/,
        /\bnew Date\(\s*\)/,
        /\bsetTimeout\(/,
        /\bfetch\(/,
        /\brequire\(/,
      ]) {
        if (pattern.test(code)) bad.push(`${file}: ${pattern}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
