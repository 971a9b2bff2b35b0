#!/usr/bin/env node
// dist/cli.js, the `eks-auth-sentinel` bin (scripts/build.mjs bundles this file with the names of
// the files it built): compiles the core script from its code cache (cli-core-script.mjs) and
// starts the command.
// Bundled as a CommonJS script (dist/package.json says "type": "commonjs"): Node starts it without
// its ES-module loader, ≈ 10 ms less than an ES module on every start, and a CommonJS `require` of
// a built-in module skips the ES-module facade an `import` builds (which reads every export,
// node:fs's lazy streams included).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileCore, coreRequire, runCore } from './cli-core-script.mjs';

/* global __CLI_CORE__, __CLI_CORE_CACHE__, __CLI_VENDOR__ -- defined by scripts/build.mjs */
const file = join(__dirname, __CLI_CORE__);
let cache;
try {
  cache = readFileSync(join(__dirname, __CLI_CORE_CACHE__));
} catch {
  // No code cache (a build without one): V8 compiles the core from its source.
}
const script = compileCore(readFileSync(file, 'utf8'), file, cache);
const core = runCore(script, coreRequire(require, __dirname, __CLI_VENDOR__), file, dirname(file));
// The package is found from the directory above this URL's, dist/ (whose package.json only marks
// its scripts as CommonJS).
core.startCli(pathToFileURL(__dirname).href);
