import { nodeCountOf } from '../access/consumers.ts';
import { blastRadiusOf } from '../access/impact.ts';
import { parseArn, principalKey, roleNameOf } from '../access/principal.ts';
import { str, terraformName } from '../fixes/remediation.ts';
import {
  ASSUME_FOR_POD_IDENTITY,
  okData,
  serviceAccountBlastRadius,
  TIME_TO_IMPACT_CREDENTIALS,
  WORKER_NODE_POLICY,
} from '../workload-identity/identity.ts';
import type { FindingDraft, Rule } from './types.ts';

export const podIdentityNodeRoleCannotAssume: Rule = {
  id: 'pod-identity/node-role-cannot-assume',
  severity: 'high',
  kinds: ['state'],
  title: 'A node role may not call eks-auth:AssumeRoleForPodIdentity',
  meaning:
    "The Pod Identity agent calls eks-auth:AssumeRoleForPodIdentity with the node's role (AmazonEKSWorkerNodePolicy grants it). IAM itself decided (iam:SimulatePrincipalPolicy) that this node role may not: pods on those nodes get no Pod Identity credentials.",
  fix: 'Attach AmazonEKSWorkerNodePolicy to the node role (or allow eks-auth:AssumeRoleForPodIdentity), and remove any Deny of it.',
  evaluate({ current: a }) {
    const associations = okData(a.snapshot.podIdentityAssociations);
    const permissions = okData(a.snapshot.nodeRolePermissions);
    if (!associations || associations.length === 0 || !permissions) return [];
    const out: FindingDraft[] = [];
    const seen = new Set<string>();
    for (const p of [...permissions].sort((x, y) => (x.roleArn < y.roleArn ? -1 : 1))) {
      if (p.action.toLowerCase() !== ASSUME_FOR_POD_IDENTITY.toLowerCase() || p.decision === 'allowed')
        continue;
      const key = principalKey(p.roleArn);
      const consumer = a.consumers.byRole.get(key);
      if (!consumer || seen.has(key)) continue;
      const nodeConsumer = {
        ...consumer,
        nodes: consumer.nodes.filter((n) => n.kind !== 'fargate'),
        fargateProfiles: [],
      };
      const count = nodeCountOf(nodeConsumer);
      if (count === 0 && nodeConsumer.nodegroups.length === 0 && nodeConsumer.nodeClasses.length === 0)
        continue;
      seen.add(key);
      const explicit = p.decision === 'explicitDeny';
      const partition = parseArn(p.roleArn)?.partition ?? 'aws';
      const policyArn = `arn:${partition}:iam::aws:policy/${WORKER_NODE_POLICY}`;
      const roleName = roleNameOf(p.roleArn) ?? p.roleArn;
      const users = serviceAccountBlastRadius(
        associations.map((x) => ({ namespace: x.namespace, name: x.serviceAccount })),
      );
      const radius = {
        ...blastRadiusOf([nodeConsumer], TIME_TO_IMPACT_CREDENTIALS),
        serviceAccounts: users.serviceAccounts ?? [],
        namespaces: users.namespaces ?? [],
      };
      out.push({
        severity: 'high',
        subject: p.roleArn,
        title: `Node role ${p.roleArn} may not call ${ASSUME_FOR_POD_IDENTITY} (${explicit ? 'explicit deny' : 'no policy allows it'}): pods on its ${count} node(s) get no Pod Identity credentials`,
        detail: `iam:SimulatePrincipalPolicy answered ${p.decision} for ${ASSUME_FOR_POD_IDENTITY}. ${explicit ? 'A policy denies it: attaching a policy does not help until the Deny is removed.' : `${WORKER_NODE_POLICY} is not attached, or was detached.`}`,
        evidence: { role: p.roleArn, action: p.action, decision: p.decision },
        blastRadius: radius,
        remediation: {
          summary: explicit
            ? `Remove the Deny of ${ASSUME_FOR_POD_IDENTITY} from ${roleName}'s policies (or its permissions boundary/SCP).`
            : `Attach ${WORKER_NODE_POLICY} to ${roleName}.`,
          cli: [
            {
              argv: [
                'aws',
                'iam',
                'attach-role-policy',
                { flag: '--role-name', value: roleName },
                { flag: '--policy-arn', value: policyArn },
              ],
            },
          ],
          terraform: {
            hcl: [
              {
                block: 'resource',
                labels: ['aws_iam_role_policy_attachment', `${terraformName(p.roleArn)}_worker_node`],
                body: [
                  { name: 'role', value: str(roleName) },
                  { name: 'policy_arn', value: str(policyArn) },
                ],
              },
            ],
          },
        },
      });
    }
    return out;
  },
};
