/** What every command shares: exit codes, the threshold, colour, the tool stamp. */
import { atLeast, type ClusterSnapshot, type Finding } from '../core/model.ts';
import type { ExitIntent, ToolInfo } from '../core/render/index.ts';
import type { CommonArgs } from './args.ts';
import type { CliIo } from './io.ts';
import type { FailOn } from './options.ts';

export const EXIT = { ok: 0, findings: 1, usage: 2, internal: 3 } as const;

/** Colour for text on a terminal, unless NO_COLOR is set (non-empty) or TERM=dumb; FORCE_COLOR forces it. */
export function useColor(io: CliIo, args: CommonArgs): boolean {
  if (args.format !== 'text') return false;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0') return true;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  return io.isTTY && io.env.TERM !== 'dumb';
}

/** 1 when a finding is at or above the threshold, else 0. */
export function exitFor(findings: readonly Pick<Finding, 'severity'>[], failOn: FailOn): number {
  if (failOn === 'none') return EXIT.ok;
  return findings.some((f) => atLeast(f.severity, failOn)) ? EXIT.findings : EXIT.ok;
}

/** A command's exit code: its findings against `--fail-on` (or the command's default), then what it could not check. */
export function exitCode(intent: ExitIntent, failOn: FailOn | undefined): number {
  if (intent.incomplete === 'before') return EXIT.usage;
  const byFindings = exitFor(
    intent.severities.map((severity) => ({ severity })),
    failOn ?? intent.failOnDefault,
  );
  return byFindings === EXIT.ok && intent.incomplete === 'after' ? EXIT.usage : byFindings;
}

/** The snapshot contract this build reads and writes (`schemaVersion` of a ClusterSnapshot). */
export const SNAPSHOT_SCHEMA_VERSION: ClusterSnapshot['schemaVersion'] = 1;

export function toolInfo(version: string): ToolInfo {
  return { name: 'eks-auth-sentinel', version, snapshotSchemaVersion: SNAPSHOT_SCHEMA_VERSION };
}

/** `eks-auth-sentinel 1.2.3 (snapshot schema 1)`, what --version prints. */
export function versionLine(version: string): string {
  return `eks-auth-sentinel ${version} (snapshot schema ${SNAPSHOT_SCHEMA_VERSION})\n`;
}
