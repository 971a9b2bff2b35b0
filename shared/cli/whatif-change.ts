/**
 * Turns `whatif`'s change option into a `Change`, checked against the snapshot: a node group,
 * Fargate profile or access entry that is not there is a usage error, not an empty simulation. A
 * role is different: it lives in IAM, not in the cluster, so one nothing uses is a real answer.
 */

import { principalKey } from '../core/access/index.ts';
import { parseEksEvent } from '../core/events/index.ts';
import type { Actor, ClusterSnapshot, Source } from '../core/model.ts';
import { type Change, roleRefOfArn } from '../core/predict/index.ts';
import type { WhatIfRequest } from './args.ts';
import { CliError } from './errors.ts';
import { inputName, loadJsonFile } from './inputs.ts';
import type { CliIo } from './io.ts';

export type ResolvedWhatIf =
  | { kind: 'change'; change: Change; actor?: Actor }
  | { kind: 'ignored'; reason: string };

function have(names: readonly string[]): string {
  if (names.length === 0) return 'have: none';
  const shown = names.slice(0, 8).join(', ');
  return `have: ${shown}${names.length > 8 ? `, … ${names.length - 8} more` : ''}`;
}

function sourceData<T>(source: Source<T>, what: string, cluster: string): T {
  if (source.status === 'ok') return source.data;
  const why = source.status === 'error' ? `could not be read: ${source.error}` : (source.reason ?? 'absent');
  throw new CliError(`cannot check the ${what} of cluster ${cluster}: the snapshot's ${what} ${why}`);
}

export async function resolveWhatIf(
  io: CliIo,
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
        throw new CliError(
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
        throw new CliError(
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
        throw new CliError(
          `no access entry for ${request.value} in cluster ${cluster} (${have(entries.map((e) => e.principalArn))})`,
          { where: snapshotPath },
        );
      }
      return { kind: 'change', change: { kind: 'delete-access-entry', principalArn: entry.principalArn } };
    }
    case 'delete-role': {
      const role = roleRefOfArn(request.value.trim());
      if (role === undefined) {
        throw new CliError(
          `--delete-role needs an IAM role ARN (arn:aws:iam::<account>:role/<name>), not '${request.value}'`,
        );
      }
      // A role nothing uses is an answer ("nothing uses it", exit 0), not bad input: the simulation says so.
      return { kind: 'change', change: { kind: 'delete-role', role } };
    }
    case 'auth-mode':
      return { kind: 'change', change: { kind: 'set-auth-mode', mode: request.value } };
    case 'event': {
      const eventFile = inputName(request.value);
      const parsed = parseEksEvent(await loadJsonFile(io, request.value));
      if (parsed.kind === 'invalid') {
        throw new CliError(`not a usable EKS CloudTrail event: ${parsed.reason}`, {
          where: eventFile,
        });
      }
      if (parsed.kind === 'ignored') return { kind: 'ignored', reason: parsed.reason };
      if (parsed.kind === 'account-change') {
        // An IAM call names no cluster (and arrives from us-east-1): only the account must match.
        if (parsed.accountId !== snapshot.accountId) {
          throw new CliError(
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
        throw new CliError(
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
          throw new CliError(`the event is from ${what} ${event}, the snapshot is of ${what} ${ours}`, {
            where: `${eventFile}, ${snapshotPath}`,
          });
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
