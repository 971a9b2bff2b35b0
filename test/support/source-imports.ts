/**
 * The sources of a folder and their imports, read as text: what the architecture tests
 * (test/architecture/, test/app/boundaries.test.ts) hold against the layering rules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every `.ts` file below `dir` (not `.d.ts`, not node_modules), as absolute paths. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

export interface SourceImport {
  /** As written: a relative path or a package name. */
  spec: string;
  /** A lazy `import()`: one file loaded when it is needed, not at the importer's load. */
  lazy: boolean;
}

/**
 * `import … from`, `import type`, `import '…'`, `export … from` and `import('…')` of a file.
 * Block comments and whole-line `//` comments are left out, so that an example in a comment is
 * no import.
 */
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export function importsOf(file: string): SourceImport[] {
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(SPECIFIER)].map((m) => ({ spec: m[1] ?? m[2] ?? '', lazy: m[2] !== undefined }));
}
