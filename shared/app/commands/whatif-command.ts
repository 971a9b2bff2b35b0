/**
 * Use case of `whatif` with one change: the change option turned into a `Change`, checked against
 * the snapshot, then simulated. A node group, Fargate profile or access entry that is not there is
 * a usage error, not an empty simulation. A role is different: it lives in IAM, not in the
 * cluster, so one nothing uses is a real answer. An EKS CloudTrail event that changes nothing
 * authentication depends on is an answer too (`event-ignored`).
 */
import { principalKey } from '../../core/access/index.ts';
import { parseEksEvent } from '../../core/events/index.ts';
import { dedupeFixCommands } from '../../core/fixes/index.ts';
import {
  type Actor,
  type AuthenticationMode,
  type ClusterSnapshot,
  clusterRefOf,
  type Source,
  withActor,
} from '../../core/model.ts';
import { type Change, describeChange, roleRefOfArn, whatIf } from '../../core/predict/index.ts';
import type { CommandResult } from '../../core/render/index.ts';
import { CommandInputError } from '../errors.ts';
import {
  type CommandFiles,
  type CommandPorts,
  findingsExit,
  obtainSnapshot,
  type SnapshotSource,
} from './command-inputs.ts';

/** The change `whatif` simulates, as its option gave it. */
export type WhatIfRequest =
  | { option: 'delete-nodegroup'; value: string }
  | { option: 'delete-fargate-profile'; value: string }
  | { option: 'delete-access-entry'; value: string }
  | { option: 'delete-role'; value: string }
  | { option: 'auth-mode'; value: AuthenticationMode }
  | { option: 'event'; value: string };

type ResolvedWhatIf = { kind: 'change'; change: Change; actor?: Actor } | { kind: 'ignored'; reason: string };

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
  files: CommandFiles,
  request: WhatIfRequest,
  snapshot: ClusterSnapshot,
  snapshotPath: string,
): Promise<ResolvedWhatIf> {
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
      const parsed = parseEksEvent(await files.loadJson(request.value));
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
  const resolved = await resolveWhatIf(ports.files, input.request, snapshot, where);
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
    },
    exit: findingsExit(findings),
  };
}
