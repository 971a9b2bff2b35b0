/**
 * Copy-paste fixes: AWS CLI, Terraform (`aws_eks_access_entry` and the terraform-aws-eks
 * `access_entries` input) and aws-auth YAML, chosen by the cluster's authentication mode.
 */
import type { Analysis } from './analysis.ts';
import { formatRoleMappingYaml } from './aws-auth/index.ts';
import { type ConsumerInventory, nodeCountOf, nodeLabel, type RoleConsumer } from './consumers.ts';
import type { AccessEntryType, BlastRadius, Remediation } from './model.ts';
import { roleArnWithoutPath, roleNameOf } from './principal.ts';
import {
  FARGATE_GROUPS,
  NODE_GROUPS,
  NODE_USERNAME,
  type NodeRequirement,
  requiredEntryType,
  SESSION_NODE_USERNAME,
  WINDOWS_NODE_GROUPS,
} from './resolve.ts';

export const FIRST_NODES = 10;

export const TIME_TO_IMPACT_NODES =
  'new nodes fail to join at once; running nodes go NotReady within minutes (upstream defaults ≈ 1–3 min, reports ≈ 5 min)';
export const TIME_TO_IMPACT_FARGATE =
  'new Fargate pods cannot be scheduled from the next launch; running pods keep running';

export function blastRadiusOf(consumers: readonly RoleConsumer[], timeToImpact: string): BlastRadius {
  const nodes = consumers.flatMap((c) => c.nodes);
  return {
    nodegroups: [...new Set(consumers.flatMap((c) => c.nodegroups))].sort(),
    fargateProfiles: [...new Set(consumers.flatMap((c) => c.fargateProfiles))].sort(),
    nodeClasses: [...new Set(consumers.flatMap((c) => c.nodeClasses))].sort(),
    nodeCount: consumers.reduce((n, c) => n + nodeCountOf(c), 0),
    firstNodes: nodes.slice(0, FIRST_NODES).map(nodeLabel),
    timeToImpact,
  };
}

export function consumerOf(inventory: ConsumerInventory, key: string): RoleConsumer | undefined {
  return inventory.byRole.get(key);
}

/** A Terraform identifier from a role ARN: `prod-node-role` → `prod_node_role`. */
export function terraformName(arn: string): string {
  const base = (roleNameOf(arn) ?? arn.split('/').pop() ?? 'principal').replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(base) ? base : `r_${base}`;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@,+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function awsAuthMappingFor(roleArn: string, req: NodeRequirement): string {
  const rolearn = roleArnWithoutPath(roleArn);
  if (req === 'fargate' || req === 'hybrid') {
    return formatRoleMappingYaml({
      rolearn,
      username: SESSION_NODE_USERNAME,
      groups: req === 'fargate' ? [...FARGATE_GROUPS] : [...NODE_GROUPS],
    });
  }
  return formatRoleMappingYaml({
    rolearn,
    username: NODE_USERNAME,
    groups: req === 'ec2-windows' ? [...WINDOWS_NODE_GROUPS] : [...NODE_GROUPS],
  });
}

function accessEntryCli(a: Analysis, principalArn: string, type: AccessEntryType): string {
  return [
    `aws eks create-access-entry --cluster-name ${shellQuote(a.cluster.name)} --region ${a.cluster.region} \\`,
    `  --principal-arn ${shellQuote(principalArn)} --type ${type}`,
  ].join('\n');
}

function accessEntryTerraform(a: Analysis, principalArn: string, type: AccessEntryType): string {
  const name = terraformName(principalArn);
  return [
    `resource "aws_eks_access_entry" "${name}" {`,
    `  cluster_name  = "${a.cluster.name}"`,
    `  principal_arn = "${principalArn}"`,
    `  type          = "${type}"`,
    '}',
    '',
    '# or, with terraform-aws-modules/eks:',
    'access_entries = {',
    `  ${name} = {`,
    `    principal_arn = "${principalArn}"`,
    `    type          = "${type}"`,
    '  }',
    '}',
  ].join('\n');
}

const MODE_SWITCH_NOTE =
  'This cluster runs in CONFIG_MAP mode: access entries need the authentication mode switched to API_AND_CONFIG_MAP first. The switch is one-way and keeps aws-auth working.';

/** The fix that gives a role back the identity its compute needs, for the cluster's mode. */
export function nodeAccessRemediation(a: Analysis, roleArn: string, req: NodeRequirement): Remediation {
  const type = requiredEntryType(req);
  const yaml = awsAuthMappingFor(roleArn, req);
  if (a.mode === 'CONFIG_MAP') {
    return {
      summary: `Map ${roleArnWithoutPath(roleArn)} in aws-auth mapRoles (without an IAM path), and declare it in the tool that owns aws-auth so the next apply keeps it.`,
      awsAuthYaml: yaml,
      awsCli: [
        '# aws-auth is the only store in CONFIG_MAP mode. To move to access entries (one-way):',
        `aws eks update-cluster-config --name ${shellQuote(a.cluster.name)} --region ${a.cluster.region} \\`,
        '  --access-config authenticationMode=API_AND_CONFIG_MAP',
        accessEntryCli(a, roleArn, type),
      ].join('\n'),
      terraform: [
        '# after setting authentication_mode = "API_AND_CONFIG_MAP" on the cluster:',
        accessEntryTerraform(a, roleArn, type),
      ].join('\n'),
      notes: [MODE_SWITCH_NOTE],
    };
  }
  return {
    summary: `Create an access entry of type ${type} for ${roleArn}: access entries are not overwritten by whatever manages aws-auth.`,
    awsCli: accessEntryCli(a, roleArn, type),
    terraform: accessEntryTerraform(a, roleArn, type),
    ...(a.mode === 'API_AND_CONFIG_MAP' ? { awsAuthYaml: yaml } : {}),
    ...(a.mode === 'API_AND_CONFIG_MAP'
      ? { notes: ['Alternatively re-add the aws-auth mapping shown; the access entry is the durable fix.'] }
      : {}),
  };
}

export function deleteAwsAuthMappingNote(): string {
  return 'Edit with `kubectl edit -n kube-system configmap/aws-auth`, or in the Terraform/Helm/GitOps source that owns it.';
}
