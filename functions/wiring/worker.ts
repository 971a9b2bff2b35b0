/** The snapshot worker's deps: the full capture, state and delivery, the follow-up settings and claims. */
import type { SentinelConfig } from '../../shared/app/config.ts';
import type { RunSnapshotDeps } from '../../shared/app/run-snapshot.ts';
import { createCaptureWiring } from './capture.ts';
import type { Env } from './env.ts';
import { createStateWiring } from './state.ts';

export function createWorkerWiring(config: SentinelConfig, env: Env): RunSnapshotDeps {
  const state = createStateWiring(config, env);
  return {
    capture: createCaptureWiring(),
    snapshots: state.snapshots,
    deliver: state.deliver,
    queue: state.queue,
    clock: state.clock,
    monitorPrincipalArn: config.monitorPrincipalArn,
    followUp: { delaySeconds: config.followUpDelaySeconds, maxAttempts: config.followUpMaxAttempts },
    idempotency: state.idempotency,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
  };
}
