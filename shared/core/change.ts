/**
 * A change to a cluster's authentication or compute: from a CloudTrail record (an API call that
 * just happened) or from a what-if question. `simulateChange` (simulate.ts) applies it to a
 * snapshot with EKS's documented side effects; `hasSettled` tells when a later snapshot shows it
 * done; `deletionChanges` lists the deletions a report asks "what if" about.
 */
import type { AccessEntry, AssociatedAccessPolicy, AuthenticationMode, ClusterSnapshot } from './model.ts';
import { principalKey } from './principal.ts';

export type Change =
  | {
      kind: 'delete-nodegroup';
      nodegroupName: string;
      /** From DeleteNodegroup's response, when known. */
      nodeRole?: string;
    }
  | { kind: 'create-nodegroup'; nodegroupName: string; nodeRole: string; amiType?: string }
  | { kind: 'create-fargate-profile'; fargateProfileName: string; podExecutionRoleArn: string }
  | { kind: 'delete-fargate-profile'; fargateProfileName: string; podExecutionRoleArn?: string }
  | { kind: 'create-access-entry'; entry: AccessEntry }
  | {
      kind: 'update-access-entry';
      principalArn: string;
      username?: string;
      kubernetesGroups?: string[];
    }
  | { kind: 'delete-access-entry'; principalArn: string }
  | { kind: 'associate-access-policy'; principalArn: string; policy: AssociatedAccessPolicy }
  | { kind: 'disassociate-access-policy'; principalArn: string; policyArn: string }
  | { kind: 'set-auth-mode'; mode: AuthenticationMode };

export type ChangeKind = Change['kind'];

/** A human label for a change, e.g. `DeleteNodegroup ng-1`. */
export function describeChange(change: Change): string {
  switch (change.kind) {
    case 'delete-nodegroup':
      return `delete node group ${change.nodegroupName}`;
    case 'create-nodegroup':
      return `create node group ${change.nodegroupName}`;
    case 'create-fargate-profile':
      return `create Fargate profile ${change.fargateProfileName}`;
    case 'delete-fargate-profile':
      return `delete Fargate profile ${change.fargateProfileName}`;
    case 'create-access-entry':
      return `create access entry ${change.entry.principalArn}`;
    case 'update-access-entry':
      return `update access entry ${change.principalArn}`;
    case 'delete-access-entry':
      return `delete access entry ${change.principalArn}`;
    case 'associate-access-policy':
      return `associate ${change.policy.policyArn} with ${change.principalArn}`;
    case 'disassociate-access-policy':
      return `disassociate ${change.policyArn} from ${change.principalArn}`;
    case 'set-auth-mode':
      return `switch authentication mode to ${change.mode}`;
  }
}

/**
 * Every node group and Fargate profile deletion of a snapshot, as what-if changes (only of the
 * sources that were read): "who would lose access if I delete X?".
 */
export function deletionChanges(s: ClusterSnapshot): Change[] {
  const changes: Change[] = [];
  if (s.nodegroups.status === 'ok') {
    for (const ng of s.nodegroups.data)
      changes.push({ kind: 'delete-nodegroup', nodegroupName: ng.name, nodeRole: ng.nodeRole });
  }
  if (s.fargateProfiles.status === 'ok') {
    for (const fp of s.fargateProfiles.data) {
      changes.push({
        kind: 'delete-fargate-profile',
        fargateProfileName: fp.name,
        podExecutionRoleArn: fp.podExecutionRoleArn,
      });
    }
  }
  return changes;
}

const FAILED = /_FAILED$/;

/**
 * Has the change of a CloudTrail event settled in `s`? Node group gone (or its deletion
 * failed); node group / Fargate profile ACTIVE (or failed, or gone); access entry change visible;
 * cluster ACTIVE in the new mode. A source that could not be read is never "settled".
 */
export function hasSettled(change: Change, s: ClusterSnapshot): boolean {
  const nodegroup = (name: string) =>
    s.nodegroups.status === 'ok'
      ? { known: true, ng: s.nodegroups.data.find((n) => n.name === name) }
      : { known: false };
  const profile = (name: string) =>
    s.fargateProfiles.status === 'ok'
      ? { known: true, fp: s.fargateProfiles.data.find((p) => p.name === name) }
      : { known: false };
  const entry = (arn: string) => {
    if (s.accessEntries.status === 'absent') return { known: true, entry: undefined };
    if (s.accessEntries.status !== 'ok') return { known: false, entry: undefined };
    const key = principalKey(arn);
    return { known: true, entry: s.accessEntries.data.find((e) => principalKey(e.principalArn) === key) };
  };
  switch (change.kind) {
    case 'delete-nodegroup': {
      const r = nodegroup(change.nodegroupName);
      return r.known && (r.ng === undefined || FAILED.test(r.ng.status));
    }
    case 'create-nodegroup': {
      const r = nodegroup(change.nodegroupName);
      return r.known && (r.ng === undefined || r.ng.status === 'ACTIVE' || FAILED.test(r.ng.status));
    }
    case 'create-fargate-profile': {
      const r = profile(change.fargateProfileName);
      return r.known && (r.fp === undefined || r.fp.status === 'ACTIVE' || FAILED.test(r.fp.status));
    }
    case 'delete-fargate-profile': {
      const r = profile(change.fargateProfileName);
      return r.known && (r.fp === undefined || FAILED.test(r.fp.status));
    }
    case 'create-access-entry': {
      const r = entry(change.entry.principalArn);
      return r.known && (r.entry !== undefined || s.accessEntries.status === 'absent');
    }
    case 'delete-access-entry': {
      const r = entry(change.principalArn);
      return r.known && r.entry === undefined;
    }
    case 'update-access-entry': {
      const r = entry(change.principalArn);
      if (!r.known) return false;
      if (r.entry === undefined) return true;
      const sameGroups =
        change.kubernetesGroups === undefined ||
        [...change.kubernetesGroups].sort().join('\n') === [...r.entry.kubernetesGroups].sort().join('\n');
      const sameUser = change.username === undefined || change.username === r.entry.username;
      return sameGroups && sameUser;
    }
    case 'associate-access-policy': {
      const r = entry(change.principalArn);
      return (
        r.known &&
        (r.entry === undefined || r.entry.accessPolicies.some((p) => p.policyArn === change.policy.policyArn))
      );
    }
    case 'disassociate-access-policy': {
      const r = entry(change.principalArn);
      return (
        r.known &&
        (r.entry === undefined || !r.entry.accessPolicies.some((p) => p.policyArn === change.policyArn))
      );
    }
    case 'set-auth-mode':
      return s.cluster.authenticationMode === change.mode && s.cluster.status === 'ACTIVE';
  }
}
