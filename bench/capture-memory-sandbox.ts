/**
 * Child process of the capture-memory benchmark: a sandbox account with one cluster of N nodes
 * (EC2 instances with a real instance's payload + Kubernetes nodes), in a process of its own so
 * that its memory is not counted. Prints one JSON line (endpoints, credentials, Region, cluster),
 * then serves until its stdin closes.
 * `npx tsx bench/capture-memory-sandbox.ts <nodes> [lean|full]` (`full`: DescribeInstances items
 * with a real instance's payload, ≈ 5 KiB of XML each; the SDK then parses ~2.6 s per page here).
 */
import { startSandbox } from '../infra/sandbox/index.ts';
import type { ComputeNode } from '../shared/core/model.ts';
import { benchCluster } from './capture.ts';

const nodes = Number(process.argv[2] ?? 100_000);
const detail = process.argv[3] === 'full' ? 'full' : 'lean';
const seed = benchCluster(0);
const nodeRole = seed.nodegroups.status === 'ok' ? (seed.nodegroups.data[0]?.nodeRole ?? '') : '';
const compute: ComputeNode[] = Array.from({ length: nodes }, (_, i) => {
  const managed = i % 5 < 3;
  const node: ComputeNode = {
    kind: managed ? 'managed' : 'karpenter',
    id: `i-${i.toString(16).padStart(17, '0')}`,
    nodeName: `ip-10-${(i >> 16) & 255}-${(i >> 8) & 255}-${i & 255}.${seed.region}.compute.internal`,
    roleArn: nodeRole,
    os: 'linux',
    ready: 'True',
  };
  if (managed) node.nodegroup = `ng-${i % 10}`;
  else {
    node.nodePool = 'default';
    node.nodeClass = 'default';
  }
  return node;
});
seed.compute = { status: 'ok', data: compute };

const sandbox = await startSandbox({ clusters: [{ snapshot: seed }], ec2InstanceDetail: detail });
process.stdout.write(
  `${JSON.stringify({ env: sandbox.env, credentials: sandbox.credentials, region: seed.region, clusterName: seed.clusterName })}\n`,
);
process.stdin.resume();
process.stdin.on('end', () => void sandbox.close().then(() => process.exit(0)));
