/**
 * KubeReader over `@kubernetes/client-node` 1.x. The KubeConfig is built in memory from
 * DescribeCluster (endpoint + CA) and the EKS bearer token; TLS is always verified against the
 * cluster's CA (`skipTLSVerify: false`, no option to turn it off). `skipTLSVerify: false` alone
 * is not enough: client-node 1.4 then leaves `rejectUnauthorized` unset on its agent, so
 * `NODE_TLS_REJECT_UNAUTHORIZED=0` would accept any certificate and receive the token. Every
 * request therefore gets our own https Agent (cluster CA, `rejectUnauthorized: true`), set by
 * the request middleware after the library's own. Kubernetes shapes stop here.
 *
 * Requests and the RBAC they need (see infra/kubernetes/monitor-clusterrole.yaml):
 *   get  configmaps/aws-auth in kube-system
 *   list nodes (paginated, limit 500)
 *   list ec2nodeclasses.karpenter.k8s.aws (v1)
 *   list serviceaccounts (all namespaces, paginated, limit 500; only metadata is kept — never Secrets)
 * 429 and 5xx (and connection resets) are retried with full-jitter backoff within a time budget;
 * 401/403/404 and TLS failures are not.
 */

import { Agent } from 'node:https';
import {
  ApiException,
  type ConfigurationOptions,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  Observable,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
  type V1ListMeta,
  type V1Node,
  type V1ServiceAccount,
} from '@kubernetes/client-node';
import type { AwsAuthConfigMap, ServiceAccount } from '../core/model.ts';
import {
  CollectionError,
  type CollectionErrorCode,
  KubernetesApiError,
  TlsVerificationError,
} from '../errors.ts';
import type {
  AutoModeNodeClassSpec,
  Ec2NodeClassSpec,
  KubeClusterRef,
  KubeNode,
  KubeReader,
  Lookup,
} from '../ports.ts';
import { type Deadline, deadlinePassed, deadlineSignal } from './aws-clients.ts';
import type { EksTokenProvider } from './kube-token.ts';
import {
  connectFailureOf,
  networkCodeOf,
  RETRYABLE_NETWORK_CODES,
  TLS_ERROR_CODES,
  toAwsAuth,
} from './kubernetes-shapes.ts';
import { retryWithBackoff } from './retry.ts';
import { dropUndefined } from './util.ts';

export const NODE_PAGE_SIZE = 500;
export const SERVICE_ACCOUNT_PAGE_SIZE = 500;
/** The IRSA annotation: the role the pod identity webhook injects for the service account. */
export const IRSA_ROLE_ANNOTATION = 'eks.amazonaws.com/role-arn';
export const AWS_AUTH_NAMESPACE = 'kube-system';
export const AWS_AUTH_NAME = 'aws-auth';
export const EC2_NODE_CLASS = {
  group: 'karpenter.k8s.aws',
  version: 'v1',
  plural: 'ec2nodeclasses',
} as const;
/** EKS Auto Mode's NodeClass (`spec.role`: the node role's name). */
export const AUTO_MODE_NODE_CLASS = {
  group: 'eks.amazonaws.com',
  version: 'v1',
  plural: 'nodeclasses',
} as const;

export interface KubeReaderOptions {
  tokens: EksTokenProvider;
  /** Timeout of one HTTP request, ms (default 10 000). */
  requestTimeoutMs?: number;
  /** Total budget of one logical read including retries, ms (default 30 000). */
  budgetMs?: number;
  /** Attempts per request, first included (default 4). */
  maxAttempts?: number;
  /** Backoff base, ms (default 200). */
  baseDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Retries stop here (epoch ms or a signal); the budget of a read never runs past it. */
  deadline?: Deadline;
}

/** The RBAC permission a request needs, for messages and the permission test. */
interface KubeRequest {
  verb: 'get' | 'list';
  resource: string;
  namespace?: string;
  name?: string;
  /** Label used in messages and `operation`, e.g. `list nodes`. */
  label: string;
}

function isAbort(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { name?: unknown }).name === 'AbortError' || (error as { type?: unknown }).type === 'aborted')
  );
}

/** Converts what the Kubernetes client threw into a `KubernetesApiError` naming cluster, request and RBAC. */
export function toKubernetesApiError(
  error: unknown,
  cluster: string,
  request: KubeRequest,
): KubernetesApiError {
  if (error instanceof KubernetesApiError) return error;
  const where = `${request.label} on cluster ${cluster}`;
  const rbac = `RBAC '${request.verb}' on '${request.resource}'${request.name === undefined ? '' : ` (resourceName ${request.name})`}${
    request.namespace === undefined ? ' (cluster-scoped)' : ` in namespace ${request.namespace}`
  }`;
  const base = {
    service: 'kubernetes' as const,
    operation: request.label,
    cluster,
    cause: error,
    verb: request.verb,
    resource: request.resource,
  };
  if (error instanceof ApiException) {
    const status = error.code;
    let code: CollectionErrorCode;
    let text: string;
    if (status === 401) {
      code = 'unauthorized';
      text = `${where}: the API server rejected the monitor's token (401 Unauthorized) — its IAM role has no access entry or aws-auth mapping, or the token is invalid`;
    } else if (status === 403) {
      code = 'forbidden';
      text = `${where}: forbidden (403) — the monitor's Kubernetes identity needs ${rbac}`;
    } else if (status === 404) {
      code = 'not-found';
      text = `${where}: not found (404)`;
    } else if (status === 429) {
      code = 'throttled';
      text = `${where}: throttled (429) after all retries`;
    } else if (status >= 500) {
      code = 'unavailable';
      text = `${where}: server error (HTTP ${status}) after all retries`;
    } else {
      code = 'invalid-response';
      text = `${where}: unexpected HTTP ${status}`;
    }
    return new KubernetesApiError(text, { ...base, code, httpStatus: status });
  }
  const networkCode = networkCodeOf(error);
  if (networkCode !== undefined && TLS_ERROR_CODES.has(networkCode)) {
    return new TlsVerificationError(
      `${where}: the API server's certificate does not verify against the cluster CA from DescribeCluster (${networkCode}); connection refused`,
      { ...base, code: 'unavailable' },
    );
  }
  const unreachable = connectFailureOf(error);
  if (unreachable !== undefined) {
    return new KubernetesApiError(`${where}: ${unreachable.message}`, { ...base, code: unreachable.code });
  }
  const detail = networkCode ?? (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  return new KubernetesApiError(`${where}: could not reach the API server (${detail})`, {
    ...base,
    code: networkCode === 'ETIMEDOUT' ? 'timeout' : 'unavailable',
  });
}

function isRetryable(error: unknown): boolean {
  if (error instanceof ApiException) return error.code === 429 || error.code >= 500;
  if (error instanceof CollectionError) return false;
  if (isAbort(error)) return true;
  const networkCode = networkCodeOf(error);
  return networkCode !== undefined && RETRYABLE_NETWORK_CODES.has(networkCode);
}

function retryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof ApiException)) return undefined;
  const headers = (error.headers ?? {}) as Record<string, string>;
  const value = headers['retry-after'] ?? headers['Retry-After'];
  const seconds = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 10) * 1000 : undefined;
}

// ---------------------------------------------------------------------------------------------
// Pure conversions (exported for unit tests; the aws-auth ones live in kubernetes-shapes.ts,
// which the event path's reader shares without this module's client)

export { dataKeysOfFieldsV1, toAwsAuth, toManagedField } from './kubernetes-shapes.ts';

/** `aws:///<az>/<instance-id>` → instance ID; undefined for other formats (Fargate, hybrid). */
export function instanceIdFromProviderId(providerId: string | undefined): string | undefined {
  if (providerId === undefined) return undefined;
  const match = /^aws:\/\/\/[^/]*\/(i-[0-9a-f]{8}(?:[0-9a-f]{9})?)$/.exec(providerId.trim());
  return match?.[1];
}

function readyOf(node: V1Node): KubeNode['ready'] {
  const status = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  return status === 'True' || status === 'False' || status === 'Unknown' ? status : undefined;
}

/** The Ready condition's lastTransitionTime (a Date from the client, or a string) as ISO text. */
function readySinceOf(node: V1Node): string | undefined {
  const t: unknown = node.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime;
  if (t instanceof Date) return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
  return typeof t === 'string' && t !== '' ? t : undefined;
}

export function toKubeNode(node: V1Node): KubeNode {
  const providerId = node.spec?.providerID;
  return dropUndefined({
    name: node.metadata?.name ?? '',
    providerId,
    instanceId: instanceIdFromProviderId(providerId),
    labels: { ...(node.metadata?.labels ?? {}) },
    ready: readyOf(node),
    readySince: readySinceOf(node),
  });
}

export function toEc2NodeClass(item: unknown): Ec2NodeClassSpec {
  const o = (typeof item === 'object' && item !== null ? item : {}) as {
    metadata?: { name?: unknown };
    spec?: { role?: unknown; instanceProfile?: unknown };
    status?: { instanceProfile?: unknown };
  };
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return dropUndefined({
    name: str(o.metadata?.name) ?? '',
    role: str(o.spec?.role),
    // spec.instanceProfile when set; else the profile Karpenter created for spec.role.
    instanceProfile:
      str(o.spec?.instanceProfile) ??
      (str(o.spec?.role) === undefined ? str(o.status?.instanceProfile) : undefined),
  });
}

export function toAutoModeNodeClass(item: unknown): AutoModeNodeClassSpec {
  const o = (typeof item === 'object' && item !== null ? item : {}) as {
    metadata?: { name?: unknown };
    spec?: { role?: unknown };
  };
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return dropUndefined({ name: str(o.metadata?.name) ?? '', role: str(o.spec?.role) });
}

// ---------------------------------------------------------------------------------------------

export function createKubeReader(options: KubeReaderOptions): KubeReader {
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const budgetMs = options.budgetMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 4;
  const baseDelayMs = options.baseDelayMs ?? 200;

  async function kubeConfig(cluster: KubeClusterRef): Promise<KubeConfig> {
    const token = await options.tokens.token(cluster.clusterName, cluster.region);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: cluster.clusterName,
          server: cluster.endpoint,
          caData: cluster.certificateAuthorityData,
          skipTLSVerify: false,
        },
      ],
      users: [{ name: 'eks-auth-sentinel', token }],
      contexts: [{ name: 'eks-auth-sentinel', cluster: cluster.clusterName, user: 'eks-auth-sentinel' }],
      currentContext: 'eks-auth-sentinel',
    });
    return kc;
  }

  /** One verifying agent per API server and CA (keep-alive across the reads of a capture). */
  const agents = new Map<string, Agent>();
  const agentOf = (cluster: KubeClusterRef): Agent => {
    const key = `${cluster.endpoint}\n${cluster.certificateAuthorityData}`;
    let agent = agents.get(key);
    if (agent === undefined) {
      agent = new Agent({
        ca: Buffer.from(cluster.certificateAuthorityData, 'base64'),
        rejectUnauthorized: true,
        keepAlive: true,
      });
      agents.set(key, agent);
    }
    return agent;
  };

  /**
   * Per-request timeout (the client has none of its own), cut short by the deadline so that no
   * request is still waiting on a reply when the invocation's time is up, and the verifying agent.
   * Object-API options take observable middleware; `pre` runs after the library set its own agent.
   */
  const requestOptions = (cluster: KubeClusterRef): ConfigurationOptions<ObservableMiddleware> => ({
    middleware: [
      {
        pre: (context: RequestContext) => {
          context.setAgent(agentOf(cluster));
          const timeout = AbortSignal.timeout(requestTimeoutMs);
          const atDeadline = deadlineSignal(options.deadline);
          context.setSignal(atDeadline === undefined ? timeout : AbortSignal.any([timeout, atDeadline]));
          return new Observable(Promise.resolve(context));
        },
        post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
      },
    ],
    middlewareMergeStrategy: 'append',
  });

  async function run<R>(
    cluster: KubeClusterRef,
    request: KubeRequest,
    fn: (kc: KubeConfig) => Promise<R>,
  ): Promise<R> {
    if (cluster.certificateAuthorityData === '' || cluster.endpoint === '') {
      throw new KubernetesApiError(
        `${request.label} on cluster ${cluster.clusterName}: DescribeCluster gave no endpoint or CA`,
        {
          code: 'unavailable',
          service: 'kubernetes',
          operation: request.label,
          cluster: cluster.clusterName,
          verb: request.verb,
          resource: request.resource,
        },
      );
    }
    try {
      return await retryWithBackoff(
        async () => {
          // A fresh KubeConfig per attempt picks up a refreshed token; the token itself is cached.
          const kc = await kubeConfig(cluster);
          return await fn(kc);
        },
        {
          maxAttempts,
          budgetMs:
            typeof options.deadline === 'number'
              ? Math.max(0, Math.min(budgetMs, options.deadline - Date.now()))
              : budgetMs,
          baseDelayMs,
          maxDelayMs: 5_000,
          isRetryable: (error) => !deadlinePassed(options.deadline) && isRetryable(error),
          retryAfterMs,
          ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
        },
      );
    } catch (error) {
      if (error instanceof CollectionError) throw error;
      if (deadlinePassed(options.deadline) && isAbort(error)) {
        throw new KubernetesApiError(`${request.label} on cluster ${cluster.clusterName}: deadline reached`, {
          code: 'timeout',
          service: 'kubernetes',
          operation: request.label,
          cluster: cluster.clusterName,
          cause: error,
          verb: request.verb,
          resource: request.resource,
        });
      }
      throw toKubernetesApiError(error, cluster.clusterName, request);
    }
  }

  /**
   * A paginated list to its end (`limit` + `continue`); a repeated continue token is an invalid
   * reply; 410 Gone (the token expired with etcd compaction) restarts the list once, from the top.
   */
  async function listPaged<I, T>(
    cluster: KubeClusterRef,
    request: KubeRequest,
    page: (kc: KubeConfig, token: string | undefined) => Promise<{ items: I[]; metadata?: V1ListMeta }>,
    convert: (item: I) => T,
  ): Promise<T[]> {
    const listAll = async (): Promise<T[]> => {
      const out: T[] = [];
      let continueToken: string | undefined;
      const seen = new Set<string>();
      do {
        const token = continueToken;
        const reply = await run(cluster, request, (kc) => page(kc, token));
        out.push(...reply.items.map(convert));
        continueToken = reply.metadata?._continue === '' ? undefined : reply.metadata?._continue;
        if (continueToken !== undefined && seen.has(continueToken)) {
          throw new KubernetesApiError(
            `${request.label} on cluster ${cluster.clusterName}: repeated continue token`,
            {
              code: 'invalid-response',
              service: 'kubernetes',
              operation: request.label,
              cluster: cluster.clusterName,
              verb: request.verb,
              resource: request.resource,
            },
          );
        }
        if (continueToken !== undefined) seen.add(continueToken);
      } while (continueToken !== undefined);
      return out;
    };
    try {
      return await listAll();
    } catch (error) {
      if (error instanceof KubernetesApiError && error.httpStatus === 410) return listAll();
      throw error;
    }
  }

  return {
    async awsAuth(cluster): Promise<Lookup<AwsAuthConfigMap>> {
      const request: KubeRequest = {
        verb: 'get',
        resource: 'configmaps',
        namespace: AWS_AUTH_NAMESPACE,
        name: AWS_AUTH_NAME,
        label: `get configmap ${AWS_AUTH_NAMESPACE}/${AWS_AUTH_NAME}`,
      };
      try {
        const configMap = await run(cluster, request, (kc) =>
          kc
            .makeApiClient(CoreV1Api)
            .readNamespacedConfigMap(
              { name: AWS_AUTH_NAME, namespace: AWS_AUTH_NAMESPACE },
              requestOptions(cluster),
            ),
        );
        return { found: true, value: toAwsAuth(configMap) };
      } catch (error) {
        if (error instanceof KubernetesApiError && error.httpStatus === 404) {
          return { found: false, reason: `no ConfigMap ${AWS_AUTH_NAMESPACE}/${AWS_AUTH_NAME} (404)` };
        }
        throw error;
      }
    },

    nodes(cluster) {
      return listPaged(
        cluster,
        { verb: 'list', resource: 'nodes', label: 'list nodes' },
        (kc, token) =>
          kc
            .makeApiClient(CoreV1Api)
            .listNode(dropUndefined({ limit: NODE_PAGE_SIZE, _continue: token }), requestOptions(cluster)),
        toKubeNode,
      );
    },

    serviceAccounts(cluster) {
      return listPaged(
        cluster,
        { verb: 'list', resource: 'serviceaccounts', label: 'list serviceaccounts' },
        (kc, token) =>
          kc
            .makeApiClient(CoreV1Api)
            .listServiceAccountForAllNamespaces(
              dropUndefined({ limit: SERVICE_ACCOUNT_PAGE_SIZE, _continue: token }),
              requestOptions(cluster),
            ),
        toServiceAccount,
      );
    },

    async ec2NodeClasses(cluster): Promise<Lookup<Ec2NodeClassSpec[]>> {
      return listCustom(cluster, EC2_NODE_CLASS, toEc2NodeClass, 'Karpenter is not installed');
    },

    async autoModeNodeClasses(cluster): Promise<Lookup<AutoModeNodeClassSpec[]>> {
      return listCustom(cluster, AUTO_MODE_NODE_CLASS, toAutoModeNodeClass, 'EKS Auto Mode is not enabled');
    },
  };

  async function listCustom<T>(
    cluster: KubeClusterRef,
    kind: { group: string; version: string; plural: string },
    convert: (item: unknown) => T,
    notInstalled: string,
  ): Promise<Lookup<T[]>> {
    const request: KubeRequest = {
      verb: 'list',
      resource: `${kind.plural}.${kind.group}`,
      label: `list ${kind.plural}.${kind.group}/${kind.version}`,
    };
    try {
      const list = (await run(cluster, request, (kc) =>
        kc.makeApiClient(CustomObjectsApi).listClusterCustomObject({ ...kind }, requestOptions(cluster)),
      )) as { items?: unknown[] };
      if (!Array.isArray(list?.items)) {
        throw new KubernetesApiError(
          `${request.label} on cluster ${cluster.clusterName}: the reply has no items`,
          {
            code: 'invalid-response',
            service: 'kubernetes',
            operation: request.label,
            cluster: cluster.clusterName,
            verb: request.verb,
            resource: request.resource,
          },
        );
      }
      return { found: true, value: list.items.map(convert) };
    } catch (error) {
      if (error instanceof KubernetesApiError && error.httpStatus === 404) {
        return {
          found: false,
          reason: `${notInstalled} (no ${kind.plural}.${kind.group}/${kind.version})`,
        };
      }
      throw error;
    }
  }
}

/** A service account, metadata only: the IRSA annotation verbatim (attacker-written), nothing else. */
function toServiceAccount(sa: V1ServiceAccount): ServiceAccount {
  const annotation = sa.metadata?.annotations?.[IRSA_ROLE_ANNOTATION];
  return dropUndefined({
    namespace: sa.metadata?.namespace ?? '',
    name: sa.metadata?.name ?? '',
    roleArnAnnotation: typeof annotation === 'string' ? annotation : undefined,
  });
}
