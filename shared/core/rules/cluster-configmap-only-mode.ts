import { modeSwitchScript } from '../fixes/remediation.ts';
import type { Rule } from './types.ts';

export const clusterConfigmapOnlyMode: Rule = {
  id: 'cluster/configmap-only-mode',
  severity: 'low',
  kinds: ['state'],
  title: 'The cluster authenticates through aws-auth only (CONFIG_MAP mode)',
  meaning:
    'Every aws-auth risk applies: a YAML slip, an IaC apply or a node group deletion can unmap node roles. Access entries are immune to all three.',
  fix: 'Switch to API_AND_CONFIG_MAP (one-way; aws-auth keeps working), then create access entries for node and Fargate roles.',
  evaluate({ current: a }) {
    if (a.mode !== 'CONFIG_MAP') return [];
    const { name, region } = a.cluster;
    return [
      {
        severity: 'low',
        subject: a.snapshot.clusterArn,
        title: `${name} still runs in CONFIG_MAP mode`,
        detail: 'Node and Fargate roles depend on aws-auth alone.',
        evidence: { authenticationMode: a.mode, platformVersion: a.snapshot.cluster.platformVersion ?? null },
        remediation: {
          summary:
            'Enable access entries (one-way, aws-auth stays in effect), then move node roles to access entries.',
          cli: modeSwitchScript({ name, region }, 'API_AND_CONFIG_MAP'),
          terraform: {
            fragmentOf: `the aws_eks_cluster resource of cluster ${name} (with terraform-aws-modules/eks, its input authentication_mode = "API_AND_CONFIG_MAP" instead)`,
            hcl: [
              {
                block: 'access_config',
                labels: [],
                body: [{ name: 'authentication_mode', value: { string: 'API_AND_CONFIG_MAP' } }],
              },
            ],
          },
          notes: [
            'eksctl utils migrate-to-access-entry --cluster <name> plans the migration of aws-auth entries.',
          ],
        },
      },
    ];
  },
};
