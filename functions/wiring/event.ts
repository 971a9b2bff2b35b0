/**
 * The event path's readers: EKS and Kubernetes (aws-auth) only. This module must never import the
 * EC2 or IAM adapters, `live.ts` or `kubernetes.ts`: the onEksEvent bundle stays without their
 * clients (EC2, IAM, @kubernetes/client-node).
 */
import { perRegion } from '../../shared/adapters/aws-clients.ts';
import { createDynamoDbClient } from '../../shared/adapters/dynamodb-alert-store.ts';
import { createDynamoDbRemediationLedger } from '../../shared/adapters/dynamodb-remediation-ledger.ts';
import { createEksClient, createEksReader } from '../../shared/adapters/eks.ts';
import { createEksAccessEntryWriter } from '../../shared/adapters/eks-access-entry-writer.ts';
import { createEksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createAwsAuthReader, createAwsAuthWriter } from '../../shared/adapters/kubernetes-aws-auth.ts';
import type { SentinelConfig } from '../../shared/app/config.ts';
import type { HandleEksEventDeps } from '../../shared/app/handle-eks-event.ts';
import type { KubeClusterRef } from '../../shared/ports.ts';
import { clientOptions, type Env, homeRegion } from './env.ts';
import { createStateWiring, type StateWiring } from './state.ts';

/** How often aws-auth is read while a CONFIG_MAP node group deletion is guarded, and for how long at most. */
export const GUARD_INTERVAL_MS = 1_000;
export const GUARD_MAX_MS = 20_000;

/** Opt-in prevention's writers and ledger; none at all with `remediation: off`. */
function remediationDeps(
  config: SentinelConfig,
  env: Env,
  state: StateWiring,
  kube: HandleEksEventDeps['kube'],
): HandleEksEventDeps['remediation'] {
  if (config.remediation === 'off') return undefined;
  const options = clientOptions();
  const writers = perRegion((region) => createEksAccessEntryWriter(createEksClient(region, options)));
  const tokens = createEksTokenProvider();
  return {
    mode: config.remediation,
    maxActionsPerHour: config.remediationMaxActionsPerHour,
    accessEntries: {
      createAccessEntry: (cluster, entry) => writers(cluster.region).createAccessEntry(cluster, entry),
    },
    awsAuthWriter: createAwsAuthWriter({ tokens, requestTimeoutMs: 5_000, budgetMs: 10_000 }),
    awsAuth: kube,
    ledger: createDynamoDbRemediationLedger({
      dynamodb: createDynamoDbClient(homeRegion(env), options),
      tableName: config.tableName,
      clock: state.clock,
    }),
    deliver: state.deliver,
    clock: state.clock,
    guardIntervalMs: GUARD_INTERVAL_MS,
    guardMaxMs: GUARD_MAX_MS,
  };
}

export function createEventWiring(config: SentinelConfig, env: Env): HandleEksEventDeps {
  const options = clientOptions();
  const state = createStateWiring(config, env);
  // aws-auth only, over node:https: @kubernetes/client-node would be half the bundle and its init.
  const kube = createAwsAuthReader({
    tokens: createEksTokenProvider(),
    requestTimeoutMs: 5_000,
    budgetMs: 15_000,
  });
  const remediation = remediationDeps(config, env, state, kube);
  return {
    eks: perRegion((region) => createEksReader(createEksClient(region, options))),
    kube,
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
