/** The real `CliIo`: node:fs with the input size limit, process streams and env. */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeSubscriptionEvent } from '../adapters/logs-subscription-payload.ts';
import { type CliIo, MAX_INPUT_BYTES } from './io.ts';
import { directoryError, STDIN, tooLargeError } from './read-input.ts';

/** The nearest directory at or above `from` that holds a package.json (dist/ → the package root). */
export function findPackageRoot(from: string): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return from;
    dir = parent;
  }
}

export function createNodeIo(moduleUrl: string): CliIo {
  return {
    decodeLogsSubscription: decodeSubscriptionEvent,
    async readFile(path) {
      const info = await stat(path);
      if (info.isDirectory()) throw directoryError(path);
      if (info.isFile() && info.size > MAX_INPUT_BYTES) throw tooLargeError(path, info.size);
      return readFile(path, 'utf8');
    },
    async readStdin() {
      // Bounded like a file: the pipe is read no further than the limit.
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of process.stdin) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
        size += buffer.length;
        if (size > MAX_INPUT_BYTES) {
          process.stdin.destroy();
          throw tooLargeError(STDIN, size);
        }
        chunks.push(buffer);
      }
      return Buffer.concat(chunks).toString('utf8');
    },
    stdout: (text) => {
      process.stdout.write(text);
    },
    stderr: (text) => {
      process.stderr.write(text);
    },
    isTTY: process.stdout.isTTY === true,
    env: process.env,
    packageRoot: findPackageRoot(dirname(fileURLToPath(moduleUrl))),
    listDir: (path) => readdir(path),
    stderrIsTTY: process.stderr.isTTY === true,
    interrupts() {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return controller.signal;
    },
    live: {
      // Loaded on first use: the SDK clients cost ~300 ms to load, and only live commands need them.
      async captureDeps() {
        const { createLiveCaptureDeps } = await import('../adapters/live.ts');
        return createLiveCaptureDeps();
      },
      // Loaded on first use too: the store validates with the snapshot schema (zod).
      async snapshotStore(dir) {
        const { createFileSnapshotStore } = await import('../adapters/file-store.ts');
        return createFileSnapshotStore(dir);
      },
      async writeFileAtomic(path, text) {
        const { writeFileAtomic } = await import('../adapters/file-store.ts');
        return writeFileAtomic(path, text);
      },
      async awsAuthWatcher() {
        const [{ createAwsAuthWatcher }, { createEksTokenProvider }] = await Promise.all([
          import('../adapters/kubernetes-aws-auth-watch.ts'),
          import('../adapters/kube-token.ts'),
        ]);
        return createAwsAuthWatcher({ tokens: createEksTokenProvider() });
      },
      async watchRemediation() {
        const [aws, eks, writer, token, k8s, remediate] = await Promise.all([
          import('../adapters/aws-clients.ts'),
          import('../adapters/eks.ts'),
          import('../adapters/eks-access-entry-writer.ts'),
          import('../adapters/kube-token.ts'),
          import('../adapters/kubernetes-aws-auth.ts'),
          import('../app/remediate.ts'),
        ]);
        const tokens = token.createEksTokenProvider();
        const writers = aws.perRegion((region) =>
          writer.createEksAccessEntryWriter(eks.createEksClient(region)),
        );
        return remediate.createWatchRemediation({
          accessEntries: {
            createAccessEntry: (cluster, entry) => writers(cluster.region).createAccessEntry(cluster, entry),
          },
          awsAuthWriter: k8s.createAwsAuthWriter({ tokens }),
          awsAuth: k8s.createAwsAuthReader({ tokens }),
          clock: { now: () => new Date() },
          maxActionsPerHour: 10,
        });
      },
    },
  };
}
