/**
 * Opt-in prevention's adapters (SENTINEL_REMEDIATION `dry-run` or `on`): the EKS access-entry
 * writer, the aws-auth writer over node:https and the ledger in the state table. With `off`
 * nothing is created. Shared by onEksEvent and the aws-auth change paths (their `afterAssess`
 * hook is `createRemediationHook(remediationDeps(…))`); no EC2, IAM or @kubernetes/client-node.
 */
import { perRegion } from '../../shared/adapters/aws-clients.ts';
import { createDynamoDbClient } from '../../shared/adapters/dynamodb-alert-store.ts';
import { createDynamoDbRemediationLedger } from '../../shared/adapters/dynamodb-remediation-ledger.ts';
import { createEksClient } from '../../shared/adapters/eks.ts';
import { createEksAccessEntryWriter } from '../../shared/adapters/eks-access-entry-writer.ts';
import { createEksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createAwsAuthWriter } from '../../shared/adapters/kubernetes-aws-auth.ts';
import type { SentinelConfig } from '../../shared/app/config.ts';
import type { RemediateDeps } from '../../shared/app/remediate.ts';
import type { AwsAuthReader } from '../../shared/ports.ts';
import { clientOptions, type Env, homeRegion } from './env.ts';
import type { StateWiring } from './state.ts';

/** How often aws-auth is read while a CONFIG_MAP node group deletion is guarded, and for how long at most. */
export const GUARD_INTERVAL_MS = 1_000;
export const GUARD_MAX_MS = 20_000;

/** Opt-in prevention's writers and ledger; none at all with `remediation: off`. */
export function remediationDeps(
  config: SentinelConfig,
  env: Env,
  state: StateWiring,
  kube: AwsAuthReader,
): RemediateDeps | undefined {
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
  };
}
