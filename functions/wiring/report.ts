/** The report's deps: the full capture (a fresh report) and the snapshot store (a stored one). */
import type { ReportDeps } from '../../shared/app/commands/report-command.ts';
import type { SentinelConfig } from '../../shared/app/config.ts';
import { createCaptureWiring } from './capture.ts';
import type { Env } from './env.ts';
import { createSnapshotStore } from './state.ts';

export function createReportWiring(config: SentinelConfig, env: Env): Required<ReportDeps> {
  return { capture: createCaptureWiring(), snapshots: createSnapshotStore(config, env) };
}
