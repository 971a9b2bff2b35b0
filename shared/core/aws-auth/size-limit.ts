/**
 * The size bound of a ConfigMap: Kubernetes refuses one whose `data` and `binaryData` values total
 * more than 1 MiB (`MaxSecretSize`, checked by `ValidateConfigMap` on the UTF-8 bytes of each
 * value), so no aws-auth EKS reads can be larger. A value over it cannot come from a cluster; it is
 * refused — with what and where — before any YAML parse (a 45 MB `mapRoles` in a plan took 77.7 s
 * and 3.1 GB to parse). Pure.
 */
import { utf8Length } from '../quote/unicode.ts';

export { utf8Length };

export const CONFIG_MAP_MAX_BYTES = 1024 * 1024;

export interface OverLimit {
  /** Bytes of all values counted (at least the limit + 1; counting stops past it). */
  bytes: number;
  /** The largest value's key, and its bytes. */
  key: string;
  keyBytes: number;
}

/** `data` when its string values total more than 1 MiB; undefined when within (or not a map). */
export function configMapOverLimit(data: unknown): OverLimit | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  let bytes = 0;
  let key = '';
  let keyBytes = -1;
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (typeof v !== 'string') continue;
    // A string of more UTF-16 units than the limit is over it (each unit is at least one byte).
    const n = v.length > CONFIG_MAP_MAX_BYTES ? v.length : utf8Length(v, CONFIG_MAP_MAX_BYTES);
    bytes += n;
    if (n > keyBytes) {
      key = k;
      keyBytes = n;
    }
  }
  return bytes > CONFIG_MAP_MAX_BYTES ? { bytes, key, keyBytes } : undefined;
}

const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

/** `data holds 45.0 MiB (mapRoles 45.0 MiB), over the 1 MiB …`: the reason, without where. */
export function overLimitText(o: OverLimit): string {
  return `data holds at least ${o.bytes > CONFIG_MAP_MAX_BYTES * 1.05 ? mib(o.bytes) : `${o.bytes} bytes`} (${JSON.stringify(o.key.slice(0, 60))} the largest, ${mib(o.keyBytes)}), over the 1 MiB (1,048,576 bytes) Kubernetes allows a ConfigMap: no aws-auth can hold it, refused unparsed`;
}
