// Where the bytes of a function bundle come from: builds it with the options of
// scripts/bundle-functions.mjs (in memory, nothing written) and sums esbuild's `bytesInOutput` per
// group — an npm package, `functions/<dir>`, `shared/<layer>`, or `shared/core/<dir>` for the
// core's folders (`shared/core` alone: the core's top-level files) — over all output files, and
// over those loaded at init (the entry and the chunks it imports statically).
//
// Usage: node scripts/bundle-report.mjs [name] [--files SUBSTRING] [--why SUBSTRING]
//   name        a function of scripts/bundle-options.mjs (default onEksEvent)
//   --files     also each input file whose path contains SUBSTRING, with its bytes ('' for all)
//   --why       the import chain from the entry point to the first input whose path contains
//               SUBSTRING (why is it in the bundle?)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { FUNCTIONS, functionBuildOptions, outputSizes } from './bundle-options.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { files: { type: 'string' }, why: { type: 'string' } },
});
const name = positionals[0] ?? 'onEksEvent';
const filter = values.files;
const entry = FUNCTIONS[name];
if (entry === undefined)
  throw new Error(`unknown function ${name} (known: ${Object.keys(FUNCTIONS).join(', ')})`);

/** The group an input belongs to (see the header). */
export function groupOf(input) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (pkg) return pkg[1];
  const parts = input.split('/');
  if (parts[0] === 'shared' && parts[1] === 'core')
    return parts.length > 3 ? parts.slice(0, 3).join('/') : 'shared/core';
  if (parts[0] === 'shared') return parts.length > 2 ? parts.slice(0, 2).join('/') : 'shared';
  return parts.length > 1 ? parts.slice(0, -1).join('/') : input;
}

const { metafile } = await build({
  ...functionBuildOptions(),
  absWorkingDir: root,
  entryPoints: { index: entry },
  outdir: join(root, 'dist', 'functions', name),
  write: false,
});
const { bytes, initBytes, loaded } = outputSizes(metafile);
/** Per input file: bytes in all outputs, and in those loaded at init. */
const perInput = new Map();
for (const [file, output] of Object.entries(metafile.outputs)) {
  if (!file.endsWith('.js')) continue;
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const key = input.replace(/^[\w-]+:/, ''); // a plugin's namespace
    const row = perInput.get(key) ?? { all: 0, init: 0 };
    row.all += bytesInOutput;
    if (loaded.has(file)) row.init += bytesInOutput;
    perInput.set(key, row);
  }
}
const groups = new Map();
for (const [file, { all, init }] of perInput) {
  const row = groups.get(groupOf(file)) ?? { all: 0, init: 0 };
  row.all += all;
  row.init += init;
  groups.set(groupOf(file), row);
}

const kib = (n) => (n / 1024).toFixed(1).padStart(7);
const lines = [
  `${name}: ${kib(bytes).trim()} KiB of JavaScript (${bytes} bytes), ${kib(initBytes).trim()} KiB loaded at init, from ${perInput.size} inputs`,
  '',
];
const rows = [...groups].sort((a, b) => b[1].all - a[1].all);
const sum = (pick) => rows.filter(([g]) => pick(g)).reduce((s, [, r]) => s + r.all, 0);
lines.push(
  `  npm packages ${kib(sum((g) => !/^(?:shared|functions)\b/.test(g)))} KiB`,
  `  shared/core  ${kib(sum((g) => g.startsWith('shared/core')))} KiB`,
  `  other own    ${kib(sum((g) => /^(?:shared|functions)\b/.test(g) && !g.startsWith('shared/core')))} KiB`,
  '',
  '      KiB  at init  group',
  ...rows.map(([g, r]) => `  ${kib(r.all)}  ${kib(r.init)}  ${g}`),
);
if (filter !== undefined) {
  lines.push('', '      KiB  at init  input');
  const matching = [...perInput]
    .filter(([file]) => file.includes(filter))
    .sort((a, b) => b[1].all - a[1].all);
  for (const [file, r] of matching) lines.push(`  ${kib(r.all)}  ${kib(r.init)}  ${file}`);
}
if (values.why !== undefined) {
  // Breadth first from the entry point over the metafile's imports: the shortest chain.
  const from = new Map([[entry, null]]);
  const queue = [entry];
  let found;
  while (queue.length > 0 && found === undefined) {
    const file = queue.shift();
    if (file.includes(values.why)) found = file;
    for (const { path } of metafile.inputs[file]?.imports ?? []) {
      if (metafile.inputs[path] !== undefined && !from.has(path)) {
        from.set(path, file);
        queue.push(path);
      }
    }
  }
  const chain = [];
  for (let f = found; f !== undefined && f !== null; f = from.get(f)) chain.unshift(f);
  const shaken =
    found !== undefined && !perInput.has(found) ? ' (imported, but no byte of it is in the output)' : '';
  lines.push(
    '',
    found === undefined
      ? `no input matches ${values.why}`
      : `why ${values.why}${shaken}:\n  ${chain.join('\n  -> ')}`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
