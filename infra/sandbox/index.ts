/**
 * The local sandbox account: EKS, EC2, IAM, STS, SNS, Slack (webhook and Web API) and one Kubernetes API
 * per cluster, over real HTTP(S) on 127.0.0.1, seeded from ClusterSnapshots.
 */
import type { Server } from 'node:http';
import { createAccessEvaluator } from './auth.ts';
import { sandboxTls } from './certs.ts';
import { createEksServer } from './eks-service.ts';
import { randomUpper } from './ids.ts';
import { AuditLog, worldWriteEvent } from './kube-audit.ts';
import { createKubeServer, type KubeCluster } from './kube-service.ts';
import { AWS_AUTH_NAME, AWS_AUTH_NAMESPACE, KubeStore } from './kube-store.ts';
import { WatchHub } from './kube-watch.ts';
import { createLogsServer } from './logs-service.ts';
import { createQueryServer } from './query-services.ts';
import { closeServer, listen, makePrincipal, Runtime } from './runtime.ts';
import { createSlackServer, type SlackWorkspace } from './slack-service.ts';
import { createSsmServer, SLACK_BOT_TOKEN_PARAMETER, SLACK_WEBHOOK_PARAMETER } from './ssm-service.ts';
import type {
  Sandbox,
  SandboxCluster,
  SandboxEnv,
  SandboxKube,
  SandboxOptions,
  SandboxSubscriptionFilter,
} from './types.ts';
import { type ClusterState, seedCluster, World } from './world.ts';

export { subscriptionPayload } from './kube-audit.ts';
export { rbacFromManifests } from './kube-rbac.ts';
export type * from './types.ts';

/** The sandbox Slack channel the bot is a member of. */
const SLACK_CHANNEL = 'C0SANDBOX01';

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const world = new World({
    sideEffectDelayMs: options.sideEffectDelayMs ?? 0,
    notReadyDelayMs: options.notReadyDelayMs ?? 1000,
    credentialRefreshDelayMs: options.credentialRefreshDelayMs ?? 1000,
    modeSwitchBackFill: options.modeSwitchBackFill ?? 'api-reference',
  });
  const first = options.clusters[0]?.snapshot;
  if (first) world.accountId = first.accountId;
  const runtime = new Runtime(world, options.latencyMs ?? 0, options.eksCallsPerSecond);
  runtime.ec2InstanceDetail = options.ec2InstanceDetail ?? 'lean';
  const monitor = makePrincipal(world.accountId, 'eks-auth-sentinel', 'AROAEKSAUTHSENTINEL01');
  const outsider = makePrincipal(world.accountId, 'sandbox-outsider', 'AROASANDBOXOUTSIDER01');
  runtime.principals.set(monitor.accessKeyId, monitor);
  runtime.principals.set(outsider.accessKeyId, outsider);
  world.ensureRole(monitor.arn, {
    roleId: monitor.roleId,
    createDate: '2025-01-01T00:00:00Z',
    state: 'exists',
  });
  world.ensureRole(outsider.arn, {
    roleId: outsider.roleId,
    createDate: '2025-01-01T00:00:00Z',
    state: 'exists',
  });

  const seedOne = (seed: SandboxOptions['clusters'][number], caller: string): ClusterState => {
    const name = seed.name ?? seed.snapshot.clusterName;
    if (world.find(name, seed.snapshot.region)) {
      throw new Error(`${caller}: two clusters named ${name} in ${seed.snapshot.region}`);
    }
    const cluster = seedCluster(world, seed.snapshot, name);
    if (seed.logging) cluster.logging = [...seed.logging];
    world.clusters.set(world.key(name, cluster.region), cluster);
    return cluster;
  };
  for (const seed of options.clusters) seedOne(seed, 'startSandbox');

  const tls = sandboxTls();
  const caData = Buffer.from(tls.caPem).toString('base64');
  const servers: Server[] = [];
  const start = async (server: Server): Promise<string> => {
    servers.push(server);
    return `http://127.0.0.1:${await listen(server)}`;
  };
  const sideEffectDelayMs = options.sideEffectDelayMs ?? 0;
  const eksUrl = await start(createEksServer({ runtime, caData: () => caData, sideEffectDelayMs }));
  const ec2Url = await start(createQueryServer(runtime, 'ec2'));
  const iamUrl = await start(createQueryServer(runtime, 'iam'));
  const stsUrl = await start(createQueryServer(runtime, 'sts'));
  const snsUrl = await start(createQueryServer(runtime, 'sns'));
  const slackWorkspace: SlackWorkspace = {
    token: `xoxb-000000000-${randomUpper(12).toLowerCase()}`,
    channels: new Map([[SLACK_CHANNEL, []]]),
    otherChannels: new Set(['C0OUTSIDE1']),
  };
  const slackOrigin = await start(createSlackServer(runtime, slackWorkspace));
  const slackUrl = `${slackOrigin}/services/T00000000/B00000000/sandbox`;
  const ssmParameters = new Map([
    [SLACK_WEBHOOK_PARAMETER, slackUrl],
    [SLACK_BOT_TOKEN_PARAMETER, slackWorkspace.token],
  ]);
  const ssmUrl = await start(createSsmServer(runtime, ssmParameters));
  const logSubscriptions = new Map<string, SandboxSubscriptionFilter[]>();
  const logsUrl = await start(createLogsServer(runtime, logSubscriptions));

  // One Kubernetes API server per cluster: the token's x-k8s-aws-id must name that cluster.
  const audit = new AuditLog(() => world.accountId);
  const kubeDeps = {
    runtime,
    tls,
    monitor,
    audit,
    watch: {
      bookmarkIntervalMs: options.kubeWatch?.bookmarkIntervalMs ?? 60_000,
      maxTimeoutSeconds: options.kubeWatch?.maxTimeoutSeconds ?? 1800,
    },
  };
  const kubeServers = new Map<ClusterState, Server>();
  const kubeClusters = new Map<ClusterState, KubeCluster>();
  const serveKube = async (cluster: ClusterState): Promise<void> => {
    const kube = {
      store: new KubeStore(world, cluster, options.kubeWatch?.historyLimit ?? 100),
      hub: new WatchHub(),
    };
    kubeClusters.set(cluster, kube);
    const server = createKubeServer(kubeDeps, cluster, kube);
    kubeServers.set(cluster, server);
    cluster.endpoint = `https://127.0.0.1:${await listen(server)}`;
  };
  for (const cluster of world.clusters.values()) await serveKube(cluster);
  world.onAwsAuthChange = (change) => {
    const kube = kubeClusters.get(change.cluster);
    const after = change.cluster.awsAuth ?? change.before;
    if (kube && after) kube.store.record(change.type, AWS_AUTH_NAMESPACE, AWS_AUTH_NAME, after);
    if (!change.write.viaApi) audit.write(change.cluster, worldWriteEvent(world.accountId, change));
  };
  world.onRemove = (cluster) => {
    const server = kubeServers.get(cluster);
    kubeServers.delete(cluster);
    kubeClusters.get(cluster)?.hub.closeAll();
    if (server) void closeServer(server);
  };
  world.evaluator = createAccessEvaluator(world);
  for (const cluster of world.clusters.values()) {
    cluster.changed();
    world.refreshCredentials(cluster, true);
  }

  const region = first?.region ?? 'us-east-1';
  const env: SandboxEnv = {
    AWS_ENDPOINT_URL_EKS: eksUrl,
    AWS_ENDPOINT_URL_EC2: ec2Url,
    AWS_ENDPOINT_URL_IAM: iamUrl,
    AWS_ENDPOINT_URL_STS: stsUrl,
    AWS_ENDPOINT_URL_SNS: snsUrl,
    AWS_ENDPOINT_URL_SSM: ssmUrl,
    AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: logsUrl,
    AWS_ACCESS_KEY_ID: monitor.accessKeyId,
    AWS_SECRET_ACCESS_KEY: monitor.secretAccessKey,
    AWS_REGION: region,
    SLACK_WEBHOOK_URL: slackUrl,
    SLACK_API_URL: `${slackOrigin}/api`,
    SLACK_BOT_TOKEN: slackWorkspace.token,
    SLACK_CHANNEL,
  };

  const findCluster = (name: string, inRegion?: string): ClusterState => {
    const matches: ClusterState[] = [...world.clusters.values()].filter(
      (c) => c.name === name && (inRegion === undefined || c.region === inRegion),
    );
    if (matches.length === 1) return matches[0] as ClusterState;
    throw new Error(
      matches.length === 0
        ? `sandbox: no cluster ${name}${inRegion ? ` in ${inRegion}` : ''}`
        : `sandbox: cluster ${name} exists in several Regions; pass the Region`,
    );
  };

  let closed = false;
  return {
    env,
    credentials: { accessKeyId: monitor.accessKeyId, secretAccessKey: monitor.secretAccessKey },
    outsiderCredentials: { accessKeyId: outsider.accessKeyId, secretAccessKey: outsider.secretAccessKey },
    accountId: world.accountId,
    principals: { monitor: monitor.arn, outsider: outsider.arn },
    caPem: tls.caPem,
    cluster: (name: string, inRegion?: string): SandboxCluster => findCluster(name, inRegion),
    async addCluster(seed): Promise<SandboxCluster> {
      if (closed) throw new Error('sandbox: closed');
      const cluster = seedOne(seed, 'addCluster');
      await serveKube(cluster);
      world.log(`${cluster.name}: cluster created (${cluster.status}, OIDC issuer ${cluster.oidcIssuer})`);
      cluster.changed();
      world.credentialsChanged(cluster);
      return cluster;
    },
    iamRoles: world.iamRoles,
    oidcProviders: world.oidcProviders,
    oidcProviderClientIds: world.oidcProviderClientIds,
    ssmParameters,
    logSubscriptions,
    cloudTrail: runtime.cloudTrail,
    sns: runtime.sns,
    slack: runtime.slack,
    slackApi: { calls: runtime.slackApi, channels: slackWorkspace.channels },
    calls: runtime.calls,
    peakInFlight: runtime.peakInFlight,
    timeline: world.timeline,
    faults: {
      inject: (f) => runtime.injectFault(f),
      clear: () => runtime.clearFaults(),
    },
    kube(name: string, inRegion?: string): SandboxKube {
      const cluster = findCluster(name, inRegion);
      const kube = kubeClusters.get(cluster);
      if (!kube) throw new Error(`sandbox: cluster ${name} has no Kubernetes API`);
      return {
        get resourceVersion() {
          return kube.store.resourceVersion;
        },
        get openWatches() {
          return kube.hub.size;
        },
        compact: () => kube.store.compact(),
        closeWatches: () => kube.hub.closeAll(),
      };
    },
    audit,
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      world.close();
      for (const kube of kubeClusters.values()) kube.hub.closeAll();
      await Promise.all([...servers, ...kubeServers.values()].map((s) => closeServer(s)));
    },
  };
}
