/** `migrate`: the plan from aws-auth to access entries (shared/core/migrate/migration-plan.ts), in the format asked for. */
import {
  migrationAwsCli,
  migrationJson,
  migrationTerraform,
  migrationText,
  planMigration,
} from '../core/migrate/index.ts';
import type { ClusterSnapshot } from '../core/model.ts';
import type { MigrateFormat } from '../core/render/index.ts';
import { CliError } from './errors.ts';
import type { CliIo } from './io.ts';
import { EXIT } from './output.ts';

/** Prints the plan; exit 1 when it has blockers (the switch to API must wait), else 0. */
export function runMigrate(io: CliIo, snapshot: ClusterSnapshot, format: MigrateFormat): number {
  const plan = planMigration(snapshot);
  switch (format) {
    case 'json':
      // exactly {cluster, steps, accessEntries, blockers}: no `tool` stamp in this contract
      io.stdout(`${migrationJson(plan)}\n`);
      break;
    case 'text':
      io.stdout(migrationText(plan));
      break;
    case 'terraform':
    case 'aws-cli': {
      const r = format === 'terraform' ? migrationTerraform(plan) : migrationAwsCli(plan);
      if (!r.ok) {
        throw new CliError(`the plan cannot be written as ${format}: ${r.reason}; use --format json`);
      }
      io.stdout(r.text);
      break;
    }
  }
  return plan.blockers.length > 0 ? EXIT.findings : EXIT.ok;
}
