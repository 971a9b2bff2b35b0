/**
 * What the workload-identity changes (Pod Identity associations, the agent add-on, IAM roles,
 * their trust and permission policies, IAM OIDC providers) do to a snapshot. EKS applies an
 * association change within seconds (eventually consistent); IAM applies at once, and pods lose
 * their credentials at the next refresh, not at the call. Where the snapshot cannot tell (which
 * policy granted `eks-auth:AssumeRoleForPodIdentity`), the simulation takes the reading that loses
 * more access and marks it `assumed`, as simulate.ts does.
 */

import { type ParsedAwsAuth, parseAwsAuthShared } from '../aws-auth/index.ts';
import type { ClusterSnapshot, PodIdentityAssociation } from '../model.ts';
import { type Change, POD_IDENTITY_AGENT_ADDON, roleMatches } from '../predict/change.ts';
import { roleArnsInUse } from './identity.ts';

export type WorkloadIdentityChange = Extract<
  Change,
  {
    kind:
      | 'create-pod-identity-association'
      | 'update-pod-identity-association'
      | 'delete-pod-identity-association'
      | 'update-addon'
      | 'delete-addon'
      | 'delete-role'
      | 'update-role-trust'
      | 'detach-role-policy'
      | 'delete-role-policy'
      | 'delete-oidc-provider';
  }
>;

/** The managed policy that grants node roles `eks-auth:AssumeRoleForPodIdentity`. */
export const WORKER_NODE_POLICY_NAME = 'AmazonEKSWorkerNodePolicy';
export const ASSUME_ROLE_FOR_POD_IDENTITY = 'eks-auth:AssumeRoleForPodIdentity';

type Effect = (summary: string, assumed?: boolean) => void;

const WORKLOAD_KINDS: ReadonlySet<string> = new Set<WorkloadIdentityChange['kind']>([
  'create-pod-identity-association',
  'update-pod-identity-association',
  'delete-pod-identity-association',
  'update-addon',
  'delete-addon',
  'delete-role',
  'update-role-trust',
  'detach-role-policy',
  'delete-role-policy',
  'delete-oidc-provider',
]);

export function isWorkloadIdentityChange(change: Change): change is WorkloadIdentityChange {
  return WORKLOAD_KINDS.has(change.kind);
}

/** Who uses the role in the snapshot, for an effect's text: associations and annotated service accounts. */
function usersOfRole(s: ClusterSnapshot, match: (arn: string) => boolean): string[] {
  const users: string[] = [];
  if (s.podIdentityAssociations?.status === 'ok') {
    for (const a of s.podIdentityAssociations.data) {
      if (match(a.roleArn) || (a.targetRoleArn !== undefined && match(a.targetRoleArn)))
        users.push(`${a.namespace}/${a.serviceAccount} (Pod Identity)`);
    }
  }
  if (s.serviceAccounts?.status === 'ok') {
    for (const sa of s.serviceAccounts.data) {
      if (sa.roleArnAnnotation !== undefined && match(sa.roleArnAnnotation))
        users.push(`${sa.namespace}/${sa.name} (IRSA)`);
    }
  }
  return users;
}

/**
 * Whether any source of the snapshot names the role, and which sources could not be read (so
 * "nothing names it" is never said of a source that was not looked at).
 */
function roleUse(
  s: ClusterSnapshot,
  match: (arn: string) => boolean,
  parsedAwsAuth: ParsedAwsAuth | undefined,
): { named: boolean; unread: string[] } {
  const sources: ReadonlyArray<[string, { status: string } | undefined]> = [
    ['node groups', s.nodegroups],
    ['nodes', s.compute],
    ['Karpenter node classes', s.karpenterNodeClasses],
    ['Fargate profiles', s.fargateProfiles],
    ['Pod Identity associations', s.podIdentityAssociations],
    ['service accounts', s.serviceAccounts],
    ['IAM roles', s.iamRoles],
    ['access entries', s.accessEntries],
    ['aws-auth', s.awsAuth],
  ];
  const unread = sources.filter(([, source]) => source?.status === 'error').map(([name]) => name);
  const awsAuth =
    s.awsAuth.status === 'ok' ? (parsedAwsAuth ?? parseAwsAuthShared(s.awsAuth.data.data)).roles : [];
  const named =
    roleArnsInUse(s).some(match) ||
    (s.accessEntries.status === 'ok' && s.accessEntries.data.some((e) => match(e.principalArn))) ||
    awsAuth.some((m) => m.rolearn !== undefined && match(m.rolearn.trim()));
  return { named, unread };
}

function who(users: string[]): string {
  if (users.length === 0) return 'no service account of this cluster uses it';
  const shown = users.slice(0, 5).join(', ');
  return `${users.length} service account(s) use it: ${shown}${users.length > 5 ? ', …' : ''}`;
}

function editAssociations(
  s: ClusterSnapshot,
  effect: Effect,
  edit: (list: PodIdentityAssociation[]) => PodIdentityAssociation[] | undefined,
): void {
  const source = s.podIdentityAssociations;
  if (source !== undefined && source.status === 'error') {
    effect('Pod Identity associations could not be read: the effect is unknown', true);
    return;
  }
  const list = source?.status === 'ok' ? source.data : [];
  const next = edit(list);
  if (next !== undefined) s.podIdentityAssociations = { status: 'ok', data: next };
}

/** Apply a workload-identity change to `s` (a clone the caller owns), recording its effects. */
/** `parsedAwsAuth`: the parse of `s`'s aws-auth, when the caller has it (an ok source). */
export function simulateWorkloadIdentityChange(
  s: ClusterSnapshot,
  change: WorkloadIdentityChange,
  effect: Effect,
  parsedAwsAuth?: ParsedAwsAuth,
): void {
  switch (change.kind) {
    case 'create-pod-identity-association': {
      const a = change.association;
      editAssociations(s, effect, (list) => {
        if (list.some((x) => x.namespace === a.namespace && x.serviceAccount === a.serviceAccount)) {
          effect(
            `${a.namespace}/${a.serviceAccount} already has an association: EKS answers ResourceInUseException`,
          );
          return undefined;
        }
        effect(
          `Pods created from now on with service account ${a.namespace}/${a.serviceAccount} get credentials for ${a.roleArn} (within seconds; running pods keep theirs until restarted)`,
        );
        return [...list, a];
      });
      break;
    }
    case 'update-pod-identity-association': {
      editAssociations(s, effect, (list) => {
        const found = list.find((x) => x.associationId === change.associationId);
        if (found === undefined) {
          effect(`no association ${change.associationId}: EKS answers ResourceNotFoundException`);
          return undefined;
        }
        const updated: PodIdentityAssociation = {
          ...found,
          ...(change.roleArn === undefined ? {} : { roleArn: change.roleArn }),
          ...(change.targetRoleArn === undefined ? {} : { targetRoleArn: change.targetRoleArn }),
          ...(change.disableSessionTags === undefined
            ? {}
            : { disableSessionTags: change.disableSessionTags }),
        };
        // The external ID goes with the target: the response's, else unknown once the target changes.
        if (change.externalId !== undefined) updated.externalId = change.externalId;
        else if (change.targetRoleArn !== undefined && change.targetRoleArn !== found.targetRoleArn)
          delete updated.externalId;
        if (change.targetRoleArn === '') {
          delete updated.targetRoleArn;
          delete updated.externalId;
        }
        effect(
          `${found.namespace}/${found.serviceAccount} gets credentials for ${updated.targetRoleArn ?? updated.roleArn} at its pods' next credential refresh`,
        );
        return list.map((x) => (x === found ? updated : x));
      });
      break;
    }
    case 'delete-pod-identity-association': {
      editAssociations(s, effect, (list) => {
        const found = list.find((x) => x.associationId === change.associationId);
        if (found === undefined) {
          effect(
            change.association === undefined
              ? `no association ${change.associationId} in the snapshot: EKS answers ResourceNotFoundException, or it was made after the snapshot`
              : `Pods of ${change.association.namespace}/${change.association.serviceAccount} lose the credentials of ${change.association.roleArn} at their next refresh (the association is not in the snapshot)`,
          );
          return undefined;
        }
        effect(
          `Pods of ${found.namespace}/${found.serviceAccount} lose the credentials of ${found.roleArn} at their next refresh; new pods get none (they fall back to the next provider of the SDK's chain, usually the node role)`,
        );
        return list.filter((x) => x.associationId !== found.associationId);
      });
      break;
    }
    case 'update-addon':
    case 'delete-addon': {
      const source = s.addons;
      if (source?.status === 'error') {
        effect('add-ons could not be read: the effect is unknown', true);
        break;
      }
      const list = source?.status === 'ok' ? source.data : [];
      const found = list.find((a) => a.name === change.addonName);
      if (found === undefined) {
        effect(`no add-on ${change.addonName}: EKS answers ResourceNotFoundException`);
        break;
      }
      if (change.kind === 'delete-addon') {
        s.addons = { status: 'ok', data: list.filter((a) => a !== found) };
        effect(
          change.addonName === POD_IDENTITY_AGENT_ADDON
            ? 'EKS removes the Pod Identity agent DaemonSet: no pod of any association gets or refreshes credentials'
            : `EKS removes add-on ${change.addonName}`,
        );
      } else {
        s.addons = {
          status: 'ok',
          data: list.map((a) =>
            a === found
              ? {
                  ...a,
                  status: 'UPDATING',
                  ...(change.addonVersion === undefined ? {} : { version: change.addonVersion }),
                }
              : a,
          ),
        };
        effect(`EKS updates add-on ${change.addonName}; its pods are replaced one node at a time`);
      }
      break;
    }
    case 'delete-role': {
      const role = change.role;
      const match = (arn: string) => roleMatches(arn, role);
      const use = roleUse(s, match, parsedAwsAuth);
      if (!use.named) {
        // Nothing to simulate, and still an answer: automation asking "may this role go?" gets a yes.
        const what = `role ${role.roleName} of account ${role.accountId}`;
        effect(
          use.unread.length === 0
            ? `Nothing in cluster ${s.clusterName} uses ${what}: no node group, node, Karpenter node class, Fargate profile, Pod Identity association, service account, access entry or aws-auth mapping names it`
            : `Nothing read of cluster ${s.clusterName} uses ${what}; not read, so unknown: ${use.unread.join(', ')}`,
          use.unread.length > 0,
        );
        break;
      }
      if (s.iamRoles.status === 'ok') {
        const known = s.iamRoles.data.some((r) => match(r.arn));
        s.iamRoles = {
          status: 'ok',
          data: s.iamRoles.data.map((r) => (match(r.arn) ? { arn: r.arn, state: 'missing' as const } : r)),
        };
        if (!known) effect(`${role.roleName} is not among the roles read for this cluster`);
      }
      if (s.nodeRolePermissions?.status === 'ok') {
        s.nodeRolePermissions = {
          status: 'ok',
          data: s.nodeRolePermissions.data.map((p) =>
            match(p.roleArn) ? { ...p, decision: 'implicitDeny' as const } : p,
          ),
        };
      }
      effect(
        `IAM deletes role ${role.roleName} at once: nodes, Fargate pods and pods that use it lose their credentials at the next refresh; ${who(usersOfRole(s, match))}`,
      );
      break;
    }
    case 'update-role-trust': {
      const role = change.role;
      const match = (arn: string) => roleMatches(arn, role);
      if (s.iamRoles.status === 'ok') {
        s.iamRoles = {
          status: 'ok',
          data: s.iamRoles.data.map((r) =>
            match(r.arn) && r.state === 'exists' ? { ...r, trustPolicy: change.trustPolicy } : r,
          ),
        };
      } else {
        effect(
          'IAM roles could not be read: whether the new trust still lets the workloads in is unknown',
          true,
        );
      }
      effect(
        `The new trust policy of ${role.roleName} applies to the next AssumeRole: ${who(usersOfRole(s, match))}`,
      );
      break;
    }
    case 'detach-role-policy':
    case 'delete-role-policy': {
      const role = change.role;
      const match = (arn: string) => roleMatches(arn, role);
      const what =
        change.kind === 'detach-role-policy' ? change.policyArn : `inline policy ${change.policyName}`;
      const permissions = s.nodeRolePermissions;
      const affected =
        permissions?.status === 'ok'
          ? permissions.data.filter((p) => match(p.roleArn) && p.action === ASSUME_ROLE_FOR_POD_IDENTITY)
          : [];
      if (affected.length === 0 || permissions?.status !== 'ok') {
        effect(`${what} is removed from ${role.roleName} (not a node role whose permissions were read)`);
        break;
      }
      const isWorkerPolicy =
        change.kind === 'detach-role-policy' &&
        change.policyArn.endsWith(`:policy/${WORKER_NODE_POLICY_NAME}`);
      // The snapshot holds IAM's decision, not which policy made it: any removed policy may have
      // been the one that allowed the call. Assume it was (the reading that loses more access).
      s.nodeRolePermissions = {
        status: 'ok',
        data: permissions.data.map((p) =>
          affected.includes(p) && p.decision === 'allowed' ? { ...p, decision: 'implicitDeny' as const } : p,
        ),
      };
      effect(
        isWorkerPolicy
          ? `Node role ${role.roleName} loses ${ASSUME_ROLE_FOR_POD_IDENTITY} unless another of its policies allows it (assumed not): the Pod Identity agent on its nodes can no longer fetch credentials`
          : `${what} may have been what allowed ${ASSUME_ROLE_FOR_POD_IDENTITY} for node role ${role.roleName} (unknown from the snapshot; assumed it was)`,
        true,
      );
      break;
    }
    case 'delete-oidc-provider': {
      if (s.oidcProviders?.status === 'ok') {
        const before = s.oidcProviders.data.length;
        s.oidcProviders = {
          status: 'ok',
          data: s.oidcProviders.data.filter((p) => p.arn !== change.providerArn),
        };
        if (before === s.oidcProviders.data.length)
          effect(`${change.providerArn} is not among the account's IAM OIDC providers read`);
      } else {
        effect('IAM OIDC providers could not be read: the effect is unknown', true);
      }
      effect(
        `IAM no longer accepts web identity tokens of ${change.providerArn}: every IRSA service account of the cluster it belongs to fails its next AssumeRoleWithWebIdentity`,
      );
      break;
    }
  }
}
