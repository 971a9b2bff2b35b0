/**
 * A change to a cluster's authentication or compute: from a CloudTrail record (an API call that
 * just happened) or from a what-if question. `simulateChange` (simulate.ts) applies it to a
 * snapshot with EKS's documented side effects; `hasSettled` tells when a later snapshot shows it
 * done; `deletionChanges` lists the deletions a report asks "what if" about.
 */

import { parseArn, principalKey, roleNameOf } from '../access/principal.ts';
import type {
  AccessEntry,
  AssociatedAccessPolicy,
  AuthenticationMode,
  ClusterSnapshot,
  PodIdentityAssociation,
} from '../model.ts';

/**
 * An IAM role as IAM's own write calls name it: by name within an account. A CloudTrail record of
 * `DeleteRole` or `UpdateAssumeRolePolicy` carries `roleName` only, never the role's path, so a
 * role is matched by account + name (role names are unique per account, case-insensitively).
 */
export interface RoleRef {
  accountId: string;
  roleName: string;
}

/** The account and name of an IAM role ARN (any path), or undefined when `arn` is not one. */
export function roleRefOfArn(arn: string): RoleRef | undefined {
  const parsed = parseArn(arn);
  if (parsed === undefined || parsed.service !== 'iam' || !parsed.resource.startsWith('role/'))
    return undefined;
  const roleName = roleNameOf(arn);
  if (roleName === undefined || !/^\d{12}$/.test(parsed.account)) return undefined;
  return { accountId: parsed.account, roleName };
}

/** Does the role ARN `arn` name the role `ref` (same account, same name, any path)? */
export function roleMatches(arn: string, ref: RoleRef): boolean {
  const parts = roleRefOfArn(arn);
  return (
    parts !== undefined &&
    parts.accountId === ref.accountId &&
    parts.roleName.toLowerCase() === ref.roleName.toLowerCase()
  );
}

/** The EKS add-on Pod Identity needs on the cluster. */
export const POD_IDENTITY_AGENT_ADDON = 'eks-pod-identity-agent';

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
  | { kind: 'set-auth-mode'; mode: AuthenticationMode }
  /** CreateCertificateAuthority: a successor CA (its ID from the response, when known). */
  | { kind: 'create-certificate-authority'; certificateAuthorityId?: string }
  /** ActivateCertificateAuthority: the successor starts signing. */
  | { kind: 'activate-certificate-authority'; certificateAuthorityId: string }
  // Workload identity (Pod Identity, IRSA): EKS calls carry the cluster, IAM calls only the account.
  | { kind: 'create-pod-identity-association'; association: PodIdentityAssociation }
  | {
      kind: 'update-pod-identity-association';
      associationId: string;
      /** Only what the call set; absent fields keep their value. */
      roleArn?: string;
      targetRoleArn?: string;
      /** The target hop's external ID as the response reports it, when known. */
      externalId?: string;
      disableSessionTags?: boolean;
    }
  | {
      kind: 'delete-pod-identity-association';
      associationId: string;
      /** From DeletePodIdentityAssociation's response, when known. */
      association?: PodIdentityAssociation;
    }
  | { kind: 'update-addon'; addonName: string; addonVersion?: string }
  | { kind: 'delete-addon'; addonName: string }
  | { kind: 'delete-role'; role: RoleRef }
  /** UpdateAssumeRolePolicy: the new trust policy as JSON text (URL-decoded; attacker-written). */
  | { kind: 'update-role-trust'; role: RoleRef; trustPolicy: string }
  /** DetachRolePolicy: a managed policy taken off a role (node roles: AmazonEKSWorkerNodePolicy). */
  | { kind: 'detach-role-policy'; role: RoleRef; policyArn: string }
  /** DeleteRolePolicy: an inline policy deleted from a role. */
  | { kind: 'delete-role-policy'; role: RoleRef; policyName: string }
  | { kind: 'delete-oidc-provider'; providerArn: string };

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
    case 'create-certificate-authority':
      return `create successor CA${change.certificateAuthorityId === undefined ? '' : ` ${change.certificateAuthorityId}`}`;
    case 'activate-certificate-authority':
      return `activate CA ${change.certificateAuthorityId}`;
    case 'create-pod-identity-association':
      return `create Pod Identity association ${change.association.namespace}/${change.association.serviceAccount} → ${change.association.roleArn}`;
    case 'update-pod-identity-association':
      return `update Pod Identity association ${change.associationId}`;
    case 'delete-pod-identity-association':
      return change.association === undefined
        ? `delete Pod Identity association ${change.associationId}`
        : `delete Pod Identity association ${change.association.namespace}/${change.association.serviceAccount}`;
    case 'update-addon':
      return `update add-on ${change.addonName}`;
    case 'delete-addon':
      return `delete add-on ${change.addonName}`;
    case 'delete-role':
      return `delete IAM role ${change.role.roleName}`;
    case 'update-role-trust':
      return `rewrite the trust policy of IAM role ${change.role.roleName}`;
    case 'detach-role-policy':
      return `detach ${change.policyArn} from IAM role ${change.role.roleName}`;
    case 'delete-role-policy':
      return `delete inline policy ${change.policyName} of IAM role ${change.role.roleName}`;
    case 'delete-oidc-provider':
      return `delete IAM OIDC provider ${change.providerArn}`;
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
    case 'create-certificate-authority':
    case 'activate-certificate-authority': {
      const cas = s.certificateAuthorities;
      if (cas === undefined || cas.status === 'absent') return true;
      if (cas.status !== 'ok') return false;
      if (change.kind === 'create-certificate-authority')
        return cas.data.some((c) => c.signingStatus === 'NOT_USED' && c.distributionStatus !== 'IN_PROGRESS');
      return cas.data.some((c) => c.id === change.certificateAuthorityId && c.signingStatus === 'IN_USE');
    }
    case 'create-pod-identity-association':
    case 'update-pod-identity-association':
    case 'delete-pod-identity-association':
      return associationSettled(change, s);
    case 'update-addon':
    case 'delete-addon': {
      if (s.addons?.status === 'absent') return true;
      if (s.addons?.status !== 'ok') return false;
      const addon = s.addons.data.find((a) => a.name === change.addonName);
      if (addon === undefined) return true;
      if (change.kind === 'delete-addon') return FAILED.test(addon.status ?? '');
      return addon.status !== undefined && addon.status !== 'UPDATING';
    }
    case 'delete-role':
    case 'update-role-trust': {
      // IAM applies at once (eventually consistent within seconds): settled once the roles were read.
      if (s.iamRoles.status !== 'ok') return false;
      const role = change.role;
      const found = s.iamRoles.data.find((r) => roleMatches(r.arn, role));
      if (change.kind === 'delete-role') return found === undefined || found.state === 'missing';
      return found === undefined || found.state === 'missing' || found.trustPolicy !== undefined;
    }
    case 'detach-role-policy':
    case 'delete-role-policy':
      // SimulatePrincipalPolicy of the next capture evaluates the role's policies as they are now.
      return s.nodeRolePermissions?.status === 'ok' || s.nodeRolePermissions?.status === 'absent';
    case 'delete-oidc-provider':
      return (
        s.oidcProviders?.status === 'ok' && !s.oidcProviders.data.some((p) => p.arn === change.providerArn)
      );
  }
}

function associationSettled(
  change: Extract<
    Change,
    {
      kind:
        | 'create-pod-identity-association'
        | 'update-pod-identity-association'
        | 'delete-pod-identity-association';
    }
  >,
  s: ClusterSnapshot,
): boolean {
  const source = s.podIdentityAssociations;
  if (source?.status !== 'ok') return false;
  switch (change.kind) {
    case 'create-pod-identity-association': {
      const a = change.association;
      return source.data.some(
        (x) =>
          x.associationId === a.associationId ||
          (x.namespace === a.namespace && x.serviceAccount === a.serviceAccount),
      );
    }
    case 'update-pod-identity-association': {
      const found = source.data.find((x) => x.associationId === change.associationId);
      return (
        found === undefined ||
        ((change.roleArn === undefined || found.roleArn === change.roleArn) &&
          (change.targetRoleArn === undefined || found.targetRoleArn === change.targetRoleArn))
      );
    }
    case 'delete-pod-identity-association':
      return !source.data.some((x) => x.associationId === change.associationId);
  }
}
