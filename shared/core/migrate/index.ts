/**
 * The entry of `shared/core/migrate/`: what code outside `shared/core` imports from this folder.
 */
export { planMigration } from './migration-plan.ts';
export { migrationAwsCli, migrationJson, migrationTerraform, migrationText } from './render-migration.ts';
