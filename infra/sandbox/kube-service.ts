/**
 * One Kubernetes API server per cluster, over HTTPS with the sandbox CA. It accepts only a valid
 * EKS bearer token for THAT cluster, authorizes with the core resolver, and serves what the monitor
 * reads: the aws-auth ConfigMap, nodes, and Karpenter EC2NodeClasses. Errors are `Status` objects.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { type KubeRequestTarget, kubeAccess } from './auth.ts';
import type { SandboxTls } from './certs.ts';
import { verifyEksToken } from './eks-token.ts';
import { decodeToken, encodeToken, parseRoleArn, stableHex, stableUpper } from './ids.ts';
import type { AuditLog } from './kube-audit.ts';
import { forbidden, status } from './kube-status.ts';
import type { KubeStore } from './kube-store.ts';
import {
  isWatchRequest,
  parseFieldSelector,
  serveWatch,
  type WatchFilter,
  type WatchHub,
  type WatchSettings,
} from './kube-watch.ts';
import { handleConfigMapWrite, type WriteOperation } from './kube-writes.ts';
import { type Principal, type Runtime, readIncoming, send } from './runtime.ts';
import type { SandboxNode } from './types.ts';
import { type ClusterState, instanceProfileOfNode } from './world.ts';

interface KubeRoute {
  operation: string;
  target: KubeRequestTarget;
  name?: string;
  write?: WriteOperation;
  watch?: WatchFilter;
}

const CM_COLLECTION = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps$/;
const CM_OBJECT = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/]+)$/;

function configMapRoute(method: string, path: string, watch: boolean): KubeRoute | undefined {
  const one = CM_OBJECT.exec(path);
  const all = path === '/api/v1/configmaps' ? [path] : CM_COLLECTION.exec(path);
  if (!one && !all) return undefined;
  const namespace = one ? decodeURIComponent(one[1] as string) : all?.[1] && decodeURIComponent(all[1]);
  const name = one ? decodeURIComponent(one[2] as string) : undefined;
  const target = (verb: KubeRequestTarget['verb'], named: boolean): KubeRequestTarget => ({
    verb,
    resource: 'configmaps',
    ...(namespace ? { namespace } : {}),
    ...(named && name ? { name } : {}),
  });
  if (method === 'GET' && watch)
    return {
      operation: 'WatchConfigMaps',
      target: target('watch', true),
      watch: { namespace: namespace || undefined, name },
    };
  if (method === 'GET' && name) return { operation: 'GetConfigMap', target: target('get', true), name };
  if (method === 'GET') return { operation: 'ListConfigMaps', target: target('list', false) };
  if (!namespace) return undefined;
  if (method === 'POST' && !name)
    return { operation: 'CreateConfigMap', target: target('create', false), write: 'CreateConfigMap' };
  if (!name) return undefined;
  const writes: Record<string, WriteOperation> = {
    PUT: 'ReplaceConfigMap',
    PATCH: 'PatchConfigMap',
    DELETE: 'DeleteConfigMap',
  };
  const op = writes[method];
  if (!op) return undefined;
  const verb = ({ ReplaceConfigMap: 'update', PatchConfigMap: 'patch', DeleteConfigMap: 'delete' } as const)[
    op as 'ReplaceConfigMap'
  ];
  return { operation: op, target: target(verb, true), name, write: op };
}

function kubeRoute(method: string, path: string, query: Map<string, string[]>): KubeRoute | undefined {
  const cm = configMapRoute(method, path, isWatchRequest(query));
  if (cm) return cm;
  if (method !== 'GET') return undefined;
  if (path === '/version') return { operation: 'GetVersion', target: { verb: 'get', resource: 'version' } };
  if (path === '/api/v1/nodes')
    return { operation: 'ListNodes', target: { verb: 'list', resource: 'nodes' } };
  if (path === '/api/v1/serviceaccounts')
    return { operation: 'ListServiceAccounts', target: { verb: 'list', resource: 'serviceaccounts' } };
  const node = /^\/api\/v1\/nodes\/([^/]+)$/.exec(path);
  if (node) {
    return {
      operation: 'GetNode',
      target: { verb: 'get', resource: 'nodes' },
      name: decodeURIComponent(node[1] as string),
    };
  }
  if (path === '/apis/karpenter.k8s.aws/v1/ec2nodeclasses') {
    return { operation: 'ListEC2NodeClasses', target: { verb: 'list', resource: 'ec2nodeclasses' } };
  }
  if (path === '/apis/eks.amazonaws.com/v1/nodeclasses') {
    return { operation: 'ListNodeClasses', target: { verb: 'list', resource: 'nodeclasses' } };
  }
  return undefined;
}

export interface KubeServerDeps {
  runtime: Runtime;
  tls: SandboxTls;
  monitor: Principal;
  audit: AuditLog;
  watch: WatchSettings;
}

/** One cluster's API objects beyond the world: its ConfigMaps' history and its open watches. */
export interface KubeCluster {
  store: KubeStore;
  hub: WatchHub;
}

export function createKubeServer(deps: KubeServerDeps, cluster: ClusterState, kube: KubeCluster): Server {
  return createHttpsServer({ cert: deps.tls.certPem, key: deps.tls.keyPem }, (req, res) => {
    handleKube(deps, cluster, kube, req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, 'application/json', JSON.stringify(status(500, String(err))));
    });
  });
}

async function handleKube(
  deps: KubeServerDeps,
  cluster: ClusterState,
  kube: KubeCluster,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { runtime } = deps;
  const world = runtime.world;
  const receivedAt = Date.now();
  const incoming = await readIncoming(req);
  const r = kubeRoute(incoming.method, incoming.rawPath, incoming.query);
  const operation = r?.operation ?? 'Unknown';
  const reply = (code: number, body: unknown): void => {
    runtime.record('kube', operation, cluster.name, code);
    send(res, code, 'application/json', JSON.stringify(body));
  };
  await runtime.delay();
  if (cluster.removed) {
    reply(503, status(503, 'the cluster is being deleted'));
    return;
  }
  const auth = incoming.headers.authorization ?? '';
  const bearer = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
  const checked = bearer ? verifyEksToken(bearer, cluster.name, runtime.lookupSecret, Date.now()) : undefined;
  const principal = checked?.ok ? runtime.principals.get(checked.accessKeyId) : undefined;
  if (!principal) {
    reply(401, status(401, 'Unauthorized'));
    return;
  }
  const access = kubeAccess(world, cluster, principal, deps.monitor.arn);
  if (access.kind === 'unauthenticated') {
    reply(401, status(401, 'Unauthorized'));
    return;
  }
  const fault = runtime.takeFault('kube', operation, cluster.name);
  if (fault?.hang) return runtime.record('kube', operation, cluster.name, 0);
  if (fault) {
    reply(fault.status, status(fault.status, fault.message ?? 'injected fault', fault.code));
    return;
  }
  if (!r) {
    reply(404, status(404, 'the server could not find the requested resource'));
    return;
  }
  if (r.write) {
    const name = r.name;
    const out = handleConfigMapWrite(
      { world, store: kube.store, audit: deps.audit },
      {
        operation: r.write,
        namespace: r.target.namespace ?? '',
        name,
        incoming,
        access,
        principal,
        sourceIP: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
        receivedAt,
      },
    );
    reply(out.code, out.body);
    return;
  }
  if (!access.can(r.target)) {
    reply(403, forbidden(access.username, r.target, r.name));
    return;
  }
  switch (r.operation) {
    case 'GetVersion':
      reply(200, {
        major: '1',
        minor: cluster.version.split('.')[1] ?? '31',
        gitVersion: `v${cluster.version}.0-eks-sandbox`,
        platform: 'linux/amd64',
      });
      return;
    case 'GetConfigMap': {
      const object = kube.store.get(r.target.namespace ?? '', r.name ?? '');
      if (!object) {
        reply(
          404,
          status(404, `configmaps "${r.name}" not found`, 'NotFound', { name: r.name, kind: 'configmaps' }),
        );
        return;
      }
      reply(200, object);
      return;
    }
    case 'WatchConfigMaps': {
      const filter = parseFieldSelector(
        incoming.query.get('fieldSelector')?.[0],
        r.watch ?? { namespace: undefined, name: undefined },
      );
      if ('error' in filter) {
        reply(400, status(400, filter.error));
        return;
      }
      runtime.record('kube', operation, cluster.name, 200);
      serveWatch(kube.store, kube.hub, deps.watch, incoming.query, filter, res);
      return;
    }
    case 'ListConfigMaps': {
      const filter = parseFieldSelector(incoming.query.get('fieldSelector')?.[0], {
        namespace: r.target.namespace,
        name: undefined,
      });
      if ('error' in filter) {
        reply(400, status(400, filter.error));
        return;
      }
      const items = kube.store
        .list(filter.namespace)
        .filter((c) => filter.name === undefined || c.name === filter.name)
        .map((c) => c.object);
      const page = paginate(items, incoming.query, `cm/${cluster.arn}/${kube.store.oldestResourceVersion}`);
      if ('error' in page) {
        reply(410, status(410, page.error, 'Expired'));
        return;
      }
      reply(200, {
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: listMeta(kube.store.resourceVersion, page),
        items: page.items,
      });
      return;
    }
    case 'ListNodes': {
      const nodes = listedNodes(cluster);
      const page = paginate(nodes, incoming.query, `nodes/${cluster.arn}`);
      if ('error' in page) {
        reply(410, status(410, page.error, 'Expired'));
        return;
      }
      reply(200, {
        kind: 'NodeList',
        apiVersion: 'v1',
        metadata: listMeta(world.nextResourceVersion(), page),
        items: page.items.map((n) => nodeJson(cluster, n)),
      });
      return;
    }
    case 'ListServiceAccounts': {
      const page = paginate(cluster.serviceAccounts, incoming.query, `sa/${cluster.arn}`);
      if ('error' in page) {
        reply(410, status(410, page.error, 'Expired'));
        return;
      }
      reply(200, {
        kind: 'ServiceAccountList',
        apiVersion: 'v1',
        metadata: listMeta(world.nextResourceVersion(), page),
        items: page.items.map((sa) => ({
          metadata: {
            name: sa.name,
            namespace: sa.namespace,
            uid: `${sa.namespace}-${sa.name}`,
            ...(sa.roleArnAnnotation === undefined
              ? {}
              : { annotations: { 'eks.amazonaws.com/role-arn': sa.roleArnAnnotation } }),
          },
        })),
      });
      return;
    }
    case 'GetNode': {
      const node = listedNodes(cluster).find((n) => n.nodeName === r.name);
      if (!node) {
        reply(404, status(404, `nodes "${r.name}" not found`, 'NotFound', { name: r.name, kind: 'nodes' }));
        return;
      }
      reply(200, nodeJson(cluster, node));
      return;
    }
    case 'ListNodeClasses': {
      // EKS Auto Mode's NodeClasses: the CRD exists only where Auto Mode is on (404 otherwise).
      const classes = cluster.autoModeNodeClasses;
      if (!classes) {
        reply(404, status(404, 'the server could not find the requested resource', 'NotFound'));
        return;
      }
      reply(200, {
        apiVersion: 'eks.amazonaws.com/v1',
        kind: 'NodeClassList',
        metadata: { resourceVersion: world.nextResourceVersion() },
        items: classes.map((c) => ({
          apiVersion: 'eks.amazonaws.com/v1',
          kind: 'NodeClass',
          metadata: { name: c.name, resourceVersion: '1', generation: 1 },
          spec: { ...(c.role ? { role: c.role } : {}) },
        })),
      });
      return;
    }
    case 'ListEC2NodeClasses': {
      const classes = cluster.nodeClasses;
      if (!classes) {
        reply(404, status(404, 'the server could not find the requested resource', 'NotFound'));
        return;
      }
      const page = paginate(classes, incoming.query, `ec2nc/${cluster.arn}`);
      if ('error' in page) {
        reply(410, status(410, page.error, 'Expired'));
        return;
      }
      reply(200, {
        apiVersion: 'karpenter.k8s.aws/v1',
        kind: 'EC2NodeClassList',
        metadata: listMeta(world.nextResourceVersion(), page),
        items: page.items.map((c) => {
          const role = c.role ?? (c.roleArn ? parseRoleArn(c.roleArn)?.name : undefined);
          const spec: Record<string, unknown> = {
            amiSelectorTerms: [{ alias: 'al2023@latest' }],
            subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': cluster.name } }],
            securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': cluster.name } }],
          };
          if (c.instanceProfile) spec.instanceProfile = c.instanceProfile;
          else if (role) spec.role = role;
          const profile =
            c.instanceProfile ??
            (c.roleArn
              ? instanceProfileOfNode(world, cluster, { ...fakeNode, roleArn: c.roleArn })?.name
              : undefined);
          return {
            apiVersion: 'karpenter.k8s.aws/v1',
            kind: 'EC2NodeClass',
            metadata: {
              name: c.name,
              uid: `${stableUpper(c.name, 8).toLowerCase()}-0000-4000-8000-${stableUpper(cluster.arn, 12).toLowerCase()}`,
              resourceVersion: '1',
              generation: 1,
              creationTimestamp: cluster.createdAt.replace(/\.\d{3}Z$/, 'Z'),
            },
            spec,
            status: {
              ...(profile ? { instanceProfile: profile } : {}),
              conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '' }],
            },
          };
        }),
      });
      return;
    }
    default:
      reply(404, status(404, 'the server could not find the requested resource'));
  }
}

const fakeNode: SandboxNode = {
  kind: 'self-managed',
  id: 'i-0',
  os: 'linux',
  ready: 'True',
  availabilityZone: '',
  privateIp: '',
  instanceType: '',
  instanceState: 'running',
  launchTime: '',
};

function listedNodes(cluster: ClusterState): SandboxNode[] {
  return cluster.nodes
    .filter(
      (n) => n.nodeName !== undefined && (n.instanceState === 'running' || n.instanceState === 'pending'),
    )
    .sort((a, b) => ((a.nodeName ?? '') < (b.nodeName ?? '') ? -1 : 1));
}

function paginate<T>(
  items: T[],
  query: Map<string, string[]>,
  salt: string,
): { items: T[]; continue?: string; remaining?: number } | { error: string } {
  const limitRaw = query.get('limit')?.[0];
  const limit = limitRaw === undefined || limitRaw === '' ? 0 : Number(limitRaw);
  const token = query.get('continue')?.[0];
  let start = 0;
  if (token) {
    const offset = decodeToken(token, salt);
    if (offset === undefined) return { error: 'The provided continue parameter is too old or invalid.' };
    start = offset;
  }
  if (!Number.isInteger(limit) || limit <= 0) return { items: items.slice(start) };
  const page = items.slice(start, start + limit);
  if (start + limit >= items.length) return { items: page };
  return { items: page, continue: encodeToken(start + limit, salt), remaining: items.length - start - limit };
}

function listMeta(
  resourceVersion: string,
  page: { continue?: string; remaining?: number },
): Record<string, unknown> {
  const meta: Record<string, unknown> = { resourceVersion };
  if (page.continue) {
    meta.continue = page.continue;
    meta.remainingItemCount = page.remaining;
  }
  return meta;
}

function nodeJson(cluster: ClusterState, n: SandboxNode): Record<string, unknown> {
  const name = n.nodeName ?? n.id;
  const meta = cluster.nodeMetaOf(n);
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': n.os,
    'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': n.os,
    'beta.kubernetes.io/arch': 'amd64',
    'topology.kubernetes.io/region': cluster.region,
    'topology.kubernetes.io/zone': n.availabilityZone,
  };
  const taints: Array<Record<string, string>> = [];
  switch (n.kind) {
    case 'managed':
      if (n.nodegroup) labels['eks.amazonaws.com/nodegroup'] = n.nodegroup;
      labels['eks.amazonaws.com/capacityType'] = 'ON_DEMAND';
      labels['eks.amazonaws.com/nodegroup-image'] = 'ami-0abcdef1234567890';
      labels['node.kubernetes.io/instance-type'] = n.instanceType;
      break;
    case 'karpenter':
      if (n.nodePool) labels['karpenter.sh/nodepool'] = n.nodePool;
      if (n.nodeClass) labels['karpenter.k8s.aws/ec2nodeclass'] = n.nodeClass;
      labels['karpenter.sh/capacity-type'] = 'on-demand';
      labels['karpenter.sh/registered'] = 'true';
      labels['karpenter.sh/initialized'] = 'true';
      labels['node.kubernetes.io/instance-type'] = n.instanceType;
      break;
    case 'fargate':
      labels['eks.amazonaws.com/compute-type'] = 'fargate';
      if (n.fargateProfile) labels['eks.amazonaws.com/fargate-profile'] = n.fargateProfile;
      taints.push({ key: 'eks.amazonaws.com/compute-type', value: 'fargate', effect: 'NoSchedule' });
      break;
    case 'auto':
      labels['eks.amazonaws.com/compute-type'] = 'auto';
      labels['node.kubernetes.io/instance-type'] = n.instanceType;
      break;
    case 'hybrid':
      labels['eks.amazonaws.com/compute-type'] = 'hybrid';
      break;
    default:
      labels['node.kubernetes.io/instance-type'] = n.instanceType;
  }
  const isEc2 = n.kind !== 'fargate' && n.kind !== 'hybrid';
  // Fargate's providerID format is unconfirmed
  // (docs/eks-auth-semantics.md#karpenter-and-node-attribution); this shape is a plausible stand-in.
  const providerID = isEc2
    ? `aws:///${n.availabilityZone}/${n.id}`
    : `aws:///${n.availabilityZone}/${stableHex(name, 10)}/${name}`;
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const launched = n.launchTime.replace(/\.\d{3}Z$/, 'Z');
  const ready =
    n.ready === 'True'
      ? { reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now }
      : n.ready === 'Unknown'
        ? {
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
            lastHeartbeatTime: launched,
          }
        : {
            reason: 'KubeletNotReady',
            message: 'container runtime network not ready',
            lastHeartbeatTime: now,
          };
  return {
    kind: 'Node',
    apiVersion: 'v1',
    metadata: {
      name,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: launched,
      labels,
      annotations: {},
    },
    spec: { providerID, ...(taints.length > 0 ? { taints } : {}) },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: n.ready,
          lastHeartbeatTime: ready.lastHeartbeatTime,
          lastTransitionTime: n.readySince ?? launched,
          reason: ready.reason,
          message: ready.message,
        },
      ],
      addresses: [
        { type: 'InternalIP', address: n.privateIp },
        { type: 'InternalDNS', address: name },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: {
        kubeletVersion: `v${cluster.version}.0-eks-sandbox`,
        operatingSystem: n.os,
        architecture: 'amd64',
        osImage: n.os === 'windows' ? 'Windows Server 2022 Datacenter' : 'Amazon Linux 2023',
        containerRuntimeVersion: 'containerd://1.7.0',
        kernelVersion: '6.1.0',
        kubeProxyVersion: `v${cluster.version}.0-eks-sandbox`,
        machineID: meta.uid.replace(/-/g, ''),
        systemUUID: meta.uid,
        bootID: meta.uid,
      },
    },
  };
}
