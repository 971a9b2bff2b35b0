// An esbuild plugin for the CLI's bundles.
/**
 * node-fetch 2 (@kubernetes/client-node's HTTP client) takes `URL` from node:url and falls back
 * to the whatwg-url package only where Node has none, which no supported Node is. That package
 * requires the `punycode` built-in, which Node 22 deprecates at run time: every live command
 * would print the DEP0040 warning. So whatwg-url, for node-fetch alone, is Node's own URL (in the
 * Action's CLI, scripts/build-action.mjs, and the live chunk of dist/cli.js, scripts/build.mjs).
 */
export const nodeFetchUsesNodeUrl = {
  name: 'node-fetch-uses-node-url',
  setup(b) {
    b.onResolve({ filter: /^whatwg-url$/ }, (args) =>
      /[\\/]node_modules[\\/]node-fetch[\\/]/.test(args.importer)
        ? { path: 'whatwg-url', namespace: 'node-url' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'node-url' }, () => ({
      contents: 'module.exports = { URL: globalThis.URL };',
      loader: 'js',
    }));
  },
};
