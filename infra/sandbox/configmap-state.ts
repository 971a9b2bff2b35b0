/**
 * A ConfigMap write as the API server stores it: Update semantics for `managedFields` (the data keys
 * a write changes move to the writer and leave every other manager's field set), a new
 * resourceVersion only when something changed (a no-op update keeps the object as it is).
 */
import { isoNow, uuid } from './ids.ts';
import type { KubeManagedFieldsEntry, SandboxAwsAuth } from './types.ts';

export interface ConfigMapMeta {
  labels?: Record<string, string> | undefined;
  annotations?: Record<string, string> | undefined;
}

/** The object after the write, or undefined when the write changes nothing. */
export function nextConfigMapState(
  before: SandboxAwsAuth | undefined,
  data: Record<string, string>,
  manager: string,
  operation: 'Update' | 'Apply',
  meta: ConfigMapMeta,
  nextResourceVersion: () => string,
): { state: SandboxAwsAuth; touched: string[] } | undefined {
  const now = isoNow();
  const oldData = before?.data ?? {};
  const changed = Object.keys(data).filter((k) => oldData[k] !== data[k]);
  const removed = Object.keys(oldData).filter((k) => !(k in data));
  const labels = meta.labels ?? before?.labels;
  const annotations = meta.annotations ?? before?.annotations;
  const metaChanged =
    JSON.stringify(labels ?? {}) !== JSON.stringify(before?.labels ?? {}) ||
    JSON.stringify(annotations ?? {}) !== JSON.stringify(before?.annotations ?? {});
  if (before && changed.length === 0 && removed.length === 0 && !metaChanged) return undefined;
  const touched = new Set([...changed, ...removed]);
  const fields: KubeManagedFieldsEntry[] = [];
  for (const entry of before?.managedFields ?? []) {
    const owned = Object.keys(entry.fieldsV1['f:data'] ?? {})
      .map((f) => f.slice(2))
      .filter((k) => k in data && (entry.manager === manager || !touched.has(k)));
    if (entry.manager === manager && entry.operation === operation) continue;
    if (owned.length > 0) fields.push({ ...entry, fieldsV1: { 'f:data': dataFields(owned) } });
  }
  const mine = new Set<string>(changed);
  const previous = before?.managedFields.find((e) => e.manager === manager && e.operation === operation);
  for (const f of Object.keys(previous?.fieldsV1['f:data'] ?? {})) {
    const k = f.slice(2);
    if (k in data) mine.add(k);
  }
  if (mine.size > 0) {
    fields.push({
      manager,
      operation,
      apiVersion: 'v1',
      time: now,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': dataFields([...mine].sort()) },
    });
  }
  const state: SandboxAwsAuth = {
    data,
    resourceVersion: nextResourceVersion(),
    uid: before?.uid ?? uuid(),
    creationTimestamp: before?.creationTimestamp ?? now,
    managedFields: fields,
  };
  if (labels && Object.keys(labels).length > 0) state.labels = labels;
  if (annotations && Object.keys(annotations).length > 0) state.annotations = annotations;
  return { state, touched: [...touched].sort() };
}

export function dataFields(keys: string[]): Record<string, Record<string, never>> {
  const out: Record<string, Record<string, never>> = {};
  for (const k of keys) out[`f:${k}`] = {};
  return out;
}

/** The ConfigMap as the API serves it (timestamps in whole seconds, as Kubernetes writes them). */
export function configMapJson(namespace: string, name: string, s: SandboxAwsAuth): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    name,
    namespace,
    uid: s.uid,
    resourceVersion: s.resourceVersion,
    creationTimestamp: s.creationTimestamp.replace(/\.\d{3}Z$/, 'Z'),
  };
  if (s.labels) metadata.labels = { ...s.labels };
  if (s.annotations) metadata.annotations = { ...s.annotations };
  metadata.managedFields = s.managedFields.map((f) => ({ ...f, time: f.time.replace(/\.\d{3}Z$/, 'Z') }));
  return { kind: 'ConfigMap', apiVersion: 'v1', metadata, data: { ...s.data } };
}
