/** Use case of `assess`: the rules over one snapshot (a file, or a cluster read live). */
import { dedupeFixCommands } from '../../core/fixes/index.ts';
import { clusterRefOf } from '../../core/model.ts';
import { assessSnapshot } from '../../core/predict/index.ts';
import type { CommandResult } from '../../core/render/index.ts';
import { type CommandPorts, findingsExit, obtainSnapshot, type SnapshotSource } from './command-inputs.ts';

export async function assessCommand(
  ports: CommandPorts,
  input: { source: SnapshotSource },
): Promise<CommandResult> {
  const { snapshot } = await obtainSnapshot(ports, input.source);
  const findings = dedupeFixCommands(assessSnapshot(snapshot, { trigger: 'manual' }));
  return {
    kind: 'findings',
    section: { title: 'Assessment', cluster: clusterRefOf(snapshot), findings },
    exit: findingsExit(findings),
  };
}
