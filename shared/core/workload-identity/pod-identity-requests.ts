/**
 * The STS requests EKS Auth makes for one Pod Identity association, each with the request context
 * IAM evaluates the role's trust policy against. What the snapshot can tell is given; what it
 * cannot (the pod's name and UID, tags on the role itself) stays unknown, so a condition on it
 * gives "could not evaluate"; what EKS Auth does not send is absent, so a condition requiring it
 * is a certain failure. Pure.
 *
 * Hop 1, `pods.eks.amazonaws.com` → the association's role (`roleArn`):
 * - `aws:SourceAccount` / `aws:SourceArn`: the cluster's account and ARN (the cluster is the
 *   source; an `ArnLike aws:SourceArn …:podidentityassociation/…` condition fails,
 *   awslabs/mountpoint-s3-csi-driver#781; terraform-aws-modules/terraform-aws-eks#3743 scopes
 *   `aws:SourceArn` to the cluster ARN).
 * - `aws:PrincipalServiceName`, `aws:PrincipalIsAWSService`: a service principal calls (IAM User
 *   Guide, "AWS global condition context keys").
 * - Session tags unless the association disables them: exactly the six keys EKS adds
 *   (`eks-cluster-arn`, `eks-cluster-name`, `kubernetes-namespace`, `kubernetes-service-account`,
 *   `kubernetes-pod-name`, `kubernetes-pod-uid`; "EKS Pod Identity can't add additional custom
 *   tags", EKS User Guide `pod-id-abac`), so `aws:TagKeys` is those six and any other
 *   `aws:RequestTag/…` is absent; with session tags disabled every `aws:RequestTag/…` and
 *   `aws:TagKeys` is absent.
 * - `sts:ExternalId`: absent. The association's `externalId` is "for a target IAM role … put this
 *   value in the trust policy of the target role" (EKS API reference, `PodIdentityAssociation`):
 *   EKS passes it on the target hop only
 *   (docs/eks-auth-semantics.md#pod-identity-target-roles-targetrolearn).
 *
 * Hop 2, the association role's session → `targetRoleArn` (role chaining, EKS User Guide
 * `pod-id-assign-target-role`):
 * - `aws:PrincipalArn` / `aws:PrincipalAccount`: the association's role and its account.
 * - `sts:ExternalId`: the association's `externalId` as EKS reports it (API reference, above);
 *   unknown when the snapshot does not hold it.
 * - Session tags: the guide's target trust conditions on `aws:RequestTag/eks-cluster-arn`,
 *   `kubernetes-namespace`, `kubernetes-service-account`, so EKS sends them again; they are
 *   transitive and win over the role's own tags of the same key (`pod-id-abac`), so
 *   `aws:PrincipalTag/<those keys>` has the same values; the role's other tags are unknown.
 *
 * Not modelled, so unknown on both hops: `sts:SourceIdentity` (no source says EKS sets one), the
 * source keys on hop 2, network keys (`aws:SourceIp`, `aws:SourceVpc`), time keys.
 */

import { parseArn } from '../access/principal.ts';
import type { ClusterSnapshot, PodIdentityAssociation } from '../model.ts';
import type { ContextValue, TrustRequest } from './iam-policy/evaluate.ts';

export const POD_IDENTITY_SERVICE = 'pods.eks.amazonaws.com';

/** The six session tag keys EKS Pod Identity adds (EKS User Guide, `pod-id-abac`). */
export const POD_IDENTITY_TAG_KEYS = [
  'eks-cluster-arn',
  'eks-cluster-name',
  'kubernetes-namespace',
  'kubernetes-service-account',
  'kubernetes-pod-name',
  'kubernetes-pod-uid',
] as const;

export const EXTERNAL_ID_KEY = 'sts:ExternalId';

/** What a request needs of the association: its service account, session tags, target and external ID. */
export type AssociationForRequest = Pick<
  PodIdentityAssociation,
  'namespace' | 'serviceAccount' | 'disableSessionTags' | 'externalId'
>;

/** The tag values per key: the pod's name and UID differ per pod, so they stay unknown. */
function tagValues(s: ClusterSnapshot, x: AssociationForRequest): Record<string, ContextValue> {
  const known: Record<string, string> = {
    'eks-cluster-arn': s.clusterArn,
    'eks-cluster-name': s.clusterName,
    'kubernetes-namespace': x.namespace,
    'kubernetes-service-account': x.serviceAccount,
  };
  return Object.fromEntries(
    POD_IDENTITY_TAG_KEYS.map((k) => {
      const v = known[k];
      return [k, v === undefined ? ('unknown' as const) : { present: [v] }];
    }),
  );
}

const prefixed = (prefix: string, values: Record<string, ContextValue>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [`${prefix}${k}`, v]));

/** EKS Auth assumes the association's role as `pods.eks.amazonaws.com`, the cluster as source. */
export function podIdentityRequest(
  s: ClusterSnapshot,
  action: string,
  x: AssociationForRequest,
): TrustRequest {
  const tagged = x.disableSessionTags !== true;
  const tags = tagValues(s, x);
  return {
    principal: { type: 'Service', id: POD_IDENTITY_SERVICE },
    action,
    context: {
      'aws:SourceAccount': { present: [s.accountId] },
      'aws:SourceArn': { present: [s.clusterArn] },
      'aws:PrincipalServiceName': { present: [POD_IDENTITY_SERVICE] },
      'aws:PrincipalIsAWSService': { present: ['true'] },
      [EXTERNAL_ID_KEY]: 'absent',
      'aws:TagKeys': tagged ? { present: [...POD_IDENTITY_TAG_KEYS] } : 'absent',
      ...(tagged ? prefixed('aws:RequestTag/', tags) : {}),
    },
    absentPrefixes: ['aws:RequestTag/'],
  };
}

/**
 * The association's role chains into `targetRoleArn`: EKS makes the call with the role's session,
 * passing the association's external ID and, unless disabled, the session tags again.
 */
export function roleChainRequest(
  s: ClusterSnapshot,
  sourceRoleArn: string,
  action: string,
  x: AssociationForRequest,
): TrustRequest {
  const tagged = x.disableSessionTags !== true;
  const tags = tagValues(s, x);
  const account = parseArn(sourceRoleArn)?.account;
  return {
    principal: { type: 'AWS', id: sourceRoleArn },
    action,
    context: {
      'aws:PrincipalArn': { present: [sourceRoleArn] },
      ...(account ? { 'aws:PrincipalAccount': { present: [account] } } : {}),
      ...(x.externalId === undefined ? {} : { [EXTERNAL_ID_KEY]: { present: [x.externalId] } }),
      ...(tagged ? { ...prefixed('aws:RequestTag/', tags), ...prefixed('aws:PrincipalTag/', tags) } : {}),
      ...(tagged ? {} : { 'aws:TagKeys': 'absent' as const }),
    },
    absentPrefixes: ['aws:RequestTag/'],
  };
}
