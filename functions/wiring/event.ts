/**
 * The event path's readers: EKS and Kubernetes (aws-auth) only. This module must never import the
 * EC2 or IAM adapters, `live.ts` or `kubernetes.ts`: the onEksEvent bundle stays without their
 * clients (EC2, IAM, @kubernetes/client-node). With remediation `dry-run` or `on`, its writers
 * (prevention.ts) come with it.
 */
import { type AwsClientOptions, perRegion } from '../../shared/adapters/aws-clients.ts';
import { createEksClient, createEksReader } from '../../shared/adapters/eks.ts';
import { createEksTokenProvider, type EksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createAwsAuthReader } from '../../shared/adapters/kubernetes-aws-auth.ts';
import type { SentinelConfig } from '../../shared/app/config.ts';
import type { HandleEksEventDeps } from '../../shared/app/handle-eks-event.ts';
import type { KubeClusterRef } from '../../shared/ports.ts';
import { clientOptions, type Env } from './env.ts';
import { GUARD_INTERVAL_MS, GUARD_MAX_MS, remediationDeps } from './prevention.ts';
import { createStateWiring } from './state.ts';

export type EventReaders = Pick<HandleEksEventDeps, 'eks' | 'kube' | 'withDeadline'>;

/** One EKS client per Region and one aws-auth reader, and the same bound to a deadline per invocation. */
export function createEventReaders(
  options: AwsClientOptions,
  tokens: EksTokenProvider = createEksTokenProvider(
    options.credentials === undefined ? {} : { credentials: options.credentials },
  ),
): EventReaders {
  const eksClient = perRegion((region) => createEksClient(region, options));
  // aws-auth only, over node:https: @kubernetes/client-node would be half the bundle and its init.
  const kube = createAwsAuthReader({
    tokens,
    requestTimeoutMs: 5_000,
    budgetMs: 15_000,
  });
  return {
    eks: perRegion((region) => createEksReader(eksClient(region))),
    kube,
    // The same clients and connections, every request cut when the reads' deadline aborts `signal`.
    withDeadline: (signal) => ({
      eks: perRegion((region) => createEksReader(eksClient(region), { deadline: signal })),
      kube: kube.withDeadline(signal),
    }),
  };
}

export function createEventWiring(config: SentinelConfig, env: Env): HandleEksEventDeps {
  const state = createStateWiring(config, env);
  const readers = createEventReaders(clientOptions());
  const prevention = remediationDeps(config, env, state, readers.kube);
  const remediation =
    prevention === undefined
      ? undefined
      : { ...prevention, guardIntervalMs: GUARD_INTERVAL_MS, guardMaxMs: GUARD_MAX_MS };
  return {
    ...readers,
    snapshots: state.snapshots,
    idempotency: state.idempotency,
    deliver: state.deliver,
    queue: state.queue,
    clock: state.clock,
    monitorPrincipalArn: config.monitorPrincipalArn,
    followUpDelaySeconds: config.followUpDelaySeconds,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    regions: config.regions,
    kubeRefs: new Map<string, KubeClusterRef>(),
    ...(remediation === undefined ? {} : { remediation }),
  };
}
