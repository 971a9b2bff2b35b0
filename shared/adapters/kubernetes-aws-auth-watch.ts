/**
 * A Kubernetes watch on `kube-system/aws-auth` over `node:https`, for the continuous-mode function
 * and the CLI's `watch` (docs/design.md#aws-auth-changes). Like `kubernetes-aws-auth.ts` (whose
 * request options, token provider and errors it shares) it does without
 * `@kubernetes/client-node`, so that it fits the small function bundles.
 *
 *   GET /api/v1/namespaces/kube-system/configmaps?watch=1&fieldSelector=metadata.name=aws-auth
 *       &allowWatchBookmarks=true&timeoutSeconds=T&resourceVersion=RV
 *
 * Every ADDED/MODIFIED/DELETED is yielded with the object's resourceVersion; a BOOKMARK only
 * moves the resume point. The watch is opened again, from the last resourceVersion seen:
 *   - when the server ends the stream (its `timeoutSeconds`, a restart, a load balancer);
 *   - after `tokenRefreshMs` (14 minutes; EKS tokens live 15): the connection is closed and the
 *     next one asks the provider for a token — by then the one it was opened with has left the
 *     provider's cache (13 minutes), so the new connection carries a fresh token. The API server
 *     checks a token when a request starts, so a watch never outlives its token by more than one
 *     connection, and no reconnect is refused for an expired one;
 *   - after `410 Gone` (HTTP 410, or an ERROR event whose Status has code 410: the resume point
 *     was compacted away): a re-list (GET with the same field selector) gives the current object
 *     and the list's resourceVersion to watch from, and the object is reported as a change
 *     (`via: 'relist'`) when its resourceVersion is not the last one reported — a write made
 *     during the gap is never lost, only its intermediate states;
 *   - after a network error or a 429/5xx, with full-jitter backoff; `maxConsecutiveFailures` in a
 *     row (no stream opened in between) end the watch with the error. 401/403 end it at once.
 * The abort signal stops everything: the open request is destroyed, a backoff sleep is cut, and
 * no request is left open or sent after the generator returns. A consumer that stops iterating
 * (`break`) closes the request the same way.
 */

import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { AwsAuthConfigMap } from '../core/model.ts';
import type {
  AwsAuthWatchEvent,
  AwsAuthWatcher,
  AwsAuthWatchOptions,
  AwsAuthWatchRestart,
  KubeClusterRef,
  Lookup,
} from '../ports.ts';
import type { EksTokenProvider } from './kube-token.ts';
import {
  AWS_AUTH_NAME,
  AWS_AUTH_NAMESPACE,
  type AwsAuthRequest,
  HttpStatus,
  isRetryable,
  kubeGetOptions,
  noEndpointError,
  retryAfterMs,
  toAwsAuthError,
} from './kubernetes-aws-auth.ts';
import { toAwsAuth } from './kubernetes-shapes.ts';
import { retryWithBackoff } from './retry.ts';

const COLLECTION = `/api/v1/namespaces/${AWS_AUTH_NAMESPACE}/configmaps`;
const SELECTOR = `fieldSelector=${encodeURIComponent(`metadata.name=${AWS_AUTH_NAME}`)}`;
const WATCH: AwsAuthRequest = {
  label: `watch configmap ${AWS_AUTH_NAMESPACE}/${AWS_AUTH_NAME}`,
  verb: 'watch',
};
const LIST: AwsAuthRequest = { label: `list configmap ${AWS_AUTH_NAMESPACE}/${AWS_AUTH_NAME}`, verb: 'list' };

/** Below the 15 minutes an EKS token is accepted, with a minute for clock skew. */
export const TOKEN_REFRESH_MS = 14 * 60_000;
/** The server ends each watch after this long (a real API server picks 30–60 min by itself). */
export const WATCH_TIMEOUT_SECONDS = 300;

export interface AwsAuthWatcherOptions {
  tokens: EksTokenProvider;
  /** `timeoutSeconds` asked of the server per watch request (default 300). */
  timeoutSeconds?: number;
  /** A connection is closed and opened again with a token asked afresh after this long (default 14 min). */
  tokenRefreshMs?: number;
  /** Until the response headers of one request (default 10 000 ms). */
  requestTimeoutMs?: number;
  /** Failures in a row before the watch ends with the error (default 5). */
  maxConsecutiveFailures?: number;
  /** Backoff base and cap (default 200 ms, 5 000 ms). */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

interface RawEvent {
  type?: unknown;
  object?: {
    kind?: unknown;
    code?: unknown;
    message?: unknown;
    metadata?: { resourceVersion?: unknown };
  } & Record<string, unknown>;
}

/** The watch ended with `410 Gone`: re-list. */
class Gone extends Error {
  override readonly name = 'Gone';
}

function rvOf(object: RawEvent['object']): string | undefined {
  const rv = object?.metadata?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

function asAwsAuth(object: unknown): AwsAuthWatchEvent['awsAuth'] {
  try {
    const value: Lookup<AwsAuthConfigMap> = {
      found: true,
      value: toAwsAuth(object as Parameters<typeof toAwsAuth>[0]),
    };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}

const deleted = (how: string): AwsAuthWatchEvent['awsAuth'] => ({
  ok: true,
  value: { found: false, reason: `no ConfigMap ${AWS_AUTH_NAMESPACE}/${AWS_AUTH_NAME} (${how})` },
});

/**
 * One GET: its response headers (or failure), and when it is closed. `signal` destroys it; `end`
 * destroys it unless its response was read to the end, and resolves once it is closed, so that
 * no request outlives its caller.
 */
function open(
  options: ReturnType<typeof kubeGetOptions>,
  signal: AbortSignal,
  headersWithinMs: number,
): { response: Promise<IncomingMessage>; end(): Promise<void> } {
  const req = request({ ...options, signal });
  const closed = new Promise<void>((resolve) => req.once('close', () => resolve()));
  let complete = false;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    const timer = setTimeout(() => req.destroy(new HttpTimeout()), headersWithinMs);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.once('end', () => {
        complete = true;
      });
      resolve(res);
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  response.catch(() => undefined);
  req.end();
  return {
    response,
    async end() {
      if (!complete) req.destroy();
      await closed;
    },
  };
}

class HttpTimeout extends Error {
  override readonly name = 'TimeoutError';
  constructor() {
    super('no response headers in time');
  }
}

async function readAll(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res) text += chunk as string;
  return text;
}

/** The stream's complete lines (one JSON event each), as they arrive. */
async function* lines(res: IncomingMessage): AsyncGenerator<string> {
  res.setEncoding('utf8');
  let buffer = '';
  for await (const chunk of res) {
    buffer += chunk as string;
    let at = buffer.indexOf('\n');
    while (at >= 0) {
      const line = buffer.slice(0, at).trim();
      buffer = buffer.slice(at + 1);
      if (line !== '') yield line;
      at = buffer.indexOf('\n');
    }
  }
  // A line the server did not finish (the stream cut mid-event) is not an event: the next watch
  // resumes before it.
}

export function createAwsAuthWatcher(options: AwsAuthWatcherOptions): AwsAuthWatcher {
  const timeoutSeconds = options.timeoutSeconds ?? WATCH_TIMEOUT_SECONDS;
  const tokenRefreshMs = options.tokenRefreshMs ?? TOKEN_REFRESH_MS;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const maxFailures = options.maxConsecutiveFailures ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 200;
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  // One connection per watch at a time; the agent keeps the TLS session for the reconnects.
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });

  return {
    async *watch(cluster: KubeClusterRef, watchOptions: AwsAuthWatchOptions) {
      const { signal } = watchOptions;
      if (cluster.endpoint === '' || cluster.certificateAuthorityData === '')
        throw noEndpointError(cluster, WATCH);
      const token = () => options.tokens.token(cluster.clusterName, cluster.region);

      /** The current aws-auth and the resourceVersion to watch from. */
      const list = async () => {
        const body = await retryWithBackoff(
          async () => {
            const get = open(
              kubeGetOptions(cluster, `${COLLECTION}?${SELECTOR}`, await token(), agent),
              signal,
              requestTimeoutMs,
            );
            try {
              const res = await get.response;
              const text = await readAll(res);
              const status = res.statusCode ?? 0;
              if (status < 200 || status > 299) {
                const retryAfter = res.headers['retry-after'];
                throw new HttpStatus(status, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
              }
              return JSON.parse(text) as { metadata?: { resourceVersion?: unknown }; items?: unknown[] };
            } finally {
              await get.end();
            }
          },
          {
            maxAttempts: maxFailures,
            budgetMs: 30_000,
            baseDelayMs,
            maxDelayMs,
            isRetryable: (e) => !signal.aborted && isRetryable(e),
            retryAfterMs,
            sleep: (ms) => sleepFor(ms, undefined, { signal }),
          },
        ).catch((error: unknown) => {
          if (signal.aborted) throw error;
          throw toAwsAuthError(error, cluster.clusterName, LIST);
        });
        const listRv = body.metadata?.resourceVersion;
        const item = (body.items ?? [])[0] as RawEvent['object'] | undefined;
        return { resourceVersion: typeof listRv === 'string' ? listRv : undefined, item };
      };

      let since = watchOptions.from;
      let present = watchOptions.present ?? true;
      /** The resourceVersion of aws-auth as last reported (or given), when it exists. */
      let reported = present ? since : undefined;
      let failures = 0;

      try {
        if (since === undefined) {
          const now = await list();
          since = now.resourceVersion;
          present = now.item !== undefined;
          reported = rvOf(now.item);
        }
        while (!signal.aborted) {
          let reason: AwsAuthWatchRestart = 'closed';
          let failure: string | undefined;
          const connection = new AbortController();
          const onAbort = () => connection.abort();
          signal.addEventListener('abort', onAbort, { once: true });
          let refreshDue = false;
          const openedAt = Date.now();
          let current: ReturnType<typeof open> | undefined;
          const refresh = setTimeout(() => {
            refreshDue = true;
            connection.abort();
          }, tokenRefreshMs);
          try {
            const query = [
              'watch=1',
              SELECTOR,
              'allowWatchBookmarks=true',
              `timeoutSeconds=${timeoutSeconds}`,
              ...(since === undefined ? [] : [`resourceVersion=${encodeURIComponent(since)}`]),
            ].join('&');
            current = open(
              kubeGetOptions(cluster, `${COLLECTION}?${query}`, await token(), agent),
              connection.signal,
              requestTimeoutMs,
            );
            const res = await current.response;
            const status = res.statusCode ?? 0;
            if (status === 410) {
              res.resume();
              throw new Gone();
            }
            if (status < 200 || status > 299) {
              res.resume();
              const retryAfter = res.headers['retry-after'];
              throw new HttpStatus(status, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
            }
            failures = 0;
            for await (const line of lines(res)) {
              const event = JSON.parse(line) as RawEvent;
              const rv = rvOf(event.object);
              if (event.type === 'ERROR') {
                if (event.object?.code === 410) throw new Gone();
                throw new HttpStatus(
                  typeof event.object?.code === 'number' ? event.object.code : 500,
                  undefined,
                );
              }
              if (rv !== undefined) since = rv;
              if (event.type === 'BOOKMARK' || rv === undefined) continue;
              if (event.type === 'ADDED' || event.type === 'MODIFIED') {
                present = true;
                reported = rv;
                yield {
                  type: event.type,
                  resourceVersion: rv,
                  awsAuth: asAwsAuth(event.object),
                  via: 'watch',
                };
              } else if (event.type === 'DELETED') {
                present = false;
                reported = undefined;
                yield { type: 'DELETED', resourceVersion: rv, awsAuth: deleted('deleted'), via: 'watch' };
              }
            }
            if (refreshDue) reason = 'token-refresh';
            // A server that ends every watch at once is not hammered: a pause before the next.
            else if (Date.now() - openedAt < 1_000) {
              await sleepFor(baseDelayMs, undefined, { signal }).catch(() => undefined);
            }
          } catch (error) {
            if (signal.aborted) return;
            if (error instanceof Gone) reason = 'gone';
            else if (refreshDue) reason = 'token-refresh';
            else {
              failures += 1;
              const retryable = !(error instanceof SyntaxError) && isRetryable(error);
              if (!retryable || failures >= maxFailures)
                throw toAwsAuthError(error, cluster.clusterName, WATCH);
              reason = 'error';
              failure = toAwsAuthError(error, cluster.clusterName, WATCH).message;
              const backoff = Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (failures - 1));
              await sleepFor(Math.max(backoff, retryAfterMs(error) ?? 0), undefined, { signal }).catch(
                () => undefined,
              );
              if (signal.aborted) return;
            }
          } finally {
            clearTimeout(refresh);
            signal.removeEventListener('abort', onAbort);
            connection.abort();
            await current?.end();
          }

          if (reason === 'gone') {
            const now = await list();
            since = now.resourceVersion;
            const rv = rvOf(now.item);
            if (now.item !== undefined && rv !== undefined && rv !== reported) {
              const type = present ? 'MODIFIED' : 'ADDED';
              present = true;
              reported = rv;
              yield { type, resourceVersion: rv, awsAuth: asAwsAuth(now.item), via: 'relist' };
            } else if (now.item === undefined && present) {
              present = false;
              reported = undefined;
              yield {
                type: 'DELETED',
                resourceVersion: since ?? '',
                awsAuth: deleted('deleted, found by a re-list'),
                via: 'relist',
              };
            }
          }
          watchOptions.onRestart?.({
            reason,
            resourceVersion: since,
            ...(failure === undefined ? {} : { error: failure }),
          });
        }
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
    },
  };
}
