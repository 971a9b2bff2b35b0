/**
 * The infra/ templates that serverless.yml cannot hold: CloudFormation parses (with its short
 * tags) and references what it should; the Terraform modules declare every variable they use
 * and forward/grant the same things.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, type Tags } from 'yaml';
import { HANDLED_EKS_EVENTS, HANDLED_IAM_EVENTS } from '../../shared/core/events/cloudtrail.ts';
import { expectIamCallPattern } from '../support/event-patterns.ts';
import { ROOT } from '../support/snapshot-builder.ts';

type Json = Record<string, unknown>;

/** CloudFormation short-form tags → their long form (`!Ref X` → `{ Ref: X }`). */
const CFN_TAGS: Tags = [
  ...['Ref', 'Condition'].map((name) => ({
    tag: `!${name}`,
    resolve: (value: string) => ({ [name]: value }),
  })),
  ...['Sub', 'GetAZs', 'ImportValue', 'Base64'].map((name) => ({
    tag: `!${name}`,
    resolve: (value: unknown) => ({ [`Fn::${name}`]: value }),
  })),
  { tag: '!GetAtt', resolve: (value: string) => ({ 'Fn::GetAtt': value.split('.') }) },
  ...['Sub', 'GetAtt', 'Join', 'Select', 'Split', 'If', 'Equals', 'Not', 'And', 'Or', 'FindInMap'].map(
    (name) => ({
      tag: `!${name}`,
      collection: 'seq' as const,
      resolve: (value: { toJSON(): unknown }) => ({ [`Fn::${name}`]: value.toJSON() }),
    }),
  ),
];

function loadTemplate(name: string): {
  Parameters: Json;
  Conditions: Json;
  Resources: Record<string, { Type: string; Condition?: string; Properties: Json }>;
  Outputs: Json;
} {
  const text = readFileSync(join(ROOT, 'infra', 'cloudformation', name), 'utf8');
  return parse(text, { customTags: CFN_TAGS }) as never;
}

const tf = (module: string, file: string) =>
  readFileSync(join(ROOT, 'infra', 'terraform', module, file), 'utf8');

/** Every `var.x` of main.tf is declared in variables.tf, and every declared one is used. */
function checkVariables(module: string): void {
  const used = new Set([...tf(module, 'main.tf').matchAll(/\bvar\.(\w+)/g)].map((m) => m[1]));
  const declared = new Set([...tf(module, 'variables.tf').matchAll(/^variable "(\w+)"/gm)].map((m) => m[1]));
  expect([...used].sort()).toEqual([...declared].sort());
}

describe('infra/cloudformation/forward-eks-events.yaml', () => {
  const t = loadTemplate('forward-eks-events.yaml');

  it('forwards the successful EKS calls of docs/design.md#cloudtrail-events-handled to the home Region default bus, through a role', () => {
    const rule = t.Resources.ForwardRule;
    expect(rule?.Type).toBe('AWS::Events::Rule');
    const pattern = rule?.Properties.EventPattern as {
      source: string[];
      'detail-type': string[];
      detail: { eventName: string[]; errorCode: unknown };
    };
    expect(pattern.source).toEqual(['aws.eks']);
    expect(pattern['detail-type']).toEqual(['AWS API Call via CloudTrail']);
    expect([...pattern.detail.eventName].sort()).toEqual([...HANDLED_EKS_EVENTS].sort());
    expect(pattern.detail.errorCode).toEqual([{ exists: false }]);
    const [target] = (rule?.Properties.Targets ?? []) as Array<{
      Arn: Json;
      RoleArn: Json;
      DeadLetterConfig: { Arn: Json };
    }>;
    expect(target?.Arn['Fn::Sub']).toMatch(
      /:events:\$\{HomeRegion\}:\$\{AWS::AccountId\}:event-bus\/default$/,
    );
    expect(target?.RoleArn).toEqual({ 'Fn::GetAtt': ['ForwardRole', 'Arn'] });
    expect(target?.DeadLetterConfig.Arn).toEqual({ 'Fn::GetAtt': ['ForwardDeadLetterQueue', 'Arn'] });
  });

  it('the role may only put events on that bus, and only EventBridge may assume it', () => {
    const role = t.Resources.ForwardRole?.Properties as {
      AssumeRolePolicyDocument: Json;
      Policies: Array<{ PolicyDocument: { Statement: Json[] } }>;
    };
    expect(JSON.stringify(role.AssumeRolePolicyDocument)).toContain('events.amazonaws.com');
    const statements = role.Policies.flatMap((p) => p.PolicyDocument.Statement);
    expect(statements).toHaveLength(1);
    expect(statements[0]?.Action).toBe('events:PutEvents');
    expect(JSON.stringify(statements[0]?.Resource)).toContain('event-bus/default');
    expect(t.Parameters).toHaveProperty('HomeRegion');
  });

  it('creates nothing in the home Region itself', () => {
    for (const [id, r] of Object.entries(t.Resources))
      expect(['NotHome', 'ForwardIam'], id).toContain(r.Condition);
    expect(JSON.stringify(t.Conditions.ForwardIam)).toContain('NotHome');
  });

  it('forwards the IAM calls of workload identity from us-east-1, the only Region IAM records arrive in', () => {
    expect(JSON.stringify(t.Conditions.ForwardIam)).toContain('us-east-1');
    const rule = t.Resources.ForwardIamRule;
    expect(rule?.Condition).toBe('ForwardIam');
    expectIamCallPattern(rule?.Properties.EventPattern);
    const [target] = (rule?.Properties.Targets ?? []) as Array<{ Arn: Json; RoleArn: Json }>;
    expect(target?.Arn['Fn::Sub']).toMatch(/event-bus\/default$/);
    expect(target?.RoleArn).toEqual({ 'Fn::GetAtt': ['ForwardRole', 'Arn'] });
  });
});

describe('infra/cloudformation/cluster-read-access.yaml', () => {
  const t = loadTemplate('cluster-read-access.yaml');
  const rbac = parseAllDocuments(
    readFileSync(join(ROOT, 'infra', 'kubernetes', 'monitor-clusterrole.yaml'), 'utf8'),
  ).map((d) => d.toJSON() as { kind: string; subjects?: Array<{ name: string }> });
  const group = rbac.find((d) => d.kind === 'ClusterRoleBinding')?.subjects?.[0]?.name;

  it('grants each monitor role a STANDARD access entry in the group the ClusterRole is bound to, without access policies', () => {
    expect(group).toBe('eks-auth-sentinel:readers');
    const entries = Object.entries(t.Resources).filter(([, r]) => r.Type === 'AWS::EKS::AccessEntry');
    expect(entries.map(([id]) => id).sort()).toEqual([
      'AwsAuthAccessEntry',
      'EventAccessEntry',
      'ReportAccessEntry',
      'WorkerAccessEntry',
    ]);
    for (const [, entry] of entries) {
      expect(entry.Properties.Type).toBe('STANDARD');
      expect(entry.Properties.KubernetesGroups).toEqual([group]);
      expect(entry.Properties.ClusterName).toEqual({ Ref: 'ClusterName' });
      expect(entry.Properties).not.toHaveProperty('AccessPolicies');
    }
    expect(
      Object.values(t.Resources).some((r) => r.Type === 'AWS::EKS::AccessEntry' && r.Condition === undefined),
    ).toBe(false);
  });

  it('names the RBAC to apply and, for CONFIG_MAP clusters, the aws-auth entries', () => {
    expect(JSON.stringify(t.Outputs.KubernetesRbac)).toContain('infra/kubernetes/monitor-clusterrole.yaml');
    // `${…}` are CloudFormation Sub placeholders, not template literals.
    const placeholder = (name: string) => ['$', '{', name, '}'].join('');
    const entry = (name: string) => ({
      rolearn: placeholder(name),
      username: 'eks-auth-sentinel',
      groups: [group],
    });
    // With a ReportRoleArn, all three roles, as the Terraform module maps every monitor role;
    // without one, the two the stack always needs.
    const [condition, withReport, withoutReport] = (t.Outputs.AwsAuthMapRoles as { Value: Json }).Value[
      'Fn::If'
    ] as [string, Json, Json];
    expect(t.Conditions[condition]).toEqual({
      'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'ReportRoleArn' }, ''] }],
    });
    expect(parse(withReport['Fn::Sub'] as string)).toEqual(
      ['WorkerRoleArn', 'EventRoleArn', 'ReportRoleArn'].map(entry),
    );
    expect(parse(withoutReport['Fn::Sub'] as string)).toEqual(['WorkerRoleArn', 'EventRoleArn'].map(entry));
    expect(tf('cluster-read-access', 'main.tf')).toMatch(
      /monitor_map_roles = \[for arn in var\.monitor_role_arns/,
    );
  });
});

describe('infra/terraform', () => {
  it('forward-eks-events forwards the same calls to the home bus and declares exactly the variables it uses', () => {
    const main = tf('forward-eks-events', 'main.tf');
    for (const name of HANDLED_EKS_EVENTS) expect(main).toContain(`"${name}"`);
    // IAM records arrive in us-east-1 only: the module instance there forwards them too.
    for (const name of HANDLED_IAM_EVENTS) expect(main).toContain(`"${name}"`);
    expect(main).toMatch(/forward_iam\s*=\s*data\.aws_region\.current\.name == "us-east-1"/);
    expect(main).toContain('source        = ["aws.iam"]');
    expect(main).toContain('aws_cloudwatch_event_target');
    expect(main).toContain('event-bus/default');
    expect(main).toContain('errorCode   = [{ exists = false }]');
    checkVariables('forward-eks-events');
  });

  it('cluster-read-access grants access entries or aws-auth, the same RBAC, and declares exactly the variables it uses', () => {
    const main = tf('cluster-read-access', 'main.tf');
    expect(main).toContain('resource "aws_eks_access_entry" "monitor"');
    expect(main).toContain('type              = "STANDARD"');
    expect(main).toContain('group         = "eks-auth-sentinel:readers"');
    expect(main).toContain('resource "kubernetes_cluster_role_binding_v1"');
    expect(main).toContain('resource_names = ["aws-auth"]');
    checkVariables('cluster-read-access');
  });

  it('cluster-read-access never writes aws-auth: it outputs the entries and an eksctl command per role, and only reads aws-auth to warn', () => {
    const main = tf('cluster-read-access', 'main.tf').replace(/^#.*\n/gm, '');
    const resources = [...main.matchAll(/^resource "(\w+)" "\w+"/gm)].map((m) => m[1]);
    expect(resources.filter((r) => r?.startsWith('kubernetes_config_map'))).toEqual([]);
    expect(main).not.toMatch(/^\s*force\s*=/m);
    // The only aws-auth read is a data source scoped to a check block (a warning, never a failure).
    const check = /check "aws_auth_maps_the_monitor" \{[\s\S]*?\n\}/.exec(main)?.[0] ?? '';
    expect(check).toContain('data "kubernetes_config_map_v1" "aws_auth"');
    expect(main.replace(check, '')).not.toContain('kubernetes_config_map');
    expect(main).toContain('output "aws_auth_map_roles"');
    expect(main).toMatch(
      /output "aws_auth_eksctl_commands"[\s\S]*eksctl create iamidentitymapping --cluster \$\{var\.cluster_name\}/,
    );
    expect(tf('cluster-read-access', 'variables.tf')).not.toMatch(/manage_aws_auth|existing_map_roles/);
  });
});

describe('the aws-auth audit subscription (CloudFormation and Terraform)', () => {
  it('CloudFormation: one filter on configmaps + aws-auth + kube-system of the cluster log group, invoking only from it', () => {
    const t = loadTemplate('aws-auth-audit-subscription.yaml');
    const filter = t.Resources.AwsAuthAuditFilter;
    const permission = t.Resources.InvokePermission;
    expect(filter?.Type).toBe('AWS::Logs::SubscriptionFilter');
    expect(filter?.Properties.FilterPattern).toBe('"configmaps" "aws-auth" "kube-system"');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub, not a template
    expect(filter?.Properties.LogGroupName).toEqual({ 'Fn::Sub': '/aws/eks/${ClusterName}/cluster' });
    expect(permission?.Type).toBe('AWS::Lambda::Permission');
    expect(permission?.Properties).toMatchObject({
      Action: 'lambda:InvokeFunction',
      Principal: 'logs.amazonaws.com',
      SourceArn: {
        'Fn::Sub':
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub, not a template
          'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/eks/${ClusterName}/cluster:*',
      },
    });
    expect(Object.keys(t.Resources).sort()).toEqual(['AwsAuthAuditFilter', 'InvokePermission']);
  });

  it('Terraform: the same filter and a permission scoped by source ARN, and exactly the variables it uses', () => {
    const main = tf('aws-auth-audit-subscription', 'main.tf');
    expect(main).toContain('filter_pattern  = "\\"configmaps\\" \\"aws-auth\\" \\"kube-system\\""');
    expect(main).toContain('principal           = "logs.amazonaws.com"');
    expect(main).toMatch(/source_arn\s+= local\.log_group_arn/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an HCL interpolation, meant literally
    expect(main).toContain('log-group:${local.log_group_name}:*');
    checkVariables('aws-auth-audit-subscription');
  });
});
