/**
 * Kubernetes aws-auth shapes → domain types, without `@kubernetes/client-node` values (types
 * only): shared by the full reader (kubernetes.ts) and the event path's aws-auth reader
 * (kubernetes-aws-auth.ts), so the onEksEvent bundle does not contain the client.
 */
import type { V1ConfigMap, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import type { AwsAuthConfigMap, ManagedField } from '../core/model.ts';
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

export function toAwsAuth(configMap: V1ConfigMap): AwsAuthConfigMap {
  return dropUndefined({
    data: { ...(configMap.data ?? {}) },
    resourceVersion: configMap.metadata?.resourceVersion,
    managedFields: (configMap.metadata?.managedFields ?? []).map(toManagedField),
  });
}
