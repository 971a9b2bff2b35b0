/**
 * Use case of `snapshot`: capture one cluster into a file (or hand it back for stdout), or every
 * cluster of the Regions into the local snapshot store. A cluster that cannot be read is told to
 * `progress` and makes the exit 2; it never stops the others.
 */
import type { CommandResult, Unreadable } from '../../core/render/index.ts';
import { safeErrorMessage } from '../../errors.ts';
import { captureSnapshot } from '../capture-snapshot.ts';
import { CommandInputError } from '../errors.ts';
import {
  type ClusterScope,
  type CommandPorts,
  liveOf,
  obtainSnapshot,
  readClusters,
  targetsOf,
} from './command-inputs.ts';

/** Where `snapshot` writes: one file (`-` is stdout), or the local directory store. */
export type SnapshotDestination = { kind: 'file'; path: string } | { kind: 'store'; dir: string | undefined };

export interface SnapshotCommandInput {
  /** undefined: every cluster of the Regions. */
  clusterName: string | undefined;
  regions: string[];
  destination: SnapshotDestination;
  concurrency: number;
}

function writeError(path: string, error: unknown): CommandInputError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EISDIR')
    return new CommandInputError(`${path} is a directory, expected a file`, { cause: error });
  return new CommandInputError(
    `cannot write ${path}: ${typeof code === 'string' ? code : safeErrorMessage(error)}`,
    { cause: error },
  );
}

export async function snapshotCommand(
  ports: CommandPorts,
  input: SnapshotCommandInput,
): Promise<CommandResult> {
  const live = liveOf(ports);
  const written: Array<{ cluster: string; region: string; path: string }> = [];
  const unreadable: Unreadable[] = [];

  if (input.destination.kind === 'file') {
    const region = input.regions[0] as string;
    const { snapshot } = await obtainSnapshot(ports, {
      kind: 'live',
      clusterName: input.clusterName ?? '',
      region,
    });
    if (input.destination.path === '-') {
      return { kind: 'snapshot-document', snapshot, exit: { severities: [], failOnDefault: 'none' } };
    }
    try {
      await live.writeFileAtomic(input.destination.path, `${JSON.stringify(snapshot, null, 2)}\n`);
    } catch (error) {
      throw writeError(input.destination.path, error);
    }
    written.push({ cluster: snapshot.clusterName, region: snapshot.region, path: input.destination.path });
  } else {
    const store = await live.snapshotStore(input.destination.dir);
    const deps = await live.captureDeps();
    const scope: ClusterScope =
      input.clusterName === undefined
        ? { kind: 'listed', regions: input.regions }
        : { kind: 'named', clusterName: input.clusterName, regions: input.regions };
    const listing = await targetsOf(deps, scope, undefined, ports.progress);
    unreadable.push(...listing.regionErrors);
    const targets = listing.targets;
    const read = await readClusters(
      targets,
      input.concurrency,
      (target) => captureSnapshot(deps, target),
      ports.progress,
    );
    unreadable.push(...read.unreadable);
    for (const r of read.reads) {
      if (!r.ok) continue;
      const { snapshot } = r;
      const path = store.pathOf({
        accountId: snapshot.accountId,
        region: snapshot.region,
        clusterName: snapshot.clusterName,
      });
      try {
        await store.put(snapshot);
      } catch (error) {
        throw writeError(path, error);
      }
      written.push({ cluster: snapshot.clusterName, region: snapshot.region, path });
    }
  }
  return {
    kind: 'snapshots-written',
    written,
    unreadable,
    exit: {
      severities: [],
      failOnDefault: 'none',
      ...(unreadable.length > 0 ? { incomplete: 'after' as const } : {}),
    },
  };
}
