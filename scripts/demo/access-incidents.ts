/**
 * Incidents d and f of the demo, where the access is gone at the call or the edit itself, so no
 * alert can come before the loss; the demo says how long after it the alert came instead:
 *
 *   d  DeleteAccessEntry of the node role's EC2_LINUX entry in API mode (a cleanup script takes
 *      it for unused): EKS applies the deletion at once; the CloudTrail record reaches onEksEvent,
 *      which alerts (access-entry/deletion-unauthorizes) with the entry to re-create;
 *   f  hygiene: a `kubectl edit` writes the node role into aws-auth with its IAM path
 *      (role/eks/prod-node-role, as the IAM console shows it); the authenticator compares the
 *      path-less ARN STS presents, so the entry stops matching when it is written. No CloudTrail
 *      record exists for a ConfigMap edit: the next scheduled run catches it
 *      (aws-auth/role-arn-has-path, and the nodes it unauthorizes).
 */
import { DeleteAccessEntryCommand } from '@aws-sdk/client-eks';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import type { Scenario } from './scenario.ts';

const NODE_ROLE = 'arn:aws:iam::111122223333:role/prod-node-role';
const NODE_ROLE_WITH_PATH = 'arn:aws:iam::111122223333:role/eks/prod-node-role';

/**
 * Scenario a's cluster with its node role under the IAM path /eks/: the nodes, node group and IAM
 * name the full ARN; aws-auth maps it without the path, as the authenticator requires.
 */
function withNodeRolePath(snapshot: ClusterSnapshot): ClusterSnapshot {
  const s = JSON.parse(
    JSON.stringify(snapshot).replaceAll(NODE_ROLE, NODE_ROLE_WITH_PATH),
  ) as ClusterSnapshot;
  if (s.awsAuth.status === 'ok' && s.awsAuth.data.data.mapRoles !== undefined) {
    s.awsAuth.data.data.mapRoles = s.awsAuth.data.data.mapRoles.replaceAll(NODE_ROLE_WITH_PATH, NODE_ROLE);
  }
  return s;
}

export const ACCESS_SCENARIOS: Scenario[] = [
  {
    id: 'd',
    file: 'healthy-api-mode',
    title: "DeleteAccessEntry of the node role's EC2_LINUX entry in API mode (a cleanup takes it for unused)",
    async act(ctx) {
      ctx.note(`API call  eks:DeleteAccessEntry cluster=prod principalArn=${NODE_ROLE} (AWS SDK EKSClient)`);
      await ctx.eks.send(
        new DeleteAccessEntryCommand({ clusterName: ctx.clusterName, principalArn: NODE_ROLE }),
      );
      await ctx.deliverCloudTrail();
    },
    damage: /: access entry \S+ deleted$/,
    damageLabel: "the node role's access entry was deleted",
    lostAtCall: "the node role's access was gone at the call (EKS applies a deleted access entry at once)",
    severity: 'critical',
  },
  {
    id: 'f',
    file: 'a-karpenter-shares-last-nodegroup-role',
    title: 'Hygiene: kubectl edit maps the node role in aws-auth with its IAM path, which never matches',
    seed: withNodeRolePath,
    async act(ctx) {
      const cluster = ctx.sandbox.cluster(ctx.clusterName);
      const mapRoles = cluster.awsAuth?.data.mapRoles ?? '';
      ctx.note('kubectl edit configmap aws-auth: the node role written as IAM shows it, path included', [
        `    │ rolearn: ${NODE_ROLE_WITH_PATH}`,
      ]);
      cluster.putAwsAuth(
        { ...(cluster.awsAuth?.data ?? {}), mapRoles: mapRoles.replace(NODE_ROLE, NODE_ROLE_WITH_PATH) },
        { manager: 'kubectl-edit' },
      );
    },
    damage: /Ready=Unknown/,
    damageLabel: 'the first node went NotReady',
    lostAtCall:
      "the node role's aws-auth entry stopped matching when it was written (STS presents the ARN without its path)",
    severity: 'critical',
  },
];
