/**
 * The ConfigMaps of one cluster's Kubernetes API and their change history. aws-auth lives in the
 * world (`cluster.awsAuth`, which EKS's side effects and the authenticator simulation read); other
 * ConfigMaps live here. Every change, whoever made it, becomes a watch event with the write's
 * resourceVersion; the history keeps the last `historyLimit` events, and a watch from an older
 * resourceVersion is answered 410 Expired, as the API server's watch cache does.
 */
import { configMapJson, nextConfigMapState } from './configmap-state.ts';
import type { SandboxAwsAuth } from './types.ts';
import type { ClusterState, World } from './world.ts';

export const AWS_AUTH_NAMESPACE = 'kube-system';
export const AWS_AUTH_NAME = 'aws-auth';

export interface ConfigMapEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resourceVersion: number;
  namespace: string;
  name: string;
  object: Record<string, unknown>;
}

export function isAwsAuth(namespace: string, name: string): boolean {
  return namespace === AWS_AUTH_NAMESPACE && name === AWS_AUTH_NAME;
}

export class KubeStore {
  private readonly history: ConfigMapEvent[] = [];
  /** A watch from a resourceVersion below this is too old. */
  private floor: number;
  private readonly listeners = new Set<(e: ConfigMapEvent) => void>();
  private readonly others = new Map<string, SandboxAwsAuth>();

  constructor(
    private readonly world: World,
    readonly cluster: ClusterState,
    private readonly historyLimit: number,
  ) {
    this.floor = Number(world.currentResourceVersion());
  }

  get resourceVersion(): string {
    return this.world.currentResourceVersion();
  }

  state(namespace: string, name: string): SandboxAwsAuth | undefined {
    return isAwsAuth(namespace, name) ? this.cluster.awsAuth : this.others.get(`${namespace}/${name}`);
  }

  get(namespace: string, name: string): Record<string, unknown> | undefined {
    const s = this.state(namespace, name);
    return s ? configMapJson(namespace, name, s) : undefined;
  }

  /** Every ConfigMap of `namespace` (all namespaces when undefined), by namespace then name. */
  list(
    namespace: string | undefined,
  ): Array<{ namespace: string; name: string; object: Record<string, unknown> }> {
    const all: Array<{ namespace: string; name: string; state: SandboxAwsAuth }> = [];
    if (this.cluster.awsAuth)
      all.push({ namespace: AWS_AUTH_NAMESPACE, name: AWS_AUTH_NAME, state: this.cluster.awsAuth });
    for (const [key, state] of this.others) {
      const [ns, name] = key.split('/') as [string, string];
      all.push({ namespace: ns, name, state });
    }
    return all
      .filter((c) => namespace === undefined || c.namespace === namespace)
      .sort((a, b) => (`${a.namespace}/${a.name}` < `${b.namespace}/${b.name}` ? -1 : 1))
      .map((c) => ({
        namespace: c.namespace,
        name: c.name,
        object: configMapJson(c.namespace, c.name, c.state),
      }));
  }

  /** Writes a ConfigMap other than aws-auth (aws-auth goes through the world). */
  writeOther(
    namespace: string,
    name: string,
    data: Record<string, string>,
    manager: string,
    meta: { labels?: Record<string, string>; annotations?: Record<string, string> },
  ): void {
    const key = `${namespace}/${name}`;
    const before = this.others.get(key);
    const next = nextConfigMapState(before, data, manager, 'Update', meta, () =>
      this.world.nextResourceVersion(),
    );
    if (!next) return;
    this.others.set(key, next.state);
    this.record(before ? 'MODIFIED' : 'ADDED', namespace, name, next.state);
  }

  deleteOther(namespace: string, name: string): boolean {
    const key = `${namespace}/${name}`;
    const before = this.others.get(key);
    if (!before) return false;
    this.others.delete(key);
    this.record('DELETED', namespace, name, { ...before, resourceVersion: this.world.nextResourceVersion() });
    return true;
  }

  record(type: ConfigMapEvent['type'], namespace: string, name: string, state: SandboxAwsAuth): void {
    const event: ConfigMapEvent = {
      type,
      resourceVersion: Number(state.resourceVersion),
      namespace,
      name,
      object: configMapJson(namespace, name, state),
    };
    this.history.push(event);
    while (this.history.length > this.historyLimit) {
      const dropped = this.history.shift();
      if (dropped) this.floor = Math.max(this.floor, dropped.resourceVersion);
    }
    for (const l of [...this.listeners]) l(event);
  }

  /**
   * The events after `resourceVersion`, 'expired' when the history no longer reaches back to it, or
   * 'invalid' for a resourceVersion that is not one the sandbox hands out (a non-negative integer).
   */
  since(resourceVersion: string): ConfigMapEvent[] | 'expired' | 'invalid' {
    const rv = Number(resourceVersion);
    if (!Number.isInteger(rv) || rv < 0) return 'invalid';
    if (rv < this.floor) return 'expired';
    return this.history.filter((e) => e.resourceVersion > rv);
  }

  /** The oldest resourceVersion a watch may still start from. */
  get oldestResourceVersion(): number {
    return this.floor;
  }

  compact(): void {
    this.history.length = 0;
    this.floor = Number(this.world.currentResourceVersion());
  }

  subscribe(listener: (e: ConfigMapEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
