/** Small helpers shared by the adapters (no I/O). */

/** Keys whose type admits `undefined` become optional and lose `undefined` (for exactOptionalPropertyTypes). */
export type DropUndefined<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Returns a copy of `value` without the properties that are `undefined`. */
export function dropUndefined<T extends object>(value: T): DropUndefined<T> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v;
  return out as DropUndefined<T>;
}

/** ISO-8601 string of a Date (or of what the SDK/Kubernetes client gave), undefined when absent or invalid. */
export function isoTime(value: Date | string | undefined | null): string | undefined {
  if (value === undefined || value === null) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
