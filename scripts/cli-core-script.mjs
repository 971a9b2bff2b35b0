// The CLI's core script (dist/cli-chunks/core-*.cjs: every command's code, in CommonJS form) is
// compiled with `vm.Script` rather than imported, so that V8 can start from the code cache that
// the build records next to it (core-*.cache): on Node 20 neither the ESM nor the CommonJS loader
// takes a code cache, and compiling the ≈ 1 MiB of the core is most of a file-only command's
// start. Used by dist/cli.js (scripts/cli-loader.mjs) and by the build that records the cache:
// both compile the same text, or V8 would reject the cache.
import { Script } from 'node:vm';

/**
 * Compiles the core's source as the body of a CommonJS-style function. `cachedData`: a code cache
 * from `Script#createCachedData`; V8 checks it (its version and flags, the source's length) and
 * compiles from the source when it does not fit (`script.cachedDataRejected`).
 */
export function compileCore(source, filename, cachedData) {
  // "use strict": the bundled modules are ES modules, strict as they were before bundling.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {"use strict";${source}\n})`;
  return new Script(wrapped, { filename, ...(cachedData === undefined ? {} : { cachedData }) });
}

/** Runs a compiled core once; returns its exports. `require` serves the core's `require` calls. */
export function runCore(script, require, filename, dirname) {
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module, filename, dirname);
  return module.exports;
}

/**
 * The core's `require`: the packages of the live adapters come from the vendor bundle (`vendor`:
 * package name → its file, relative to `dir`, whose `packages[name]` holds what the core imports), anything
 * else (Node's built-in modules) from `nodeRequire`.
 */
export function coreRequire(nodeRequire, dir, vendor) {
  return (id) => {
    if (!Object.hasOwn(vendor, id)) return nodeRequire(id);
    return nodeRequire(`${dir}/${vendor[id]}`).packages[id];
  };
}
