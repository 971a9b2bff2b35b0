/**
 * Use case of `demo`: every scenario file, assessed; for incident-a scenarios (`a-*.json`) every
 * node group's deletion simulated, for incident-e ones (`e-*.json`) the switch to API; both
 * through `assessWithWhatIfs` like the report. A scenario file that cannot be read is an entry of
 * its own (and exit 2); without --fail-on the demo exits 0 on findings.
 */
import type { ClusterSnapshot } from '../../core/model.ts';
import { clusterRefOf } from '../../core/model.ts';
import { type Change, deletionChanges } from '../../core/predict/index.ts';
import type { CommandResult, DemoEntry } from '../../core/render/index.ts';
import { severitiesOf } from '../../core/render/index.ts';
import { CommandInputError } from '../errors.ts';
import type { CommandPorts } from './command-inputs.ts';
import { assessWithWhatIfs } from './report-command.ts';

/** What the demo simulates: every node group's deletion (a-*), the switch to API (e-*). */
function demoChanges(name: string, snapshot: ClusterSnapshot): Change[] {
  if (name.startsWith('a-')) return deletionChanges(snapshot).filter((c) => c.kind === 'delete-nodegroup');
  if (name.startsWith('e-') && snapshot.cluster.authenticationMode !== 'API') {
    return [{ kind: 'set-auth-mode', mode: 'API' }];
  }
  return [];
}

export async function demoCommand(
  ports: CommandPorts,
  input: { scenarios: readonly { name: string; file: string }[] },
): Promise<CommandResult> {
  const entries: DemoEntry[] = [];
  for (const { name, file } of input.scenarios) {
    let snapshot: ClusterSnapshot;
    try {
      snapshot = await ports.files.loadSnapshot(file);
    } catch (error) {
      if (!(error instanceof CommandInputError)) throw error;
      entries.push({
        ok: false,
        name,
        file,
        message: error.message,
        ...(error.where === undefined ? {} : { where: error.where }),
      });
      continue;
    }
    const assessed = assessWithWhatIfs(snapshot, demoChanges(name, snapshot));
    entries.push({ ok: true, name, file, cluster: clusterRefOf(snapshot), ...assessed });
  }
  const read = entries.flatMap((e) => (e.ok ? [e] : []));
  return {
    kind: 'demo',
    scenarios: entries,
    exit: {
      severities: severitiesOf(read),
      failOnDefault: 'none',
      ...(read.length < entries.length ? { incomplete: 'before' as const } : {}),
    },
  };
}
