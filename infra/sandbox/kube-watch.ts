/**
 * Kubernetes watches on ConfigMaps (`?watch=1`), streamed as the API server streams them: one JSON
 * object per line, `{"type":"ADDED"|"MODIFIED"|"DELETED"|"BOOKMARK"|"ERROR","object":…}`.
 * - no `resourceVersion` (or "0"): an ADDED event per matching object first, then the changes;
 * - `resourceVersion=N`: the changes after N; N older than the kept history: HTTP 200 and one ERROR
 *   event with a `Status` 410 `Expired` ("too old resource version"), then the end of the stream;
 * - `allowWatchBookmarks=true`: a BOOKMARK (only `metadata.resourceVersion`) every bookmark interval;
 * - the server ends the stream at `timeoutSeconds`, capped by the sandbox's maximum.
 */
import type { ServerResponse } from 'node:http';
import type { ConfigMapEvent, KubeStore } from './kube-store.ts';

export interface WatchSettings {
  bookmarkIntervalMs: number;
  maxTimeoutSeconds: number;
}

export interface WatchFilter {
  namespace: string | undefined;
  /** From the URL (a watch on one object) or `fieldSelector=metadata.name=…`. */
  name: string | undefined;
}

/** The open watches of one cluster, so that tests can end them all from the server side. */
export class WatchHub {
  private readonly open = new Set<() => void>();

  get size(): number {
    return this.open.size;
  }

  add(close: () => void): () => void {
    this.open.add(close);
    return () => {
      this.open.delete(close);
    };
  }

  closeAll(): void {
    for (const close of [...this.open]) close();
  }
}

export function isWatchRequest(query: Map<string, string[]>): boolean {
  const v = query.get('watch')?.[0];
  return v === '1' || v === 'true';
}

/** Parses `fieldSelector` (metadata.name / metadata.namespace, `=` or `==`); an error message otherwise. */
export function parseFieldSelector(
  raw: string | undefined,
  base: WatchFilter,
): WatchFilter | { error: string } {
  const out: WatchFilter = { ...base };
  if (raw === undefined || raw === '') return out;
  for (const term of raw.split(',')) {
    const m = /^([^=!]+)(==|=)(.*)$/.exec(term.trim());
    if (!m) return { error: `invalid selector: '${raw}'; can't understand '${term}'` };
    const [, field, , value] = m as unknown as [string, string, string, string];
    if (field === 'metadata.name') out.name = value;
    else if (field === 'metadata.namespace') out.namespace = value;
    else return { error: `field label not supported: ${field}` };
  }
  return out;
}

function matches(filter: WatchFilter, namespace: string, name: string): boolean {
  return (
    (filter.namespace === undefined || filter.namespace === namespace) &&
    (filter.name === undefined || filter.name === name)
  );
}

function line(type: string, object: unknown): string {
  return `${JSON.stringify({ type, object })}\n`;
}

export function serveWatch(
  store: KubeStore,
  hub: WatchHub,
  settings: WatchSettings,
  query: Map<string, string[]>,
  filter: WatchFilter,
  res: ServerResponse,
): void {
  const rv = query.get('resourceVersion')?.[0] ?? '';
  const bookmarks = query.get('allowWatchBookmarks')?.[0] === 'true';
  const requested = Number(query.get('timeoutSeconds')?.[0] ?? '');
  const timeoutSeconds =
    Number.isFinite(requested) && requested > 0
      ? Math.min(requested, settings.maxTimeoutSeconds)
      : settings.maxTimeoutSeconds;
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
  res.flushHeaders();
  let ended = false;
  let timeout: NodeJS.Timeout | undefined;
  let bookmark: NodeJS.Timeout | undefined;
  let unsubscribe = (): void => {};
  let leaveHub = (): void => {};
  const end = (): void => {
    if (ended) return;
    ended = true;
    clearTimeout(timeout);
    clearTimeout(bookmark);
    unsubscribe();
    leaveHub();
    res.end();
  };
  res.on('close', end);
  const send = (e: ConfigMapEvent): void => {
    if (!ended && matches(filter, e.namespace, e.name)) res.write(line(e.type, e.object));
  };
  if (rv === '' || rv === '0') {
    for (const c of store.list(filter.namespace)) {
      if (matches(filter, c.namespace, c.name)) res.write(line('ADDED', c.object));
    }
  } else {
    const backlog = store.since(rv);
    if (backlog === 'expired' || backlog === 'invalid') {
      const message =
        backlog === 'expired'
          ? `too old resource version: ${rv} (${store.oldestResourceVersion})`
          : `invalid resource version: ${rv}`;
      res.write(
        line('ERROR', {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message,
          reason: backlog === 'expired' ? 'Expired' : 'BadRequest',
          code: backlog === 'expired' ? 410 : 400,
        }),
      );
      end();
      return;
    }
    for (const e of backlog) send(e);
  }
  unsubscribe = store.subscribe(send);
  leaveHub = hub.add(end);
  timeout = setTimeout(end, timeoutSeconds * 1000);
  if (bookmarks) {
    const tick = (): void => {
      if (ended) return;
      res.write(
        line('BOOKMARK', {
          kind: 'ConfigMap',
          apiVersion: 'v1',
          metadata: { resourceVersion: store.resourceVersion },
        }),
      );
      bookmark = setTimeout(tick, settings.bookmarkIntervalMs);
    };
    bookmark = setTimeout(tick, settings.bookmarkIntervalMs);
  }
}
