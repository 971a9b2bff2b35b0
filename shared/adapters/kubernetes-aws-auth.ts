/**
 * The event path's KubeReader: `GET kube-system/aws-auth` over `node:https` — TLS verified against
 * the cluster's CA from DescribeCluster, the EKS bearer token — without `@kubernetes/client-node`,
 * which was 1.6 MB of the 2.9 MB onEksEvent bundle and most of its module init (bench/cold-start.ts).
 * Same request, RBAC, retry (429/5xx/resets with full-jitter backoff within the budget), timeout
 * and error semantics as kubernetes.ts for that one request; 404 → `found: false`.
 *
 * `nodes`, `ec2NodeClasses` and `serviceAccounts` are not read on the event path, like EC2 and IAM: they reject as
 * `unavailable` and the worker's follow-up captures them (onEksEvent uses compute from the stored
 * snapshot; a bootstrap capture has no compute anyway without EC2).
 */
import { Agent, type RequestOptions, request } from 'node:https';
import type { AwsAuthConfigMap } from '../core/model.ts';
import {
  CollectionError,
  type CollectionErrorCode,
  KubernetesApiError,
  TlsVerificationError,
} from '../errors.ts';
import type { AwsAuthReader, AwsAuthWriter, KubeClusterRef, Lookup, WriteOutcome } from '../ports.ts';
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

export const AWS_AUTH_NAMESPACE = 'kube-system';
export const AWS_AUTH_NAME = 'aws-auth';
const NAMESPACE = AWS_AUTH_NAMESPACE;
const NAME = AWS_AUTH_NAME;
const LABEL = `get configmap ${NAMESPACE}/${NAME}`;
const PATH = `/api/v1/namespaces/${NAMESPACE}/configmaps/${NAME}`;

/** One request on aws-auth, as its errors name it: `get configmap kube-system/aws-auth`, verb `get`. */
export interface AwsAuthRequest {
  label: string;
  verb: 'get' | 'list' | 'watch' | 'patch';
}
const GET: AwsAuthRequest = { label: LABEL, verb: 'get' };

export interface AwsAuthReaderOptions {
  tokens: EksTokenProvider;
  /** Timeout of one HTTP request, ms (default 10 000). */
  requestTimeoutMs?: number;
  /** Total budget including retries, ms (default 30 000). */
  budgetMs?: number;
  /** Attempts, first included (default 4). */
  maxAttempts?: number;
  /** Backoff base, ms (default 200). */
  baseDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Every request is aborted and no retry starts after this (epoch ms or a signal); none by default. */
  deadline?: Deadline;
}

/** The reader, and the same reader (connections, tokens) bound to another deadline. */
export interface DeadlineAwsAuthReader extends AwsAuthReader {
  withDeadline(deadline: Deadline | undefined): DeadlineAwsAuthReader;
}

function signalUntil(timeout: AbortSignal, deadline: AbortSignal | undefined): AbortSignal {
  return deadline === undefined ? timeout : AbortSignal.any([timeout, deadline]);
}

/** A non-2xx answer of the API server. */
export class HttpStatus extends Error {
  override readonly name = 'HttpStatus';
  constructor(
    readonly status: number,
    readonly retryAfter: string | undefined,
  ) {
    super(`HTTP ${status}`);
  }
}

export const isAbort = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  ((error as { name?: unknown }).name === 'AbortError' ||
    (error as { name?: unknown }).name === 'TimeoutError');

export function isRetryable(error: unknown): boolean {
  if (error instanceof HttpStatus) return error.status === 429 || error.status >= 500;
  if (error instanceof CollectionError) return false;
  if (isAbort(error)) return true;
  const code = networkCodeOf(error);
  return code !== undefined && RETRYABLE_NETWORK_CODES.has(code);
}

export function retryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof HttpStatus) || error.retryAfter === undefined) return undefined;
  const seconds = Number(error.retryAfter);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 10) * 1000 : undefined;
}

/** The messages and codes of kubernetes.ts `toKubernetesApiError`, for a request on aws-auth. */
export function toAwsAuthError(
  error: unknown,
  cluster: string,
  request: AwsAuthRequest = GET,
): KubernetesApiError {
  if (error instanceof KubernetesApiError) return error;
  const where = `${request.label} on cluster ${cluster}`;
  const base = {
    service: 'kubernetes' as const,
    operation: request.label,
    cluster,
    cause: error,
    verb: request.verb,
    resource: 'configmaps',
  };
  if (error instanceof HttpStatus) {
    const status = error.status;
    const [code, text]: [CollectionErrorCode, string] =
      status === 401
        ? [
            'unauthorized',
            `${where}: the API server rejected the monitor's token (401 Unauthorized) — its IAM role has no access entry or aws-auth mapping, or the token is invalid`,
          ]
        : status === 403
          ? [
              'forbidden',
              `${where}: forbidden (403) — the monitor's Kubernetes identity needs RBAC '${request.verb}' on 'configmaps' (resourceName ${NAME}) in namespace ${NAMESPACE}`,
            ]
          : status === 404
            ? ['not-found', `${where}: not found (404)`]
            : status === 429
              ? ['throttled', `${where}: throttled (429) after all retries`]
              : status >= 500
                ? ['unavailable', `${where}: server error (HTTP ${status}) after all retries`]
                : ['invalid-response', `${where}: unexpected HTTP ${status}`];
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
  if (error instanceof SyntaxError) {
    return new KubernetesApiError(`${where}: the answer is not JSON`, { ...base, code: 'invalid-response' });
  }
  const detail = networkCode ?? (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  return new KubernetesApiError(`${where}: could not reach the API server (${detail})`, {
    ...base,
    code: networkCode === 'ETIMEDOUT' ? 'timeout' : 'unavailable',
  });
}

/**
 * A GET of `path` (with its query) on the cluster's API server: TLS verified against the cluster
 * CA from DescribeCluster (never skipped), the EKS bearer token.
 */
export function kubeGetOptions(
  cluster: KubeClusterRef,
  path: string,
  token: string,
  agent: Agent,
): RequestOptions {
  const url = new URL(path, cluster.endpoint);
  return {
    protocol: 'https:',
    hostname: url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    agent,
    ca: Buffer.from(cluster.certificateAuthorityData, 'base64').toString('utf8'),
    rejectUnauthorized: true,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  };
}

/** The reference gives no endpoint or CA (a cluster being created): nothing can be read. */
export function noEndpointError(cluster: KubeClusterRef, request: AwsAuthRequest = GET): KubernetesApiError {
  return new KubernetesApiError(
    `${request.label} on cluster ${cluster.clusterName}: DescribeCluster gave no endpoint or CA`,
    {
      code: 'unavailable',
      service: 'kubernetes',
      operation: request.label,
      cluster: cluster.clusterName,
      verb: request.verb,
      resource: 'configmaps',
    },
  );
}

export function createAwsAuthReader(options: AwsAuthReaderOptions): DeadlineAwsAuthReader {
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  // Keep-alive: a warm invocation reuses the TLS connection (the pool is keyed by host and CA).
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  async function get(cluster: KubeClusterRef, deadline: Deadline | undefined): Promise<unknown> {
    const token = await options.tokens.token(cluster.clusterName, cluster.region);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          ...kubeGetOptions(cluster, PATH, token, agent),
          // Cut at the deadline too: a request left waiting would resume in the next invocation.
          signal: signalUntil(AbortSignal.timeout(requestTimeoutMs), deadlineSignal(deadline)),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) {
              const retryAfter = res.headers['retry-after'];
              reject(new HttpStatus(status, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter));
              return;
            }
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  function bound(deadline: Deadline | undefined): DeadlineAwsAuthReader {
    return {
      async awsAuth(cluster): Promise<Lookup<AwsAuthConfigMap>> {
        if (cluster.certificateAuthorityData === '' || cluster.endpoint === '')
          throw noEndpointError(cluster);
        const budgetMs = options.budgetMs ?? 30_000;
        try {
          const configMap = await retryWithBackoff(() => get(cluster, deadline), {
            maxAttempts: options.maxAttempts ?? 4,
            budgetMs:
              typeof deadline === 'number'
                ? Math.max(0, Math.min(budgetMs, deadline - Date.now()))
                : budgetMs,
            baseDelayMs: options.baseDelayMs ?? 200,
            maxDelayMs: 5_000,
            isRetryable: (error) => !deadlinePassed(deadline) && isRetryable(error),
            retryAfterMs,
            ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
          });
          return { found: true, value: toAwsAuth(configMap as Parameters<typeof toAwsAuth>[0]) };
        } catch (error) {
          if (deadlinePassed(deadline) && isAbort(error)) {
            throw new KubernetesApiError(`${LABEL} on cluster ${cluster.clusterName}: deadline reached`, {
              code: 'timeout',
              service: 'kubernetes',
              operation: LABEL,
              cluster: cluster.clusterName,
              cause: error,
              verb: 'get',
              resource: 'configmaps',
            });
          }
          const e = toAwsAuthError(error, cluster.clusterName);
          if (e.httpStatus === 404)
            return { found: false, reason: `no ConfigMap ${NAMESPACE}/${NAME} (404)` };
          throw e;
        }
      },
      withDeadline: bound,
    };
  }

  return bound(options.deadline);
}

/** The field manager of the monitor's aws-auth writes (managedFields shows who restored an entry). */
export const FIELD_MANAGER = 'eks-auth-sentinel';
const PATCH: AwsAuthRequest = { label: `patch configmap ${NAMESPACE}/${NAME}`, verb: 'patch' };

/**
 * aws-auth's mapRoles by a merge patch (`application/merge-patch+json`) that carries the
 * resourceVersion the change was planned on: the API server treats it as a precondition (409 when
 * the object changed since), and a merge patch touches no field it does not name — labels,
 * annotations and the other data keys stay whatever they are now. Retried like the read on 429,
 * 5xx and resets: a retry after an unseen success meets its own newer resourceVersion and answers
 * `conflict`, which the caller resolves by reading again.
 */
export function createAwsAuthWriter(options: AwsAuthReaderOptions): AwsAuthWriter {
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });

  async function patch(cluster: KubeClusterRef, json: unknown): Promise<void> {
    const token = await options.tokens.token(cluster.clusterName, cluster.region);
    const payload = Buffer.from(JSON.stringify(json), 'utf8');
    const base = kubeGetOptions(cluster, `${PATH}?fieldManager=${FIELD_MANAGER}`, token, agent);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          ...base,
          method: 'PATCH',
          headers: {
            ...base.headers,
            'content-type': 'application/merge-patch+json',
            'content-length': String(payload.length),
          },
          signal: AbortSignal.timeout(requestTimeoutMs),
        },
        (res) => {
          res.resume();
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) {
              const retryAfter = res.headers['retry-after'];
              reject(new HttpStatus(status, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter));
              return;
            }
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  return {
    async patchMapRoles(cluster, change): Promise<WriteOutcome> {
      if (cluster.certificateAuthorityData === '' || cluster.endpoint === '')
        throw noEndpointError(cluster, PATCH);
      try {
        await retryWithBackoff(
          () =>
            patch(cluster, {
              metadata: { resourceVersion: change.resourceVersion },
              data: { mapRoles: change.mapRoles },
            }),
          {
            maxAttempts: options.maxAttempts ?? 4,
            budgetMs: options.budgetMs ?? 30_000,
            baseDelayMs: options.baseDelayMs ?? 200,
            maxDelayMs: 5_000,
            isRetryable,
            retryAfterMs,
            ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
          },
        );
        return { status: 'done' };
      } catch (error) {
        if (error instanceof HttpStatus && error.status === 409)
          return {
            status: 'conflict',
            detail: `aws-auth changed after resourceVersion ${change.resourceVersion} (409 Conflict): nothing was written`,
          };
        if (error instanceof HttpStatus && error.status === 403)
          return {
            status: 'forbidden',
            detail: `patch of configmaps/aws-auth in kube-system was denied (403): the monitor's Kubernetes identity needs RBAC 'patch' on 'configmaps' (resourceNames: aws-auth) in namespace kube-system — apply infra/kubernetes/remediation-role.yaml and give the monitor's access entry the group eks-auth-sentinel:remediators`,
          };
        if (error instanceof HttpStatus && error.status === 404)
          return { status: 'conflict', detail: 'aws-auth no longer exists (404): nothing was written' };
        throw toAwsAuthError(error, cluster.clusterName, PATCH);
      }
    },
  };
}
