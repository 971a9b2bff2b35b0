/** Use case of `compare`: the parity of one cluster (`to`) with another (`from`), and the fixes in one block. */
import { clusterRefOf } from '../../core/model.ts';
import { compareClusters } from '../../core/parity/index.ts';
import type { CommandResult } from '../../core/render/index.ts';
import { type CommandPorts, findingsExit, obtainSnapshot, type SnapshotSource } from './command-inputs.ts';

export async function compareCommand(
  ports: CommandPorts,
  input: { from: SnapshotSource; to: SnapshotSource },
): Promise<CommandResult> {
  const { snapshot: from } = await obtainSnapshot(ports, input.from);
  const { snapshot: to } = await obtainSnapshot(ports, input.to);
  const result = compareClusters(from, to, { trigger: 'manual' });
  return {
    kind: 'compare',
    section: {
      title: `Parity of ${to.clusterName} (${to.region}) with ${from.clusterName} (${from.region})`,
      cluster: clusterRefOf(to),
      findings: result.findings,
    },
    from: clusterRefOf(from),
    ...(result.fixAll ? { fixAll: result.fixAll } : {}),
    ...(result.podIdentityPlan ? { podIdentityPlan: result.podIdentityPlan } : {}),
    exit: findingsExit(result.findings),
  };
}
