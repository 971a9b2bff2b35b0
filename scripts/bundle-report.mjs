// Where the bytes of a function bundle come from: builds it with the options of
// scripts/bundle-functions.mjs (in memory, nothing written) and sums esbuild's `bytesInOutput` per
// group — an npm package, `functions/<dir>`, `shared/<layer>`, or `shared/core/<dir>` for the
// core's folders (`shared/core` alone: the core's top-level files).
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
import { FUNCTIONS, functionBuildOptions } from './bundle-options.mjs';

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
  entryPoints: [entry],
  outfile: join(root, 'dist', 'functions', name, 'index.js'),
  write: false,
});
const [, output] = Object.entries(metafile.outputs).find(([file]) => file.endsWith('.js'));
const inputs = Object.entries(output.inputs).map(([file, { bytesInOutput }]) => ({
  file: file.replace(/^[\w-]+:/, ''), // a plugin's namespace
  bytes: bytesInOutput,
}));
const groups = new Map();
for (const { file, bytes } of inputs) groups.set(groupOf(file), (groups.get(groupOf(file)) ?? 0) + bytes);

const kib = (bytes) => (bytes / 1024).toFixed(1).padStart(7);
const lines = [
  `${name}: ${kib(output.bytes).trim()} KiB (${output.bytes} bytes) from ${inputs.length} inputs`,
  '',
];
const rows = [...groups].sort((a, b) => b[1] - a[1]);
const sum = (prefix) => rows.filter(([g]) => g.startsWith(prefix)).reduce((s, [, b]) => s + b, 0);
lines.push(
  `  npm packages ${kib(rows.filter(([g]) => !/^(?:shared|functions)\b/.test(g)).reduce((s, [, b]) => s + b, 0))} KiB`,
  `  shared/core  ${kib(sum('shared/core'))} KiB`,
  `  other own    ${kib(sum('shared') - sum('shared/core') + sum('functions'))} KiB`,
  '',
  '      KiB  group',
  ...rows.map(([g, b]) => `  ${kib(b)}  ${g}`),
);
if (filter !== undefined) {
  lines.push('', '      KiB  input');
  for (const { file, bytes } of inputs
    .filter((i) => i.file.includes(filter))
    .sort((a, b) => b.bytes - a.bytes))
    lines.push(`  ${kib(bytes)}  ${file}`);
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
    found !== undefined && !(found in output.inputs) ? ' (imported, but no byte of it is in the output)' : '';
  lines.push(
    '',
    found === undefined
      ? `no input matches ${values.why}`
      : `why ${values.why}${shaken}:\n  ${chain.join('\n  -> ')}`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
