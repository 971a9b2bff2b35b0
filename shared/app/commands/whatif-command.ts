/**
 * Use case of `whatif` with one change: the change option turned into a `Change`, checked against
 * the snapshot, then simulated. A node group, Fargate profile or access entry that is not there is
 * a usage error, not an empty simulation. A role is different: it lives in IAM, not in the
 * cluster, so one nothing uses is a real answer. An EKS CloudTrail event that changes nothing
 * authentication depends on is an answer too (`event-ignored`).
 */
import { principalKey } from '../../core/access/index.ts';
import {
  type AuditChange,
  parseAuditEvent,
  parseAuditSubscription,
  parseEksEvent,
} from '../../core/events/index.ts';
import { dedupeFixCommands } from '../../core/fixes/index.ts';
import {
  type Actor,
  type AuthenticationMode,
  type ClusterSnapshot,
  clusterRefOf,
  type Source,
  withActor,
} from '../../core/model.ts';
import {
  type Change,
  describeChange,
  diffSnapshots,
  roleRefOfArn,
  whatIf,
} from '../../core/predict/index.ts';
import type { CommandResult } from '../../core/render/index.ts';
import { CommandInputError } from '../errors.ts';
import { type CommandPorts, findingsExit, obtainSnapshot, type SnapshotSource } from './command-inputs.ts';

/** The change `whatif` simulates, as its option gave it. */
export type WhatIfRequest =
  | { option: 'delete-nodegroup'; value: string }
  | { option: 'delete-fargate-profile'; value: string }
  | { option: 'delete-access-entry'; value: string }
  | { option: 'delete-role'; value: string }
  | { option: 'auth-mode'; value: AuthenticationMode }
  | { option: 'event'; value: string };

type ResolvedWhatIf =
  | { kind: 'change'; change: Change; actor?: Actor }
  /** An aws-auth write of the audit log: the snapshot with aws-auth as the write left it. */
  | { kind: 'aws-auth'; write: AuditChange; after: ClusterSnapshot['awsAuth']; actor?: Actor }
  | { kind: 'ignored'; reason: string; actor?: Actor };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A Kubernetes audit input of `whatif --event`: a subscription event as Lambda receives it, its
 * decoded message, or one audit Event; undefined when the value is none of them (CloudTrail).
 */
function auditWriteOf(
  ports: CommandPorts,
  value: unknown,
  snapshot: ClusterSnapshot,
  where: string,
): ResolvedWhatIf | undefined {
  let message = value;
  if (isRecord(value) && isRecord(value.awslogs)) {
    if (ports.decodeLogsSubscription === undefined)
      throw new CommandInputError('a CloudWatch Logs subscription event cannot be decoded in this build', {
        where,
      });
    try {
      message = ports.decodeLogsSubscription(value);
    } catch (error) {
      throw new CommandInputError(
        `not a usable CloudWatch Logs subscription event: ${error instanceof Error ? error.message : 'undecodable'}`,
        { where, cause: error },
      );
    }
  }
  let changes: AuditChange[];
  if (isRecord(message) && 'logEvents' in message) {
    const parsed = parseAuditSubscription(message);
    if (parsed.kind === 'ignored') return { kind: 'ignored', reason: parsed.reason };
    if (parsed.cluster !== snapshot.clusterName)
      throw new CommandInputError(
        `the audit log is of cluster ${parsed.cluster}, the snapshot is of cluster ${snapshot.clusterName}`,
        { where },
      );
    changes = parsed.changes;
    if (changes.length === 0) return { kind: 'ignored', reason: 'no aws-auth write in the audit log events' };
  } else if (isRecord(message) && message.apiVersion === 'audit.k8s.io/v1') {
    const parsed = parseAuditEvent(message, snapshot.clusterName);
    if (parsed.kind === 'ignored') return { kind: 'ignored', reason: parsed.reason };
    changes = [parsed.change];
  } else return undefined;
  // The last write of the batch is what aws-auth became.
  const write = changes[changes.length - 1] as AuditChange;
  const actor = write.actor === undefined ? {} : { actor: write.actor };
  if (write.observed.kind === 'object') {
    const { data, resourceVersion } = write.observed.configMap;
    return {
      kind: 'aws-auth',
      write,
      after: {
        status: 'ok',
        data: { data, ...(resourceVersion === undefined ? {} : { resourceVersion }), managedFields: [] },
      },
      ...actor,
    };
  }
  if (write.verb === 'delete')
    return { kind: 'aws-auth', write, after: { status: 'absent', reason: 'deleted (audit log)' }, ...actor };
  // Never a guess: the function reads aws-auth afresh here; a what-if has nothing to read.
  return {
    kind: 'ignored',
    reason: `the audit event carries no object (${write.observed.reason}): take a fresh snapshot and run assess`,
    ...actor,
  };
}

function have(names: readonly string[]): string {
  if (names.length === 0) return 'have: none';
  const shown = names.slice(0, 8).join(', ');
  return `have: ${shown}${names.length > 8 ? `, … ${names.length - 8} more` : ''}`;
}

function sourceData<T>(source: Source<T>, what: string, cluster: string): T {
  if (source.status === 'ok') return source.data;
  const why = source.status === 'error' ? `could not be read: ${source.error}` : (source.reason ?? 'absent');
  throw new CommandInputError(
    `cannot check the ${what} of cluster ${cluster}: the snapshot's ${what} ${why}`,
  );
}

async function resolveWhatIf(
  ports: CommandPorts,
  request: WhatIfRequest,
  snapshot: ClusterSnapshot,
  snapshotPath: string,
): Promise<ResolvedWhatIf> {
  const { files } = ports;
  const cluster = snapshot.clusterName;
  switch (request.option) {
    case 'delete-nodegroup': {
      const groups = sourceData(snapshot.nodegroups, 'node groups', cluster);
      const group = groups.find((g) => g.name === request.value);
      if (group === undefined) {
        throw new CommandInputError(
          `no node group ${request.value} in cluster ${cluster} (${have(groups.map((g) => g.name))})`,
          {
            where: snapshotPath,
          },
        );
      }
      return {
        kind: 'change',
        change: { kind: 'delete-nodegroup', nodegroupName: group.name, nodeRole: group.nodeRole },
      };
    }
    case 'delete-fargate-profile': {
      const profiles = sourceData(snapshot.fargateProfiles, 'Fargate profiles', cluster);
      const profile = profiles.find((p) => p.name === request.value);
      if (profile === undefined) {
        throw new CommandInputError(
          `no Fargate profile ${request.value} in cluster ${cluster} (${have(profiles.map((p) => p.name))})`,
          { where: snapshotPath },
        );
      }
      return {
        kind: 'change',
        change: {
          kind: 'delete-fargate-profile',
          fargateProfileName: profile.name,
          podExecutionRoleArn: profile.podExecutionRoleArn,
        },
      };
    }
    case 'delete-access-entry': {
      const entries = sourceData(snapshot.accessEntries, 'access entries', cluster);
      const key = principalKey(request.value);
      const entry = entries.find((e) => principalKey(e.principalArn) === key);
      if (entry === undefined) {
        throw new CommandInputError(
          `no access entry for ${request.value} in cluster ${cluster} (${have(entries.map((e) => e.principalArn))})`,
          { where: snapshotPath },
        );
      }
      return { kind: 'change', change: { kind: 'delete-access-entry', principalArn: entry.principalArn } };
    }
    case 'delete-role': {
      const role = roleRefOfArn(request.value.trim());
      if (role === undefined) {
        throw new CommandInputError(
          `--delete-role needs an IAM role ARN (arn:aws:iam::<account>:role/<name>), not '${request.value}'`,
        );
      }
      // A role nothing uses is an answer ("nothing uses it", exit 0), not bad input: the simulation says so.
      return { kind: 'change', change: { kind: 'delete-role', role } };
    }
    case 'auth-mode':
      return { kind: 'change', change: { kind: 'set-auth-mode', mode: request.value } };
    case 'event': {
      const eventFile = files.nameOf(request.value);
      const value = await files.loadJson(request.value);
      const audit = auditWriteOf(ports, value, snapshot, eventFile);
      if (audit !== undefined) return audit;
      const parsed = parseEksEvent(value);
      if (parsed.kind === 'invalid') {
        throw new CommandInputError(`not a usable EKS CloudTrail event: ${parsed.reason}`, {
          where: eventFile,
        });
      }
      if (parsed.kind === 'ignored') return { kind: 'ignored', reason: parsed.reason };
      if (parsed.kind === 'account-change') {
        // An IAM call names no cluster (and arrives from us-east-1): only the account must match.
        if (parsed.accountId !== snapshot.accountId) {
          throw new CommandInputError(
            `the event is from account ${parsed.accountId}, the snapshot is of account ${snapshot.accountId}`,
            { where: `${eventFile}, ${snapshotPath}` },
          );
        }
        return {
          kind: 'change',
          change: parsed.change,
          ...(parsed.by === undefined ? {} : { actor: parsed.by }),
        };
      }
      if (parsed.clusterName !== cluster) {
        throw new CommandInputError(
          `the event is for cluster ${parsed.clusterName}, the snapshot is of cluster ${cluster}`,
          {
            where: `${eventFile}, ${snapshotPath}`,
          },
        );
      }
      // A cluster name is unique only within one account and Region.
      for (const [what, event, ours] of [
        ['Region', parsed.region, snapshot.region],
        ['account', parsed.accountId, snapshot.accountId],
      ] as const) {
        if (event !== ours) {
          throw new CommandInputError(
            `the event is from ${what} ${event}, the snapshot is of ${what} ${ours}`,
            {
              where: `${eventFile}, ${snapshotPath}`,
            },
          );
        }
      }
      return {
        kind: 'change',
        change: parsed.change,
        ...(parsed.by === undefined ? {} : { actor: parsed.by }),
      };
    }
  }
}

export async function whatIfCommand(
  ports: CommandPorts,
  input: { source: SnapshotSource; request: WhatIfRequest },
): Promise<CommandResult> {
  const { snapshot, where } = await obtainSnapshot(ports, input.source);
  const resolved = await resolveWhatIf(ports, input.request, snapshot, where);
  if (resolved.kind === 'aws-auth') {
    const after: ClusterSnapshot = { ...snapshot, awsAuth: resolved.after };
    const findings = dedupeFixCommands(
      withActor(diffSnapshots(snapshot, after, { trigger: 'whatif' }), resolved.actor),
    );
    const rv =
      resolved.write.observed.kind === 'object'
        ? resolved.write.observed.configMap.resourceVersion
        : undefined;
    return {
      kind: 'findings',
      section: {
        title: 'What-if',
        cluster: clusterRefOf(snapshot),
        findings,
        change: `aws-auth ${resolved.write.verb ?? 'write'} (audit event ${resolved.write.auditId}${rv === undefined ? '' : `, resourceVersion ${rv}`})`,
        effects: [],
        ...(resolved.actor === undefined ? {} : { actor: resolved.actor }),
      },
      exit: findingsExit(findings),
    };
  }
  if (resolved.kind === 'ignored') {
    return {
      kind: 'event-ignored',
      reason: resolved.reason,
      exit: { severities: [], failOnDefault: 'none' },
    };
  }
  const result = whatIf(snapshot, resolved.change, { trigger: 'whatif' });
  const findings = dedupeFixCommands(withActor(result.findings, resolved.actor));
  return {
    kind: 'findings',
    section: {
      title: 'What-if',
      cluster: clusterRefOf(snapshot),
      findings,
      change: describeChange(resolved.change),
      effects: result.effects,
      ...(resolved.actor === undefined ? {} : { actor: resolved.actor }),
    },
    exit: findingsExit(findings),
  };
}
