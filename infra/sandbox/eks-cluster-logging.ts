/**
 * EKS control-plane logging: DescribeCluster `logging.clusterLogging` (the enabled types in one
 * group, the disabled ones in another, as EKS answers) and UpdateClusterConfig `logging` (a
 * `LoggingUpdate`: the cluster is UPDATING, then ACTIVE with the new types after sideEffectDelayMs;
 * a request that changes nothing is refused, as EKS refuses it).
 */

import { isoNow, uuid } from './ids.ts';
import { EksError } from './service-errors.ts';
import type { SandboxLogType } from './types.ts';
import type { ClusterState, World } from './world.ts';

export const LOG_TYPES: readonly SandboxLogType[] = [
  'api',
  'audit',
  'authenticator',
  'controllerManager',
  'scheduler',
];

export function clusterLoggingJson(on: readonly SandboxLogType[]): {
  clusterLogging: Array<{ types: string[]; enabled: boolean }>;
} {
  const enabled = LOG_TYPES.filter((t) => on.includes(t));
  const disabled = LOG_TYPES.filter((t) => !on.includes(t));
  return {
    clusterLogging: [
      ...(enabled.length > 0 ? [{ types: enabled, enabled: true }] : []),
      ...(disabled.length > 0 ? [{ types: disabled, enabled: false }] : []),
    ],
  };
}

/** The `update` of an UpdateClusterConfig with `logging`. */
export function updateClusterLogging(
  world: World,
  sideEffectDelayMs: number,
  c: ClusterState,
  logging: unknown,
): Record<string, unknown> {
  const groups = (logging as { clusterLogging?: unknown } | undefined)?.clusterLogging;
  if (!Array.isArray(groups)) {
    throw new EksError(400, 'InvalidParameterException', 'logging.clusterLogging is required', {
      clusterName: c.name,
    });
  }
  const next = new Set(c.logging);
  for (const g of groups as Array<{ types?: unknown; enabled?: unknown }>) {
    const types = Array.isArray(g.types) ? g.types : [];
    for (const t of types) {
      if (!LOG_TYPES.includes(t as SandboxLogType)) {
        throw new EksError(400, 'InvalidParameterException', `Invalid log type: ${String(t)}`, {
          clusterName: c.name,
        });
      }
      if (g.enabled === true) next.add(t as SandboxLogType);
      else next.delete(t as SandboxLogType);
    }
  }
  const after = LOG_TYPES.filter((t) => next.has(t));
  if (after.join() === LOG_TYPES.filter((t) => c.logging.includes(t)).join()) {
    throw new EksError(
      400,
      'InvalidParameterException',
      'No changes needed for the logging config provided',
      {
        clusterName: c.name,
      },
    );
  }
  if (c.status === 'UPDATING') {
    throw new EksError(409, 'ResourceInUseException', 'Cluster already has an update in progress.', {
      clusterName: c.name,
    });
  }
  c.status = 'UPDATING';
  world.log(`${c.name}: UpdateClusterConfig logging → [${after.join(', ')}]`);
  world.later(sideEffectDelayMs, () => {
    if (c.removed) return;
    c.logging = after;
    c.status = 'ACTIVE';
    world.log(`${c.name}: control-plane logging is now [${after.join(', ')}]`);
  });
  return {
    id: uuid(),
    status: 'InProgress',
    type: 'LoggingUpdate',
    params: [{ type: 'ClusterLogging', value: JSON.stringify(clusterLoggingJson(after)) }],
    createdAt: Date.parse(isoNow()) / 1000,
    errors: [],
  };
}
