#!/usr/bin/env node
/** Entry point of the `eks-auth-sentinel` command (bundled to dist/cli.js). */
import { createNodeIo } from './node-io.ts';
import { runCli } from './run-cli.ts';

// A reader that closed the pipe (`| head`) is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE')
    process.stderr.write(`eks-auth-sentinel: cannot write output: ${error.code ?? error.message}\n`);
  process.exit(error.code === 'EPIPE' ? (process.exitCode ?? 0) : 3);
});

process.exitCode = await runCli(process.argv.slice(2), createNodeIo(import.meta.url));
