/**
 * Starts the command in this process: the entry of `shared/cli/main.ts` (run from source) and of
 * the bundled CLI's core script (`scripts/build.mjs`, loaded by `dist/cli.js`).
 */
import { createNodeIo } from './node-io.ts';
import { runCli } from './run-cli.ts';

/** Runs the command line of this process; `moduleUrl` locates the package (its package.json). */
export async function startCli(moduleUrl: string): Promise<void> {
  // The AWS SDK prints, once and in 9 lines on stderr, that its releases after January 2027 will
  // need Node 22: advice for whoever packages this CLI (the Action runs it on Node 22), noise to
  // its user and a break of the commands' one-line stderr. The SDK's own switch silences exactly
  // that warning; a user who set it otherwise keeps their setting.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // A reader that closed the pipe (`| head`) is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE')
      process.stderr.write(`eks-auth-sentinel: cannot write output: ${error.code ?? error.message}\n`);
    process.exit(error.code === 'EPIPE' ? (process.exitCode ?? 0) : 3);
  });
  process.exitCode = await runCli(process.argv.slice(2), createNodeIo(moduleUrl));
}

// The build runs commands in-process to record the V8 code cache of the core script.
export { createNodeIo, runCli };
