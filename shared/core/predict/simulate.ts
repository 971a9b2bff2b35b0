/**
 * EKS's documented side effects of a change, applied to a snapshot
 * (docs/eks-auth-semantics.md#what-eks-writes-and-deletes,
 * docs/eks-auth-semantics.md#authentication-modes). Where the facts are unconfirmed
 * (docs/eks-auth-semantics.md#unconfirmed) the simulation takes the reading that loses more
 * access, and marks the effect `assumed`.
 */
import { SentinelError } from '../../errors.ts';
import { principalKey, roleArnWithoutPath } from '../access/principal.ts';
import {
  FARGATE_GROUPS,
  NODE_GROUPS,
  NODE_USERNAME,
  SESSION_NODE_USERNAME,
  WINDOWS_NODE_GROUPS,
} from '../access/resolve.ts';
import { refusedEntryArn, roleArnIndex } from '../access/role-arn.ts';
import type { ParsedAwsAuth } from '../aws-auth/index.ts';
import type { AccessEntry, AuthenticationMode, ClusterSnapshot, Nodegroup } from '../model.ts';
import {
  isWorkloadIdentityChange,
  simulateWorkloadIdentityChange,
} from '../workload-identity/simulate-workload-identity.ts';
import type { Change } from './change.ts';
import {
  type AwsAuthEdit,
  addAwsAuthEntry,
  type MapRolesDraft,
  removeFromMapRoles,
} from './map-roles-edit.ts';
import { MODE_SWITCH_BACK_FILL } from './mode-switch-back-fill.ts';
import { simulateCaChange } from './simulate-certificate-authority.ts';

export interface SimulationEffect {
  summary: string;
  /** True where the facts do not confirm EKS does this and the engine assumes the worse case. */
  assumed: boolean;
  /** A plan change whose values are known only after apply: not simulated, so not in the findings. */
  unknown?: true;
}

export interface Simulation {
  after: ClusterSnapshot;
  effects: SimulationEffect[];
  /** Roles (principalKey) EKS removes from aws-auth as part of the change. */
  removedFromAwsAuth: string[];
  /**
   * The parse of `after`'s aws-auth (an ok source), when known without parsing its text: the
   * parse handed in when the change left aws-auth as it was, the edited mappings when EKS rewrote
   * mapRoles (`encodeMapRoles`). Undefined otherwise (with a draft, or an edit only a parse of the
   * written text can tell): an analysis then parses the text.
   */
  awsAuth?: ParsedAwsAuth;
}

export interface SimulateOptions {
  /** The parse of the input snapshot's aws-auth (an ok source), so that the simulation does not parse it again. */
  awsAuth?: ParsedAwsAuth;
  /** mapRoles edits go into this draft instead of the text (see `MapRolesDraft`). */
  draft?: MapRolesDraft;
}

export class SimulationError extends SentinelError {
  override readonly name = 'SimulationError';
  readonly code = 'invalid-change';
}

const MODE_ORDER: Record<AuthenticationMode, number> = { CONFIG_MAP: 0, API_AND_CONFIG_MAP: 1, API: 2 };

/** Managed node groups other than `name` that use the role (EKS's only test before removing it). */
export function otherManagedNodegroupsUsing(
  snapshot: ClusterSnapshot,
  name: string,
  roleArn: string,
): Nodegroup[] {
  if (snapshot.nodegroups.status !== 'ok') return [];
  const key = principalKey(roleArn);
  return snapshot.nodegroups.data.filter(
    (ng) => ng.name !== name && principalKey(ng.nodeRole) === key && !ng.status.startsWith('DELET'),
  );
}

function addAccessEntry(s: ClusterSnapshot, entry: AccessEntry): boolean {
  if (s.cluster.authenticationMode === 'CONFIG_MAP' || s.accessEntries.status === 'error') return false;
  const list = s.accessEntries.status === 'ok' ? s.accessEntries.data : [];
  const key = principalKey(entry.principalArn);
  if (list.some((e) => principalKey(e.principalArn) === key)) return false;
  s.accessEntries = { status: 'ok', data: [...list, entry] };
  return true;
}

function simulation(
  after: ClusterSnapshot,
  effects: SimulationEffect[],
  removedFromAwsAuth: string[],
  edits: AwsAuthEdit,
): Simulation {
  const sim = { after, effects, removedFromAwsAuth };
  return edits.awsAuth === undefined || after.awsAuth.status !== 'ok'
    ? sim
    : { ...sim, awsAuth: edits.awsAuth };
}

/**
 * Applies `change` to a copy of `snapshot`. With `options.draft`, its mapRoles edits go into the
 * draft (see `MapRolesDraft`), which must then be written (`writeDraft`) before the result's
 * aws-auth is read.
 */
export function simulateChange(
  snapshot: ClusterSnapshot,
  change: Change,
  options: SimulateOptions = {},
): Simulation {
  const edits: AwsAuthEdit = { ...options };
  // A shallow copy: every case below replaces the top-level fields it changes, never edits inside
  // them, so the 5,000-node lists etc. are shared with `snapshot` instead of copied per change.
  const s: ClusterSnapshot = { ...snapshot };
  const effects: SimulationEffect[] = [];
  const removed: string[] = [];
  const mode = s.cluster.authenticationMode;
  const effect = (summary: string, assumed = false) => effects.push({ summary, assumed });

  if (isWorkloadIdentityChange(change)) {
    simulateWorkloadIdentityChange(s, change, effect, edits.awsAuth);
    return simulation(s, effects, removed, edits);
  }
  switch (change.kind) {
    case 'delete-nodegroup': {
      const ng =
        s.nodegroups.status === 'ok'
          ? s.nodegroups.data.find((n) => n.name === change.nodegroupName)
          : undefined;
      const roleArn = ng?.nodeRole ?? change.nodeRole;
      if (!ng && s.nodegroups.status === 'ok' && !roleArn) {
        throw new SimulationError(`no node group ${change.nodegroupName} in cluster ${s.clusterName}`);
      }
      if (s.nodegroups.status === 'ok') {
        s.nodegroups = {
          status: 'ok',
          data: s.nodegroups.data.filter((n) => n.name !== change.nodegroupName),
        };
      }
      if (s.compute.status === 'ok') {
        const before = s.compute.data.length;
        s.compute = {
          status: 'ok',
          data: s.compute.data.filter((n) => !(n.kind === 'managed' && n.nodegroup === change.nodegroupName)),
        };
        effect(
          `EKS drains and terminates the ${before - s.compute.data.length} node(s) of ${change.nodegroupName}`,
        );
      }
      if (!roleArn) break;
      const others = otherManagedNodegroupsUsing(snapshot, change.nodegroupName, roleArn);
      if (others.length > 0) {
        effect(
          `EKS keeps ${roleArn} in aws-auth: managed node group(s) ${others.map((o) => o.name).join(', ')} still use it`,
        );
      } else if (mode !== 'API') {
        const key = principalKey(roleArn);
        const { edited, count } = removeFromMapRoles(s, key, edits);
        if (edited && count > 0) {
          removed.push(key);
          effect(
            `EKS removes ${roleArn} from aws-auth (${count} entr${count === 1 ? 'y' : 'ies'}): no other managed node group uses it — at an undocumented moment during the deletion, assume any time from now`,
          );
        } else if (s.awsAuth.status === 'ok' && !edited) {
          effect(
            'aws-auth mapRoles does not parse: EKS may fail the deletion with AccessDenied ("aws-auth ConfigMap … is invalid")',
            true,
          );
        }
      }
      if (mode !== 'CONFIG_MAP') effect("EKS does not delete the node group's access entry (if one exists)");
      break;
    }
    case 'create-nodegroup': {
      const list = s.nodegroups.status === 'ok' ? s.nodegroups.data : [];
      const windows = change.amiType?.toUpperCase().includes('WINDOWS') ?? false;
      s.nodegroups = {
        status: 'ok',
        data: [
          ...list,
          {
            name: change.nodegroupName,
            status: 'CREATING',
            nodeRole: change.nodeRole,
            ...(change.amiType ? { amiType: change.amiType } : {}),
            healthIssues: [],
          },
        ],
      };
      if (
        mode !== 'API' &&
        addAwsAuthEntry(
          s,
          {
            rolearn: roleArnWithoutPath(change.nodeRole),
            username: NODE_USERNAME,
            groups: windows ? [...WINDOWS_NODE_GROUPS] : [...NODE_GROUPS],
          },
          edits,
        )
      ) {
        effect(`EKS adds ${change.nodeRole} to aws-auth mapRoles`);
      }
      if (
        mode !== 'CONFIG_MAP' &&
        addAccessEntry(s, {
          principalArn: change.nodeRole,
          type: windows ? 'EC2_WINDOWS' : 'EC2_LINUX',
          kubernetesGroups: [],
          accessPolicies: [],
        })
      ) {
        effect(`EKS creates an ${windows ? 'EC2_WINDOWS' : 'EC2_LINUX'} access entry for ${change.nodeRole}`);
      }
      break;
    }
    case 'create-fargate-profile': {
      const list = s.fargateProfiles.status === 'ok' ? s.fargateProfiles.data : [];
      s.fargateProfiles = {
        status: 'ok',
        data: [
          ...list,
          {
            name: change.fargateProfileName,
            status: 'CREATING',
            podExecutionRoleArn: change.podExecutionRoleArn,
            selectors: [],
          },
        ],
      };
      if (
        mode !== 'API' &&
        addAwsAuthEntry(
          s,
          {
            rolearn: roleArnWithoutPath(change.podExecutionRoleArn),
            username: SESSION_NODE_USERNAME,
            groups: [...FARGATE_GROUPS],
          },
          edits,
        )
      ) {
        effect(`EKS adds ${change.podExecutionRoleArn} to aws-auth mapRoles (system:node:{{SessionName}})`);
      }
      if (
        mode !== 'CONFIG_MAP' &&
        addAccessEntry(s, {
          principalArn: change.podExecutionRoleArn,
          type: 'FARGATE_LINUX',
          kubernetesGroups: [],
          accessPolicies: [],
        })
      ) {
        effect(`EKS creates a FARGATE_LINUX access entry for ${change.podExecutionRoleArn}`);
      }
      break;
    }
    case 'delete-fargate-profile': {
      const fp =
        s.fargateProfiles.status === 'ok'
          ? s.fargateProfiles.data.find((p) => p.name === change.fargateProfileName)
          : undefined;
      const roleArn = fp?.podExecutionRoleArn ?? change.podExecutionRoleArn;
      if (s.fargateProfiles.status === 'ok') {
        s.fargateProfiles = {
          status: 'ok',
          data: s.fargateProfiles.data.filter((p) => p.name !== change.fargateProfileName),
        };
      }
      if (s.compute.status === 'ok') {
        s.compute = {
          status: 'ok',
          data: s.compute.data.filter(
            (n) => !(n.kind === 'fargate' && n.fargateProfile === change.fargateProfileName),
          ),
        };
      }
      effect(
        `Pods scheduled by ${change.fargateProfileName} are deleted; they are rescheduled only if another profile matches`,
      );
      if (!roleArn || mode === 'API') break;
      const key = principalKey(roleArn);
      const othersUse =
        s.fargateProfiles.status === 'ok' &&
        s.fargateProfiles.data.some((p) => principalKey(p.podExecutionRoleArn) === key);
      if (!othersUse) {
        const { count } = removeFromMapRoles(s, key, edits);
        if (count > 0) {
          removed.push(key);
          effect(`EKS may remove ${roleArn} from aws-auth (undocumented; assumed, as for node groups)`, true);
        }
      }
      break;
    }
    case 'create-access-entry': {
      if (mode === 'CONFIG_MAP') {
        effect('EKS rejects the call: access entries need API or API_AND_CONFIG_MAP mode');
        break;
      }
      // The role's ARN without (or with another) IAM path names no role: EKS answers 400.
      const real = refusedEntryArn(roleArnIndex(s), change.entry.principalArn);
      if (real !== undefined) {
        effect(
          `EKS rejects the call (InvalidParameterException: the principal ARN is invalid): the role's ARN is ${real}, IAM path included`,
        );
        break;
      }
      if (addAccessEntry(s, change.entry))
        effect(
          `Access entry ${change.entry.type} for ${change.entry.principalArn} takes effect within seconds`,
        );
      break;
    }
    case 'update-access-entry':
    case 'delete-access-entry':
    case 'associate-access-policy':
    case 'disassociate-access-policy': {
      if (s.accessEntries.status !== 'ok') {
        effect('access entries could not be read: the effect is unknown', true);
        break;
      }
      const key = principalKey(change.principalArn);
      const entries = s.accessEntries.data;
      const found = entries.find((e) => principalKey(e.principalArn) === key);
      if (!found) {
        effect(`no access entry for ${change.principalArn}: EKS answers ResourceNotFoundException`);
        break;
      }
      let next: AccessEntry[];
      if (change.kind === 'delete-access-entry') {
        next = entries.filter((e) => e !== found);
        effect(
          `The access entry for ${change.principalArn} and its ${found.accessPolicies.length} policy association(s) are deleted`,
        );
      } else if (change.kind === 'update-access-entry') {
        next = entries.map((e) =>
          e === found
            ? {
                ...e,
                ...(change.username !== undefined ? { username: change.username } : {}),
                ...(change.kubernetesGroups !== undefined
                  ? { kubernetesGroups: change.kubernetesGroups }
                  : {}),
              }
            : e,
        );
        effect(`The access entry for ${change.principalArn} is updated`);
      } else if (change.kind === 'associate-access-policy') {
        next = entries.map((e) =>
          e === found
            ? {
                ...e,
                accessPolicies: [
                  ...e.accessPolicies.filter((p) => p.policyArn !== change.policy.policyArn),
                  change.policy,
                ],
              }
            : e,
        );
        effect(
          `${change.policy.policyArn} is associated with ${change.principalArn} (${change.policy.accessScope.type} scope)`,
        );
      } else {
        next = entries.map((e) =>
          e === found
            ? { ...e, accessPolicies: e.accessPolicies.filter((p) => p.policyArn !== change.policyArn) }
            : e,
        );
        effect(`${change.policyArn} is disassociated from ${change.principalArn}`);
      }
      s.accessEntries = { status: 'ok', data: next };
      break;
    }
    case 'set-auth-mode': {
      const from = mode;
      if (change.mode === from) {
        effect(`The cluster already runs in ${from} mode: nothing changes`);
        break;
      }
      if (MODE_ORDER[change.mode] < MODE_ORDER[from]) {
        effect(`EKS rejects ${from} → ${change.mode}: authentication mode changes are one-way`);
        break;
      }
      if (from === 'CONFIG_MAP' && change.mode === 'API') {
        effect(
          'A direct CONFIG_MAP → API switch may be rejected by EKS (unconfirmed); simulated as accepted',
          true,
        );
      }
      s.cluster = { ...s.cluster, authenticationMode: change.mode };
      if (from === 'CONFIG_MAP') {
        if (s.accessEntries.status === 'absent') s.accessEntries = { status: 'ok', data: [] };
        effect(
          `Access entries become available; existing node groups and Fargate profiles get none. Assumed ${MODE_SWITCH_BACK_FILL.assumed} Not assumed: ${MODE_SWITCH_BACK_FILL.other}`,
          true,
        );
      }
      if (change.mode === 'API')
        effect('aws-auth is ignored from now on; only access entries authenticate. This cannot be undone.');
      else
        effect('Access entries take precedence over aws-auth for the same principal; aws-auth keeps working');
      break;
    }
    case 'create-certificate-authority':
    case 'activate-certificate-authority':
      simulateCaChange(s, change, effect);
      break;
  }
  return simulation(s, effects, removed, edits);
}
