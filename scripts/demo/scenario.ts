/** What an incident of the demo (scripts/incident-demo.ts) is, what it may do, and its seed files. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EKSClient } from '@aws-sdk/client-eks';
import type { IAMClient } from '@aws-sdk/client-iam';
import type { Sandbox } from '../../infra/sandbox/index.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { parseSnapshotJson } from '../../shared/core/snapshot/snapshot-schema.ts';

export interface DemoContext {
  sandbox: Sandbox;
  clusterName: string;
  note(what: string, lines?: string[]): void;
  /** Runs the scheduler and the worker on what it queued (a scheduled run). */
  scheduledRun(label: string): Promise<void>;
  /** Invokes onEksEvent with the last CloudTrail record the sandbox emitted. */
  deliverCloudTrail(): Promise<void>;
  /**
   * Runs the CLI (runCli with the Node io of shared/cli/main.ts) against the sandbox account as the
   * monitor's principal; the lines `show` keeps go into the timeline. Returns the exit code.
   */
  cli(label: string, args: string[], show?: (lines: string[]) => string[]): Promise<number>;
  eks: EKSClient;
  /** IAM as an IaC pipeline calls it (the outsider principal; IAM is global: us-east-1). */
  iam: IAMClient;
}

export interface Scenario {
  id: string;
  file: string;
  title: string;
  /** The seed may differ from the file (scenario c starts from the aws-auth before the slip). */
  seed?(snapshot: ClusterSnapshot): ClusterSnapshot;
  act(ctx: DemoContext): Promise<void>;
  /** The sandbox timeline entry that marks the damage the alert must precede. */
  damage: RegExp;
  damageLabel: string;
  /**
   * Set when the access is lost at the call or edit itself (incidents d and f): no alert can come
   * before that, so the demo reports the time from the call to the alert instead (and `damage`
   * is only what the sandbox shows of the loss). The words that say how it was lost.
   */
  lostAtCall?: string;
  /** Severity of the alert that must precede the damage. */
  severity: 'critical' | 'high';
  /** When the pods ask for fresh AWS credentials after a change (the sandbox's default otherwise). */
  credentialRefreshDelayMs?: number;
  /** What the header says the sandbox does, after its EKS and node delays. */
  sandboxNote?: string;
}

const ROOT = join(import.meta.dirname, '..', '..');

/** A scenario file (`scenarios/<file>.json`), validated as the CLI validates snapshots. */
export function loadScenarioSnapshot(file: string): ClusterSnapshot {
  const name = `${file}.json`;
  const parsed = parseSnapshotJson(readFileSync(join(ROOT, 'scenarios', name), 'utf8'), name);
  if (!parsed.ok) throw new Error(`scenarios/${name} is not a valid snapshot`);
  return parsed.snapshot;
}
