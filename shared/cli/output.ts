/** What every report command shares: exit codes, the threshold, colour and render options, the tool stamp. */
import { atLeast, type ClusterRef, type ClusterSnapshot, clusterRefOf, type Finding } from '../core/model.ts';
import type { RenderFormat, RenderOptions } from '../core/render/index.ts';
import type { CommonArgs } from './args.ts';
import type { CliIo } from './io.ts';
import type { FailOn } from './options.ts';

export const EXIT = { ok: 0, findings: 1, usage: 2, internal: 3 } as const;

export function clusterOf(snapshot: ClusterSnapshot): ClusterRef {
  return clusterRefOf(snapshot);
}

/** Colour for text on a terminal, unless NO_COLOR is set (non-empty) or TERM=dumb; FORCE_COLOR forces it. */
export function useColor(io: CliIo, args: CommonArgs): boolean {
  if (args.format !== 'text') return false;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0') return true;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  return io.isTTY && io.env.TERM !== 'dumb';
}

export function renderOptions(io: CliIo, args: CommonArgs, extra: RenderOptions): RenderOptions {
  const options: RenderOptions = { ...extra, color: useColor(io, args) };
  if (args.maxChars !== undefined) options.maxChars = args.maxChars;
  return options;
}

/** 1 when a finding is at or above the threshold, else 0. */
export function exitFor(findings: readonly Finding[], failOn: FailOn): number {
  if (failOn === 'none') return EXIT.ok;
  return findings.some((f) => atLeast(f.severity, failOn)) ? EXIT.findings : EXIT.ok;
}

/** The snapshot contract this build reads and writes (`schemaVersion` of a ClusterSnapshot). */
export const SNAPSHOT_SCHEMA_VERSION: ClusterSnapshot['schemaVersion'] = 1;

/** Who produced a JSON output: every JSON report carries it as its first key, `tool`. */
export interface ToolInfo {
  name: 'eks-auth-sentinel';
  version: string;
  snapshotSchemaVersion: number;
}

export function toolInfo(version: string): ToolInfo {
  return { name: 'eks-auth-sentinel', version, snapshotSchemaVersion: SNAPSHOT_SCHEMA_VERSION };
}

/** `eks-auth-sentinel 1.2.3 (snapshot schema 1)`, what --version prints. */
export function versionLine(version: string): string {
  return `eks-auth-sentinel ${version} (snapshot schema ${SNAPSHOT_SCHEMA_VERSION})\n`;
}

/** A rendered report with a final newline; JSON gains `tool` as its first key. */
export function stamped(format: RenderFormat, text: string, tool: ToolInfo): string {
  const body = format === 'json' ? JSON.stringify({ tool, ...(JSON.parse(text) as object) }, null, 2) : text;
  return body.endsWith('\n') ? body : `${body}\n`;
}
