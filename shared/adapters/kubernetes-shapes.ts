/**
 * Kubernetes aws-auth shapes → domain types, without `@kubernetes/client-node` values (types
 * only): shared by the full reader (kubernetes.ts) and the event path's aws-auth reader
 * (kubernetes-aws-auth.ts), so the onEksEvent bundle does not contain the client.
 */

import type { V1ConfigMap, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { type ConnectFailure, unreachableMessage } from '../core/access/index.ts';
import { configMapOverLimit, overLimitText } from '../core/aws-auth/index.ts';
import type { AwsAuthConfigMap, ManagedField } from '../core/model.ts';
import { CollectionError } from '../errors.ts';
import { dropUndefined, isoTime } from './util.ts';

/** The `data` keys a managedFields entry owns: fieldsV1 `{"f:data": {"f:mapRoles": {}, ".": {}}}` → `['mapRoles']`. */
export function dataKeysOfFieldsV1(fieldsV1: unknown): string[] {
  if (typeof fieldsV1 !== 'object' || fieldsV1 === null) return [];
  const data = (fieldsV1 as Record<string, unknown>)['f:data'];
  if (typeof data !== 'object' || data === null) return [];
  return Object.keys(data)
    .filter((key) => key.startsWith('f:'))
    .map((key) => key.slice(2))
    .sort();
}

export function toManagedField(entry: V1ManagedFieldsEntry): ManagedField {
  return dropUndefined({
    manager: entry.manager ?? '',
    operation: entry.operation ?? '',
    time: isoTime(entry.time as Date | string | undefined),
    dataKeys: dataKeysOfFieldsV1(entry.fieldsV1),
  });
}

/**
 * The aws-auth ConfigMap as the snapshot keeps it. Data over the 1 MiB Kubernetes allows (a
 * hostile or broken API server) is refused here, unparsed: "could not read", never "empty".
 */
export function toAwsAuth(configMap: V1ConfigMap): AwsAuthConfigMap {
  const over = configMapOverLimit(configMap.data);
  if (over !== undefined) {
    throw new CollectionError(`kube-system/aws-auth as read: ${overLimitText(over)}`, {
      code: 'invalid-response',
      service: 'kubernetes',
      operation: 'get configmap kube-system/aws-auth',
    });
  }
  return dropUndefined({
    data: { ...(configMap.data ?? {}) },
    resourceVersion: configMap.metadata?.resourceVersion,
    managedFields: (configMap.metadata?.managedFields ?? []).map(toManagedField),
  });
}

/** TLS failures: the cluster's certificate does not verify against its CA (never skipped). */
export const TLS_ERROR_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

/** Network failures worth a retry. */
export const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

/** Walks `cause` chains for a Node/TLS error code. */
export function networkCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const c = current as { code?: unknown; errno?: unknown; cause?: unknown };
    if (typeof c.code === 'string') return c.code;
    if (typeof c.errno === 'string') return c.errno;
    current = c.cause;
  }
  return undefined;
}

const FAILURE_OF_CODE: Record<string, ConnectFailure> = {
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EHOSTUNREACH: 'no-route',
  ENETUNREACH: 'no-route',
  ECONNRESET: 'reset',
};

/** The request's own timeout (AbortSignal.timeout) or an abort by the budget. */
function isAbortError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; type?: unknown };
  return e.name === 'AbortError' || e.name === 'TimeoutError' || e.type === 'aborted';
}

/**
 * A failure to reach the API server at all (timeout, refused, DNS, no route, reset) → the
 * message part `could not reach the API server: …` that monitor/source-unavailable reads back
 * (shared/core/access/endpoint-access.ts) and the error code; undefined for anything else.
 */
export function connectFailureOf(
  error: unknown,
): { message: string; code: 'timeout' | 'unavailable' } | undefined {
  const aborted = isAbortError(error);
  const networkCode = aborted ? undefined : networkCodeOf(error);
  const failure = aborted ? 'timeout' : networkCode === undefined ? undefined : FAILURE_OF_CODE[networkCode];
  if (failure === undefined) return undefined;
  return {
    message: unreachableMessage(failure, networkCode),
    code: failure === 'timeout' ? 'timeout' : 'unavailable',
  };
}
