/**
 * The aws-auth paths' wiring (onAuditEvent, awsAuthCheck, awsAuthWatch): EKS DescribeCluster
 * (where each cluster's API is), the aws-auth GET over node:https, the state, and with
 * `remediation` dry-run or on the assessment's remediation hook. Like event.ts, never the
 * EC2 or IAM adapters or @kubernetes/client-node.
 */
import { createEksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createAwsAuthWatcher } from '../../shared/adapters/kubernetes-aws-auth-watch.ts';
import { toAwsAuth } from '../../shared/adapters/kubernetes-shapes.ts';
import type { SentinelConfig } from '../../shared/app/config.ts';
import type { HandleAuditEventDeps } from '../../shared/app/handle-audit-event.ts';
import { kubeClusterRef } from '../../shared/app/read-sources.ts';
import { createRemediationHook } from '../../shared/app/remediate.ts';
import { CollectionError } from '../../shared/errors.ts';
import type { AwsAuthWatcher, EksReader, KubeClusterRef } from '../../shared/ports.ts';
import { clientOptions, type Env, homeRegion } from './env.ts';
import { createEventReaders } from './event.ts';
import { remediationDeps } from './prevention.ts';
import { createStateWiring } from './state.ts';

export interface AwsAuthPathsWiring extends Omit<HandleAuditEventDeps, 'cluster'> {
  eks(region: string): EksReader;
  regions: readonly string[];
  home: string;
  /** The continuous mode's watcher (created on first use: the poll and audit paths never open one). */
  watcher(): AwsAuthWatcher;
  /** The cluster in this account and Region (cached per warm container), undefined when it does not exist. */
  cluster(name: string, accountId: string, region?: string): Promise<KubeClusterRef | undefined>;
}

export function createAwsAuthPathsWiring(config: SentinelConfig, env: Env): AwsAuthPathsWiring {
  const options = clientOptions();
  const state = createStateWiring(config, env);
  const refs = new Map<string, KubeClusterRef>();
  const home = homeRegion(env);
  const tokens = createEksTokenProvider();
  // The event path's readers (same clients and timeouts); the watcher shares their tokens.
  const { eks, kube } = createEventReaders(options, tokens);
  let watcher: AwsAuthWatcher | undefined;
  // Opt-in prevention: a removal that running compute depends on is put back from these paths too
  // (they see the aws-auth edits no CloudTrail record announces); nothing is created with `off`.
  const prevention = remediationDeps(config, env, state, kube);
  return {
    eks,
    regions: config.regions,
    home,
    kube,
    ...(prevention === undefined ? {} : { afterAssess: createRemediationHook(prevention) }),
    watcher() {
      watcher ??= createAwsAuthWatcher({ tokens });
      return watcher;
    },
    alerts: state.alerts,
    snapshots: state.snapshots,
    idempotency: state.idempotency,
    deliver: state.deliver,
    clock: state.clock,
    monitorPrincipalArn: config.monitorPrincipalArn,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    awsAuthOf: (configMap) => toAwsAuth(configMap.raw),
    async cluster(name, accountId, region = home) {
      const key = `${accountId}/${region}/${name}`;
      const cached = refs.get(key);
      if (cached !== undefined) return cached;
      try {
        const described = await eks(region).describeCluster(name);
        if (described.endpoint === undefined || described.certificateAuthorityData === undefined)
          return undefined;
        const ref = kubeClusterRef(described, { accountId, region });
        refs.set(key, ref);
        return ref;
      } catch (error) {
        if (error instanceof CollectionError && error.code === 'not-found') return undefined;
        throw error;
      }
    },
  };
}
