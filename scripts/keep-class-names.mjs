// Our own error classes keep their names in the bundles (the functions': scripts/bundle-functions.mjs;
// the CLI's: scripts/build.mjs). Minification renames `ConfigError` to `py`, and bundling without
// it renames a class whose name another module also uses (`ConfigError2`); Lambda reports
// `errorType` from `error.name` (set explicitly on every error class here), but `serverless invoke
// local`, the CLI's messages and anything else reading `constructor.name` would see the new name.
// esbuild's `keepNames` would do it for every function of the bundle, the SDK's and zod's
// included: +55 KB (5 %) on onEksEvent, past its 0.97 MiB budget (BENCHMARKS.md), and ≈ 10 ms
// more CPU on every CLI start (5,000 `__name` calls; measured side by side, bench/cli-start.ts).
// So the plugin below names only the top-level `…Error` classes of functions/ and shared/ —
// what a handler or a command can throw — with `__kn(C, 'C')` appended to their module (`__kn`
// is in the banner, KEEP_NAMES_BANNER): about 400 bytes on onEksEvent.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Defines `__kn`, which the plugin's appended lines call; goes into each output file's banner. */
export const KEEP_NAMES_BANNER = "const __kn=(c,n)=>Object.defineProperty(c,'name',{value:n});";

/** `class NameError extends …` (`export`, `abstract` too) at the start of a line. */
const ERROR_CLASS = /^(?:export\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*Error)\s+extends\b/gm;

/** Keeps the names of the error classes of our own modules through bundling (`__kn`: banner). */
export const keepClassNames = {
  name: 'keep-class-names',
  setup(b) {
    b.onLoad({ filter: /[\\/](?:functions|shared)[\\/].*\.ts$/ }, async (args) => {
      if (args.path.includes('node_modules')) return undefined;
      const source = await readFile(args.path, 'utf8');
      const names = [...source.matchAll(ERROR_CLASS)].map((m) => m[1]);
      if (names.length === 0) return undefined;
      const naming = names.map((n) => `__kn(${n}, '${n}');`);
      return { contents: `${source}\n${naming.join('\n')}\n`, loader: 'ts', resolveDir: dirname(args.path) };
    });
  },
};
