/**
 * The CONFIG_MAP → API_AND_CONFIG_MAP switch and the node access entries it may or may not create
 * (docs/eks-auth-semantics.md#mode-switch-back-fill). Two sources disagree: an AWS EKS PM wrote
 * (aws/containers-roadmap#185) that the switch migrates the aws-auth lines EKS manages for managed
 * node groups and Fargate profiles into node-type access entries; the API reference says EKS keeps
 * writing aws-auth for them in API_AND_CONFIG_MAP. The prediction assumes the API reference (no
 * entries: the reading that loses more at the later switch to API) and says so; its fix creates
 * the entries either way, and an entry EKS already created is not a failure.
 */

import { principalKey } from '../access/principal.ts';
import { entryArnOf, unknownPathText } from '../access/role-arn.ts';
import { eksCommand, principalArnFlag, uniqueTerraformNames } from '../fixes/remediation.ts';
import type { AccessEntryType } from '../model.ts';
import { MODE_SWITCH_BACK_FILL, modeSwitchBackFillText } from '../predict/mode-switch-back-fill.ts';
import type { HclItem } from '../quote/hcl.ts';
import { CONTINUE, type ShellScript } from '../quote/shell.ts';
import type { Rule } from './types.ts';

const NODE_TYPES: readonly AccessEntryType[] = [
  'EC2_LINUX',
  'EC2_WINDOWS',
  'FARGATE_LINUX',
  'EC2',
  'HYBRID_LINUX',
];

interface NodeRole {
  arn: string;
  type: AccessEntryType;
  /** Node groups and Fargate profiles using it. */
  users: string[];
}

export const clusterModeSwitchNodeEntries: Rule = {
  id: 'cluster/mode-switch-node-entries',
  severity: 'low',
  kinds: ['change'],
  title: 'Switching from CONFIG_MAP leaves node and Fargate roles on aws-auth (assumed; sources disagree)',
  meaning:
    'After CONFIG_MAP → API_AND_CONFIG_MAP, the API reference says EKS keeps managing aws-auth for managed node groups and Fargate and creates no access entries for them; an AWS PM statement says the switch migrates them to access entries. The prediction assumes the API reference and names it. Until the entries exist, those roles still depend on aws-auth, and a later switch to API drops them.',
  fix: 'Once the cluster is ACTIVE again, create a node-type access entry for every managed node group and Fargate role (an entry EKS already created answers ResourceInUseException: it is there, go on).',
  evaluate({ current: a, previous: b, change }) {
    // To API, cluster/auth-mode-drops-principals lists these roles with the rest: one command each, once.
    if (change?.kind !== 'set-auth-mode' || change.mode !== 'API_AND_CONFIG_MAP' || b?.mode !== 'CONFIG_MAP')
      return [];
    const roles = new Map<string, NodeRole>();
    const add = (arn: string, type: AccessEntryType, user: string) => {
      const key = principalKey(arn);
      const known = roles.get(key);
      if (known) {
        known.users.push(user);
        if (type === 'EC2_WINDOWS' && known.type === 'EC2_LINUX') known.type = type;
      } else roles.set(key, { arn, type, users: [user] });
    };
    const ngs = b.snapshot.nodegroups;
    if (ngs.status === 'ok')
      for (const ng of ngs.data)
        if (!ng.status.startsWith('DELET'))
          add(
            ng.nodeRole,
            ng.amiType?.toUpperCase().includes('WINDOWS') ? 'EC2_WINDOWS' : 'EC2_LINUX',
            `node group ${ng.name}`,
          );
    const fps = b.snapshot.fargateProfiles;
    if (fps.status === 'ok')
      for (const fp of fps.data)
        if (!fp.status.startsWith('DELET'))
          add(fp.podExecutionRoleArn, 'FARGATE_LINUX', `Fargate profile ${fp.name}`);
    const entries = a.snapshot.accessEntries.status === 'ok' ? a.snapshot.accessEntries.data : [];
    const missing = [...roles.entries()]
      .filter(
        ([key]) => !entries.some((e) => NODE_TYPES.includes(e.type) && principalKey(e.principalArn) === key),
      )
      .map(([, r]) => r);
    if (missing.length === 0) return [];

    const notes: string[] = [modeSwitchBackFillText()];
    const cli: ShellScript[number][] = [
      { comment: 'The switch takes minutes: wait until the cluster is ACTIVE again.' },
      {
        argv: [
          'aws',
          'eks',
          'wait',
          'cluster-active',
          { flag: '--name', value: a.cluster.name },
          { flag: '--region', value: a.cluster.region },
        ],
      },
      {
        comment:
          'If EKS already created an entry (the PM statement), create-access-entry answers ResourceInUseException: the entry is there, go on.',
      },
    ];
    const hcl: HclItem[] = [];
    const writable: { arn: string; type: AccessEntryType }[] = [];
    for (const r of missing) {
      const arn = entryArnOf(a, r.arn, b);
      if (arn.known) writable.push({ arn: arn.arn, type: r.type });
      else notes.push(`No access entry is written for ${r.arn}: ${unknownPathText(arn)}.`);
    }
    const tfNames = uniqueTerraformNames(writable.map((w) => w.arn));
    for (const [i, r] of writable.entries()) {
      cli.push(
        eksCommand(a, 'create-access-entry', CONTINUE, principalArnFlag(r.arn), {
          flag: '--type',
          value: r.type,
        }),
      );
      hcl.push({
        block: 'resource',
        labels: ['aws_eks_access_entry', tfNames[i] ?? 'node'],
        body: [
          { name: 'cluster_name', value: { string: a.cluster.name } },
          { name: 'principal_arn', value: { string: r.arn } },
          { name: 'type', value: { string: r.type } },
        ],
      });
      hcl.push({ blank: true });
    }
    notes.push(
      'In Terraform, an entry EKS already created makes the apply fail with ResourceInUseException: `terraform import` it instead.',
    );
    const names = missing.map((r) => `${r.arn} (${r.users.join(', ')})`);
    return [
      {
        severity: 'low',
        subject: a.snapshot.clusterArn,
        title: `After the switch from CONFIG_MAP, ${missing.length} node/Fargate role(s) of ${a.cluster.name} may still have no access entry (assumed: the API reference's reading)`,
        detail: [
          `Assumed: ${MODE_SWITCH_BACK_FILL.assumed}`,
          `Not assumed: ${MODE_SWITCH_BACK_FILL.other}`,
          `Roles: ${names.join('; ')}`,
        ].join('\n'),
        evidence: {
          from: b.mode,
          to: change.mode,
          backFillAssumption: MODE_SWITCH_BACK_FILL.id,
          roles: missing.map((r) => ({ roleArn: r.arn, type: r.type, usedBy: r.users })),
        },
        remediation: {
          summary:
            'Create a node-type access entry for each of these roles once the cluster is ACTIVE: it holds under either reading, and a later switch to API keeps the nodes.',
          cli,
          ...(hcl.length > 0 ? { terraform: { hcl: hcl.slice(0, -1) } } : {}),
          notes,
        },
      },
    ];
  },
};
