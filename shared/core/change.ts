/**
 * A change to a cluster's authentication or compute: from a CloudTrail record (an API call that
 * just happened) or from a what-if question. `simulateChange` (simulate.ts) applies it to a
 * snapshot with EKS's documented side effects.
 */
import type { AccessEntry, AssociatedAccessPolicy, AuthenticationMode } from './model.ts';

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
