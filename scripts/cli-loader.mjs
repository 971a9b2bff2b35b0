#!/usr/bin/env node
// dist/cli.js, the `eks-auth-sentinel` bin (scripts/build.mjs bundles this file with the names of
// the files it built): compiles the core script from its code cache (cli-core-script.mjs) and
// starts the command.
import { createRequire } from 'node:module';
import { compileCore, coreRequire, runCore } from './cli-core-script.mjs';

// Built-in modules through `require` (see cli-core-script.mjs).
const require = createRequire(import.meta.url);
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { fileURLToPath } = require('node:url');

/* global __CLI_CORE__, __CLI_CORE_CACHE__, __CLI_VENDOR__ -- defined by scripts/build.mjs */
const dir = dirname(fileURLToPath(import.meta.url));
const file = join(dir, __CLI_CORE__);
let cache;
try {
  cache = readFileSync(join(dir, __CLI_CORE_CACHE__));
} catch {
  // No code cache (a build without one): V8 compiles the core from its source.
}
const script = compileCore(readFileSync(file, 'utf8'), file, cache);
const core = runCore(script, coreRequire(require, dir, __CLI_VENDOR__), file, dirname(file));
await core.startCli(import.meta.url);
