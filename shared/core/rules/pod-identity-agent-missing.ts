import { eksCommand, str } from '../fixes/remediation.ts';
import { okData, POD_IDENTITY_AGENT, serviceAccountBlastRadius } from '../workload-identity/identity.ts';
import type { Rule } from './types.ts';

const BAD_STATUS = /FAILED$|^DEGRADED$|^DELETING$/;

export const podIdentityAgentMissing: Rule = {
  id: 'pod-identity/agent-missing',
  severity: 'high',
  kinds: ['state'],
  title: 'Pod Identity associations exist but the eks-pod-identity-agent add-on is missing or unhealthy',
  meaning:
    'Pods get Pod Identity credentials from the eks-pod-identity-agent DaemonSet on their node. Without the add-on (deleted, failed, degraded) no pod gets credentials from its association.',
  fix: 'Install (or repair) the eks-pod-identity-agent add-on.',
  evaluate({ current: a }) {
    const associations = okData(a.snapshot.podIdentityAssociations);
    const addons = okData(a.snapshot.addons);
    if (!associations || associations.length === 0 || !addons) return [];
    const agent = addons.find((x) => x.name === POD_IDENTITY_AGENT);
    const unhealthy =
      agent !== undefined && (BAD_STATUS.test(agent.status ?? '') || agent.healthIssues.length > 0);
    if (agent !== undefined && !unhealthy) return [];
    const state =
      agent === undefined
        ? 'is not installed'
        : `is ${agent.status ?? 'unhealthy'}${agent.healthIssues.length ? ` (${agent.healthIssues.map((h) => h.code).join(', ')})` : ''}`;
    const users = associations.map((x) => ({ namespace: x.namespace, name: x.serviceAccount }));
    return [
      {
        severity: 'high',
        subject: POD_IDENTITY_AGENT,
        fingerprintKey: agent === undefined ? 'absent' : 'unhealthy',
        title: `The ${POD_IDENTITY_AGENT} add-on ${state}: ${associations.length} Pod Identity association(s) give no credentials`,
        detail:
          'Pods whose service account has an association get their AWS credentials from the agent on their node. If the agent runs from a Helm chart instead of the add-on, check that DaemonSet and dismiss this finding.',
        evidence: {
          addon: agent ?? null,
          associations: associations.length,
        },
        blastRadius: serviceAccountBlastRadius(users),
        remediation: {
          summary: `${agent === undefined ? 'Create' : 'Repair (update with conflict resolution)'} the ${POD_IDENTITY_AGENT} add-on.`,
          cli: [
            agent === undefined
              ? eksCommand(a, 'create-addon', { flag: '--addon-name', value: POD_IDENTITY_AGENT })
              : eksCommand(
                  a,
                  'update-addon',
                  { flag: '--addon-name', value: POD_IDENTITY_AGENT },
                  { flag: '--resolve-conflicts', value: 'OVERWRITE' },
                ),
          ],
          terraform: {
            hcl: [
              {
                block: 'resource',
                labels: ['aws_eks_addon', 'pod_identity_agent'],
                body: [
                  { name: 'cluster_name', value: str(a.cluster.name) },
                  { name: 'addon_name', value: str(POD_IDENTITY_AGENT) },
                ],
              },
            ],
          },
        },
      },
    ];
  },
};
