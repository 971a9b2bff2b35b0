/** Use case of `migrate`: the plan from aws-auth to access entries; a blocker fails like a critical finding. */
import { planMigration } from '../../core/migrate/index.ts';
import type { CommandResult } from '../../core/render/index.ts';
import { type CommandPorts, obtainSnapshot, type SnapshotSource } from './command-inputs.ts';

export async function migrateCommand(
  ports: CommandPorts,
  input: { source: SnapshotSource },
): Promise<CommandResult> {
  const { snapshot } = await obtainSnapshot(ports, input.source);
  const plan = planMigration(snapshot);
  // The switch to API must wait for every blocker: each counts as critical for --fail-on.
  return {
    kind: 'migrate',
    plan,
    exit: { severities: plan.blockers.map(() => 'critical' as const), failOnDefault: 'critical' },
  };
}
