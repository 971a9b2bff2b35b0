// Two esbuild plugins that let the bundler drop the parts of the AWS SDK clients a function never
// uses (the functions' bundles: scripts/bundle-options.mjs). Both rewrite a source into one with
// the same meaning; neither drops anything by itself — esbuild's tree shaking does.
//
// sdkSchemaKeys — each client's `dist-es/schemas/schemas_0.js` declares one array per shape and
// operation (`export var GetObjectRequest$ = [3, n0, _GOR, 0, [...], [[0, { [_hH]: _IM }], …]]`).
// An unused one is dead code, but esbuild keeps every declaration whose initializer has a computed
// property key (`{ [_hH]: … }`): a computed key may call `toString()` on an object, a side effect.
// The keys are the file's own `const _hH = "httpHeader";` string constants, so writing the string
// in place of the name (`{ "httpHeader": … }`) is the same object, and esbuild can then drop the
// shapes no bundled command reaches: −57 KiB of S3 schemas and −26 KiB of EKS schemas on
// onEksEvent (2026-12-01). The error shapes stay: each file registers every error class of its
// service at load (`registerError`), so the SDK still throws `ParameterNotFound` and the like.
//
// sdkPackageVersion — every client reads `packageInfo.version` from its `package.json` (for the
// user agent) through a default import, which bundles the whole manifest (≈ 2 KiB each, with its
// dependency lists). When the importing file uses nothing but `.version` of it, the import gets
// `{ "name", "version" }` of that manifest instead; any other importer gets the real file.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** `const _hH = "httpHeader";` at the start of a line: a schema file's string constants. */
const STRING_CONST = /^const (_[\w$]+) = ("(?:[^"\\\n]|\\.)*");$/gm;
/** A computed key that is one identifier, right after `{` or `,`: `{ [_hH]: ` / `, [_xN]: `. */
const COMPUTED_KEY = /([{,] )\[(_[\w$]+)\]: /g;

/** Computed keys of a schema file's own string constants, written as the strings themselves. */
export function inlineSchemaKeys(source) {
  const strings = new Map([...source.matchAll(STRING_CONST)].map((m) => [m[1], m[2]]));
  return source.replace(COMPUTED_KEY, (all, before, name) => {
    const literal = strings.get(name);
    return literal === undefined ? all : `${before}${literal}: `;
  });
}

export const sdkSchemaKeys = {
  name: 'sdk-schema-keys',
  setup(b) {
    b.onLoad(
      { filter: /[\\/]node_modules[\\/]@aws-sdk[\\/].*[\\/]schemas[\\/]schemas_\d+\.js$/ },
      async (args) => ({ contents: inlineSchemaKeys(await readFile(args.path, 'utf8')), loader: 'js' }),
    );
  },
};

const NAMESPACE = 'sdk-package-version';

/** True when `source` default-imports `specifier` and reads nothing but `.version` of it. */
export function usesOnlyVersion(source, specifier) {
  const escaped = specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^import ([\\w$]+) from "${escaped}";$`, 'm').exec(source);
  if (m === null) return false;
  const name = m[1].replace(/\$/g, '\\$');
  const uses = source.match(new RegExp(`(?<![\\w$.])${name}(?![\\w$])`, 'g'))?.length ?? 0;
  const versionReads = source.match(new RegExp(`(?<![\\w$.])${name}\\.version(?![\\w$])`, 'g'))?.length ?? 0;
  return uses === versionReads + 1; // + the import itself
}

export const sdkPackageVersion = {
  name: 'sdk-package-version',
  setup(b) {
    b.onResolve({ filter: /(?:^|\/)package\.json$/ }, async (args) => {
      if (!/[\\/]node_modules[\\/]@aws-sdk[\\/][^\\/]+[\\/]dist-es[\\/]/.test(args.importer))
        return undefined;
      if (!usesOnlyVersion(await readFile(args.importer, 'utf8'), args.path)) return undefined;
      return { path: resolve(dirname(args.importer), args.path), namespace: NAMESPACE };
    });
    b.onLoad({ filter: /.*/, namespace: NAMESPACE }, async (args) => {
      const { name, version } = JSON.parse(await readFile(args.path, 'utf8'));
      return { contents: JSON.stringify({ name, version }), loader: 'json' };
    });
  },
};
