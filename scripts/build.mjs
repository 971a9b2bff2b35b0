// Bundles the CLI with esbuild (Node 20+). dist/cli.js is the `bin`: a small ES module
// (scripts/cli-loader.mjs) that compiles the core script from the V8 code cache recorded here.
//   dist/cli-chunks/core-*.cjs    every command's code, one CommonJS-style script: what a
//                                 file-only command loads, compiled by `vm.Script`
//                                 (cli-core-script.mjs); the commands each command alone needs
//                                 (whatif --event, migrate, the HTML report, the live commands'
//                                 own code) stay in it as modules initialised on first use.
//   dist/cli-chunks/core-*.cache  V8's code cache of the core after running a few file-only
//                                 commands at build time: the next start neither parses nor
//                                 compiles what those commands ran. V8 rejects it when Node's V8
//                                 (or its flags) is not the one that built it; the core is then
//                                 compiled from source, as a build without the cache would.
//   dist/cli-chunks/live-*.cjs    the packages of the live adapters (the AWS SDK clients,
//                                 @kubernetes/client-node, …), required by the core when a live
//                                 command (snapshot, report, --cluster) first uses one.
// `--outdir DIR` builds elsewhere; `--single-file` builds the one-file ES-module bundle of before
// the split (bench/cli-start.ts measures it side by side).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { compileCore, coreRequire, runCore } from './cli-core-script.mjs';
import { KEEP_NAMES_BANNER, keepClassNames } from './keep-class-names.mjs';
import { nodeFetchUsesNodeUrl } from './node-fetch-uses-node-url.mjs';

const { values } = parseArgs({
  options: {
    outdir: { type: 'string', default: 'dist' },
    'single-file': { type: 'boolean', default: false },
  },
});
const outdir = resolve(values.outdir);
const chunks = join(outdir, 'cli-chunks');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Error classes keep their source names (see keep-class-names.mjs: esbuild's keepNames for
  // every function would cost each start ≈ 10 ms).
  plugins: [keepClassNames],
  metafile: true,
  logLevel: 'warning',
};

/** The one-file ES-module bundle of before the split, for the bench. */
async function buildSingleFile() {
  const result = await build({
    ...common,
    entryPoints: { cli: 'shared/cli/main.ts' },
    outdir,
    format: 'esm',
    sourcemap: 'linked',
    banner: {
      js: `import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url); ${KEEP_NAMES_BANNER}`,
    },
  });
  return result.metafile;
}

const hashOf = (text) => createHash('sha256').update(text).digest('hex').slice(0, 8).toUpperCase();

/** The packages the live adapters import: left to the vendor bundle, named in `packages`. */
function liveAdapterPackages(packages) {
  return {
    name: 'live-adapter-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./#]/ }, (args) => {
        if (args.path.startsWith('node:') || !/[\\/]shared[\\/]adapters[\\/]/.test(args.importer))
          return undefined;
        packages.add(args.path);
        return { path: args.path, external: true };
      });
    },
  };
}

/** The core script; returns its file name (under cli-chunks/), the vendor packages and the metafile. */
async function buildCore() {
  const packages = new Set();
  const result = await build({
    ...common,
    plugins: [...common.plugins, liveAdapterPackages(packages)],
    entryPoints: { core: 'shared/cli/start.ts' },
    outdir: chunks,
    entryNames: '[name]-[hash]',
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    // Less text to read and hand to V8 on every start: ≈ 10 % of a file-only command's CPU time
    // with the code cache (measured side by side). Names are kept (stack traces, `name`).
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    banner: { js: KEEP_NAMES_BANNER },
  });
  const [file] = Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.cjs'));
  return { file: file.replace(/^.*[\\/]/, ''), packages: [...packages].sort(), metafile: result.metafile };
}

/**
 * What the live adapters import from each package (`import { A, type B } from 'pkg'`), read from
 * the adapters the core holds: the vendor bundle exports these and no more, so that esbuild drops
 * the rest of each package as it did when the adapters were bundled with them.
 */
function importedNames(metafile, packages) {
  const names = new Map(packages.map((p) => [p, new Set()]));
  const adapters = Object.keys(metafile.inputs).filter((f) => /^shared\/adapters\/.*\.ts$/.test(f));
  for (const file of adapters) {
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/^import\s+([^;]*?)\s+from\s+'([^']+)';/gms)) {
      const [, clause, from] = m;
      if (!names.has(from) || /^type\s/.test(clause)) continue;
      const list = /^\{([^}]*)\}$/.exec(clause.trim());
      if (!list)
        throw new Error(
          `${file}: only \`import { … } from '${from}'\` is supported for a live adapter package`,
        );
      for (const item of list[1].split(',').map((x) => x.trim())) {
        if (item === '' || item.startsWith('type ')) continue;
        names.get(from).add(item.split(/\s+as\s+/)[0]);
      }
    }
  }
  return names;
}

/** The vendor bundle: `packages[name]` holds what the adapters import from that package. */
async function buildVendor(names) {
  const lines = [];
  const entries = [];
  [...names].forEach(([pkg, set], i) => {
    const list = [...set].sort();
    lines.push(`import { ${list.map((n) => `${n} as p${i}_${n}`).join(', ')} } from ${JSON.stringify(pkg)};`);
    entries.push(`  ${JSON.stringify(pkg)}: { ${list.map((n) => `${n}: p${i}_${n}`).join(', ')} },`);
  });
  const contents = `${lines.join('\n')}\nexport const packages = {\n${entries.join('\n')}\n};\n`;
  const result = await build({
    ...common,
    plugins: [nodeFetchUsesNodeUrl],
    stdin: { contents, resolveDir: process.cwd(), sourcefile: 'live-packages.mjs', loader: 'js' },
    outfile: join(chunks, 'live.cjs'),
    format: 'cjs',
    write: false,
  });
  const [output] = result.outputFiles;
  const file = `live-${hashOf(output.contents)}.cjs`;
  writeFileSync(join(chunks, file), output.contents);
  const { outputs, inputs } = result.metafile;
  const renamed = Object.fromEntries(
    Object.entries(outputs).map(([k, v]) => [k.replace(/live\.cjs$/, file), v]),
  );
  return { file, metafile: { inputs, outputs: renamed } };
}

/** dist/cli.js: the loader, a CommonJS script, with the names of the files built. */
async function buildLoader(core, cache, vendor) {
  const result = await build({
    ...common,
    plugins: [],
    entryPoints: { cli: 'scripts/cli-loader.mjs' },
    outdir,
    format: 'cjs',
    define: {
      __CLI_CORE__: JSON.stringify(`cli-chunks/${core}`),
      __CLI_CORE_CACHE__: JSON.stringify(`cli-chunks/${cache}`),
      __CLI_VENDOR__: JSON.stringify(vendor),
    },
  });
  // Marks dist/*.js as CommonJS (the package is "type": "module"). It is not the package's
  // package.json: the loader has the CLI look for that from the directory above dist/.
  writeFileSync(join(outdir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  return result.metafile;
}

/**
 * Commands whose run the code cache records (file-only, no network): every scenario assessed,
 * the formats, a diff and a what-if. Output goes nowhere.
 */
function trainingCommands() {
  const scenarios = readdirSync('scenarios')
    .filter((f) => f.endsWith('.json'))
    .map((f) => `scenarios/${f}`);
  const [first = 'scenarios/healthy-api-mode.json'] = scenarios;
  return [
    ...scenarios.map((s) => ['assess', '--snapshot', s, '--format', 'json']),
    ...['text', 'markdown'].map((format) => ['assess', '--snapshot', first, '--format', format]),
    ['--version'],
  ];
}

/** Runs the training commands in this process on the freshly built core; writes its code cache. */
async function recordCodeCache(core, cache, vendor) {
  const file = join(chunks, core);
  const script = compileCore(readFileSync(file, 'utf8'), file, undefined);
  const nodeRequire = createRequire(join(outdir, 'cli.js'));
  const exports = runCore(script, coreRequire(nodeRequire, outdir, vendor), file, chunks);
  const io = {
    ...exports.createNodeIo(pathToFileURL(outdir).href),
    stdout() {},
    stderr() {},
  };
  for (const argv of trainingCommands()) {
    const code = await exports.runCli(argv, io);
    if (code > 1) throw new Error(`recording the code cache: \`${argv.join(' ')}\` exited ${code}`);
  }
  writeFileSync(join(chunks, cache), script.createCachedData());
}

function merge(...metafiles) {
  return {
    inputs: Object.assign({}, ...metafiles.map((m) => m.inputs)),
    outputs: Object.assign({}, ...metafiles.map((m) => m.outputs)),
  };
}

// Chunk names carry a content hash: drop the previous build's so the directory holds one build's chunks.
rmSync(chunks, { recursive: true, force: true });
let metafile;
if (values['single-file']) {
  metafile = await buildSingleFile();
} else {
  mkdirSync(chunks, { recursive: true });
  const core = await buildCore();
  const vendor = await buildVendor(importedNames(core.metafile, core.packages));
  const vendorFiles = Object.fromEntries(core.packages.map((p) => [p, `cli-chunks/${vendor.file}`]));
  const cache = core.file.replace(/\.cjs$/, '.cache');
  const loader = await buildLoader(core.file, cache, vendorFiles);
  await recordCodeCache(core.file, cache, vendorFiles);
  metafile = merge(loader, core.metafile, vendor.metafile);
}
// What went into the build, for checks such as "no shipped bundle contains the `yaml` package".
writeFileSync(join(outdir, 'cli-meta.json'), `${JSON.stringify(metafile)}\n`);
