/**
 * `npm start`: the main job against the local sandbox account, exactly as a user runs it against AWS.
 * Starts the sandbox seeded with every scenarios/*.json (each cluster named after its file), runs
 * the bundled CLI `node dist/cli.js report --region eu-west-1 --fail-on none` as a child process
 * with nothing but the sandbox's environment for AWS (endpoints and credentials), stops the
 * sandbox and exits with the CLI's exit code (0 when every cluster could be read).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { startSandbox } from '../infra/sandbox/index.ts';
import { loadScenarios } from '../infra/sandbox/scenarios.ts';

const ROOT = join(import.meta.dirname, '..');
const REGION = 'eu-west-1';
const ARGS = ['report', '--region', REGION, '--fail-on', 'none'];

/** The caller's environment without AWS settings (a profile or session token would mix with the sandbox's). */
function environmentWithout(prefix: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith(prefix)) env[key] = value;
  }
  return env;
}

const clusters = await loadScenarios(join(ROOT, 'scenarios'));
const sandbox = await startSandbox({ clusters });
let code: number;
try {
  process.stdout.write(
    `Sandbox account ${sandbox.accountId} (local, ${clusters.length} clusters from scenarios/ in ${REGION}).\n$ eks-auth-sentinel ${ARGS.join(' ')}\n\n`,
  );
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...ARGS], {
    cwd: ROOT,
    env: {
      ...environmentWithout('AWS_'),
      ...sandbox.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const [exitCode, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  code = exitCode ?? (signal === null ? 3 : 128);
} finally {
  await sandbox.close();
}
process.exitCode = code;
