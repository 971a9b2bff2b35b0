/** Use case of `diff`: what changed between two snapshots of one cluster, as findings. */
import { dedupeFixCommands } from '../../core/fixes/index.ts';
import { clusterRefOf } from '../../core/model.ts';
import { diffSnapshots } from '../../core/predict/index.ts';
import type { CommandResult } from '../../core/render/index.ts';
import { CommandInputError } from '../errors.ts';
import { type CommandPorts, findingsExit } from './command-inputs.ts';

export async function diffCommand(
  ports: CommandPorts,
  input: { before: string; after: string },
): Promise<CommandResult> {
  const before = await ports.files.loadSnapshot(input.before);
  const after = await ports.files.loadSnapshot(input.after);
  if (before.clusterArn !== after.clusterArn) {
    throw new CommandInputError(`--before and --after are snapshots of different clusters`, {
      where: `${before.clusterArn} vs ${after.clusterArn}`,
    });
  }
  // Swapped files would report every change backwards; refuse rather than guess (exit 2).
  if (Date.parse(before.capturedAt) > Date.parse(after.capturedAt)) {
    throw new CommandInputError(
      `--before was captured at ${before.capturedAt}, after --after (${after.capturedAt}); swap them`,
    );
  }
  const findings = dedupeFixCommands(diffSnapshots(before, after, { trigger: 'manual' }));
  return {
    kind: 'findings',
    section: {
      title: `Changes from ${before.capturedAt} to ${after.capturedAt}`,
      cluster: clusterRefOf(after),
      findings,
    },
    exit: findingsExit(findings),
  };
}
