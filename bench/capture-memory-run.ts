/**
 * Child process of the capture-memory benchmark: one `captureSnapshot` of the sandbox cluster
 * through the live adapters of the checkout at <root> (default: this one), sampling
 * `process.memoryUsage()` every 20 ms; peak RSS also from the OS (`resourceUsage().maxRSS`).
 * Prints one JSON line. `npx tsx bench/capture-memory-run.ts '<sandbox JSON line>' [root]`
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const sandbox = JSON.parse(process.argv[2] ?? '{}') as {
  env: Record<string, string>;
  credentials: { accessKeyId: string; secretAccessKey: string };
  region: string;
  clusterName: string;
};
const root = resolve(process.argv[3] ?? resolve(import.meta.dirname, '..'));
const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);
const { createLiveCaptureDeps } = await load('shared/adapters/live.ts');
const { captureSnapshot } = await load('shared/app/capture-snapshot.ts');

const mib = (bytes: number) => bytes / 2 ** 20;
const base = process.memoryUsage();
let peakRss = base.rss;
let peakHeap = base.heapUsed;
const sample = () => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
};
const timer = setInterval(sample, 20);
const deps = createLiveCaptureDeps({
  credentials: sandbox.credentials,
  endpoints: {
    eks: sandbox.env.AWS_ENDPOINT_URL_EKS,
    ec2: sandbox.env.AWS_ENDPOINT_URL_EC2,
    iam: sandbox.env.AWS_ENDPOINT_URL_IAM,
  },
  kube: { requestTimeoutMs: 60_000, budgetMs: 120_000 },
  callBudgetMs: 120_000,
  requestTimeoutMs: 60_000,
});
const t0 = performance.now();
const snapshot = await captureSnapshot(deps, { region: sandbox.region, clusterName: sandbox.clusterName });
const wallMs = performance.now() - t0;
sample();
clearInterval(timer);
process.stdout.write(
  `${JSON.stringify({
    wallMs,
    baseRssMiB: mib(base.rss),
    baseHeapMiB: mib(base.heapUsed),
    peakRssMiB: Math.max(mib(peakRss), process.resourceUsage().maxRSS / 1024),
    peakHeapMiB: mib(peakHeap),
    compute: snapshot.compute.status === 'ok' ? snapshot.compute.data.length : snapshot.compute.status,
    ready:
      snapshot.compute.status === 'ok'
        ? snapshot.compute.data.filter((c: { ready?: string }) => c.ready === 'True').length
        : 0,
  })}\n`,
);
process.exit(0);
