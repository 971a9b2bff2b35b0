/**
 * What deploying and removing a CloudFormation template asks of IAM with the deployer's
 * credentials (CloudFormation runs without a service role, README "Before the first deploy"):
 * one request per API call CloudFormation or osls makes for each resource, on the ARN the
 * resource gets in account 111122223333 / eu-west-1 (generated names as CloudFormation makes
 * them: `<stack>-<LogicalId>-<suffix>`). A resource type without an entry here is an error, so a
 * new kind of resource in serverless.yml makes the deploy test say what to add.
 */
type Json = Record<string, unknown>;

export interface TemplateResource {
  Type: string;
  Properties?: Json;
}

export interface StackRequest {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
  /** Which resource it is for (messages). */
  for: string;
}

export const ACCOUNT = '111122223333';
export const REGION = 'eu-west-1';
const SUFFIX = 'A1B2C3D4E5F6';

export interface Stack {
  name: string;
  resources: Record<string, TemplateResource>;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The ARN (or name) a resource gets, as `Fn::GetAtt [id, Arn]` returns it. */
export function arnOf(stack: Stack, id: string): string {
  const r = stack.resources[id];
  if (r === undefined) throw new Error(`no resource ${id} in the template`);
  const p = r.Properties ?? {};
  const generated = `${stack.name}-${id}-${SUFFIX}`;
  switch (r.Type) {
    case 'AWS::S3::Bucket':
      return `arn:aws:s3:::${generated.toLowerCase()}`;
    case 'AWS::SQS::Queue':
      return `arn:aws:sqs:${REGION}:${ACCOUNT}:${generated}`;
    case 'AWS::SNS::Topic':
      return `arn:aws:sns:${REGION}:${ACCOUNT}:${generated}`;
    case 'AWS::DynamoDB::Table':
      return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${generated}`;
    case 'AWS::Logs::LogGroup':
      return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${str(p.LogGroupName)}:*`;
    case 'AWS::Lambda::Function':
      return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${str(p.FunctionName)}`;
    case 'AWS::IAM::Role':
      return `arn:aws:iam::${ACCOUNT}:role/${str(p.RoleName)}`;
    case 'AWS::Events::Rule':
      return `arn:aws:events:${REGION}:${ACCOUNT}:rule/${typeof p.Name === 'string' ? p.Name : generated}`;
    case 'AWS::CloudWatch::Alarm':
      return `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:${generated}`;
    case 'AWS::KMS::Key':
      return `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
    case 'AWS::Lambda::EventSourceMapping':
      return `arn:aws:lambda:${REGION}:${ACCOUNT}:event-source-mapping:9a5bf5ea-0d0c-4e3a-8c6c-${SUFFIX}`;
    default:
      return `arn:aws:unknown:${REGION}:${ACCOUNT}:${generated}`;
  }
}

/** `Ref`: a queue's URL, a log group's or function's name, a topic's ARN … */
function refOf(stack: Stack, id: string): string {
  const pseudo: Record<string, string> = {
    'AWS::AccountId': ACCOUNT,
    'AWS::Region': REGION,
    'AWS::Partition': 'aws',
    'AWS::StackName': stack.name,
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const known = pseudo[id];
  if (known !== undefined) return known;
  const r = stack.resources[id];
  const arn = arnOf(stack, id);
  switch (r?.Type) {
    case 'AWS::SQS::Queue':
      return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${arn.split(':')[5]}`;
    case 'AWS::Logs::LogGroup':
      return str(r.Properties?.LogGroupName);
    case 'AWS::Lambda::Function':
      return str(r.Properties?.FunctionName);
    case 'AWS::S3::Bucket':
      return arn.slice('arn:aws:s3:::'.length);
    case 'AWS::IAM::Role':
      return str(r.Properties?.RoleName);
    case 'AWS::KMS::Key':
      return arn.split('/')[1] ?? arn;
    default:
      return arn;
  }
}

/** CloudFormation's intrinsic functions over strings, as the deployed stack would see them. */
export function resolve(stack: Stack, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => resolve(stack, v));
  if (typeof value !== 'object' || value === null) return value;
  const v = value as Json;
  if (typeof v.Ref === 'string') return refOf(stack, v.Ref);
  const getAtt = v['Fn::GetAtt'];
  if (Array.isArray(getAtt)) {
    const [id, attribute] = getAtt.map(String) as [string, string];
    if (attribute === 'Arn') return arnOf(stack, id);
    if (attribute === 'QueueName') return arnOf(stack, id).split(':')[5];
    throw new Error(`Fn::GetAtt ${id}.${attribute} is not resolved here`);
  }
  const sub = v['Fn::Sub'];
  if (typeof sub === 'string') {
    return sub.replace(/\$\{([\w:]+)(?:\.(\w+))?\}/g, (_, id: string, attribute?: string) =>
      str(attribute === undefined ? refOf(stack, id) : resolve(stack, { 'Fn::GetAtt': [id, attribute] })),
    );
  }
  const join = v['Fn::Join'];
  if (Array.isArray(join)) {
    const [separator, parts] = join as [string, unknown[]];
    return (resolve(stack, parts) as unknown[]).map(str).join(separator);
  }
  if (Array.isArray(v['Fn::If'])) throw new Error('Fn::If is not resolved here: unwrap it first');
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(stack, x)]));
}

const on = (forWhat: string, resource: string, actions: string[], context?: StackRequest['context']) =>
  actions.map((action) => ({ action, resource, for: forWhat, ...(context ? { context } : {}) }));

/** The stack itself, and the deployment bucket's objects osls uploads, lists and prunes. */
export function stackRequests(stack: Stack): StackRequest[] {
  const arn = `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${stack.name}/5c4ea2d0-6a1f-11ef-9a4d-0a8f2c5d7e11`;
  const deploymentBucket = Object.entries(stack.resources).find(
    ([id]) => id === 'ServerlessDeploymentBucket',
  );
  const objects = deploymentBucket
    ? on(
        'ServerlessDeploymentBucket objects',
        `${arnOf(stack, 'ServerlessDeploymentBucket')}/serverless/eks-auth-sentinel/test/1700000000000-2024-11-20T10:00:00.000Z/scheduler.zip`,
        ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
      )
    : [];
  return [
    ...on('the stack', arn, [
      'cloudformation:CreateStack',
      'cloudformation:DescribeStacks',
      'cloudformation:DescribeStackEvents',
      'cloudformation:DescribeStackResource',
      'cloudformation:ListStackResources',
      'cloudformation:GetTemplate',
      'cloudformation:CreateChangeSet',
      'cloudformation:DescribeChangeSet',
      'cloudformation:ExecuteChangeSet',
      'cloudformation:DeleteChangeSet',
      'cloudformation:UpdateStack',
      'cloudformation:DeleteStack',
    ]),
    ...on('the template', '*', ['cloudformation:ValidateTemplate']),
    ...objects,
  ];
}

/** What CloudFormation asks for one resource, to create, update and delete it. */
export function resourceRequests(stack: Stack, id: string): StackRequest[] {
  const r = stack.resources[id] as TemplateResource;
  // Property by property: a role's policies hold Fn::If, which only the tests that read them unwrap.
  const p = new Proxy({} as Json, { get: (_, key: string) => resolve(stack, r.Properties?.[key]) });
  const arn = arnOf(stack, id);
  const name = `${id} (${r.Type})`;
  switch (r.Type) {
    case 'AWS::S3::Bucket':
      return on(name, arn, [
        's3:CreateBucket',
        's3:PutEncryptionConfiguration',
        's3:PutBucketVersioning',
        's3:PutBucketPublicAccessBlock',
        's3:PutBucketOwnershipControls',
        ...(p.LifecycleConfiguration ? ['s3:PutLifecycleConfiguration'] : []),
        's3:ListBucket',
        's3:ListBucketVersions',
        's3:DeleteBucket',
      ]);
    case 'AWS::S3::BucketPolicy':
      return on(name, `arn:aws:s3:::${str(p.Bucket)}`, [
        's3:PutBucketPolicy',
        's3:GetBucketPolicy',
        's3:DeleteBucketPolicy',
      ]);
    case 'AWS::SQS::Queue':
      return on(name, arn, [
        'sqs:CreateQueue',
        'sqs:GetQueueUrl',
        'sqs:GetQueueAttributes',
        'sqs:SetQueueAttributes',
        'sqs:DeleteQueue',
      ]);
    case 'AWS::SQS::QueuePolicy':
      return (p.Queues as string[]).flatMap((url) =>
        on(name, `arn:aws:sqs:${REGION}:${ACCOUNT}:${url.split('/').at(-1)}`, ['sqs:SetQueueAttributes']),
      );
    case 'AWS::SNS::Topic':
      return on(name, arn, [
        'sns:CreateTopic',
        'sns:GetTopicAttributes',
        'sns:SetTopicAttributes',
        'sns:DeleteTopic',
      ]);
    case 'AWS::DynamoDB::Table':
      return on(name, arn, [
        'dynamodb:CreateTable',
        'dynamodb:DescribeTable',
        'dynamodb:UpdateTimeToLive',
        'dynamodb:DescribeTimeToLive',
        'dynamodb:UpdateContinuousBackups',
        'dynamodb:DescribeContinuousBackups',
        'dynamodb:DeleteTable',
      ]);
    case 'AWS::Logs::LogGroup':
      return on(name, arn.replace(/:\*$/, ''), [
        'logs:CreateLogGroup',
        'logs:PutRetentionPolicy',
        'logs:DeleteLogGroup',
      ]);
    case 'AWS::Logs::MetricFilter':
      return on(name, `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${str(p.LogGroupName)}`, [
        'logs:PutMetricFilter',
        'logs:DescribeMetricFilters',
        'logs:DeleteMetricFilter',
      ]);
    case 'AWS::Lambda::Function':
      return [
        ...on(name, arn, [
          'lambda:CreateFunction',
          'lambda:GetFunction',
          'lambda:UpdateFunctionCode',
          'lambda:UpdateFunctionConfiguration',
          'lambda:DeleteFunction',
        ]),
        ...on(name, str(p.Role), ['iam:PassRole'], { 'iam:PassedToService': 'lambda.amazonaws.com' }),
      ];
    case 'AWS::Lambda::EventInvokeConfig':
      return on(name, `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${str(p.FunctionName)}`, [
        'lambda:PutFunctionEventInvokeConfig',
        'lambda:UpdateFunctionEventInvokeConfig',
        'lambda:DeleteFunctionEventInvokeConfig',
      ]);
    case 'AWS::Lambda::Permission':
      return on(name, str(p.FunctionName), ['lambda:AddPermission', 'lambda:RemovePermission']);
    case 'AWS::Lambda::EventSourceMapping':
      return on(
        name,
        arn,
        [
          'lambda:CreateEventSourceMapping',
          'lambda:GetEventSourceMapping',
          'lambda:UpdateEventSourceMapping',
          'lambda:DeleteEventSourceMapping',
        ],
        { 'lambda:FunctionArn': str(p.FunctionName) },
      );
    case 'AWS::Events::Rule':
      return on(name, arn, [
        'events:PutRule',
        'events:DescribeRule',
        'events:PutTargets',
        'events:RemoveTargets',
        'events:DeleteRule',
      ]);
    case 'AWS::CloudWatch::Alarm': {
      const actions = [...((p.AlarmActions as string[]) ?? []), ...((p.OKActions as string[]) ?? [])];
      return [
        ...on(name, arn, ['cloudwatch:PutMetricAlarm'], { 'cloudwatch:AlarmActions': actions }),
        ...on(name, arn, ['cloudwatch:DescribeAlarms', 'cloudwatch:DeleteAlarms']),
      ];
    }
    case 'AWS::KMS::Key':
      return [
        ...on(name, '*', ['kms:CreateKey']),
        ...on(
          name,
          arn,
          [
            'kms:DescribeKey',
            'kms:GetKeyPolicy',
            'kms:PutKeyPolicy',
            'kms:EnableKeyRotation',
            'kms:GetKeyRotationStatus',
            'kms:ScheduleKeyDeletion',
          ],
          // CloudFormation tags what it creates with aws:cloudformation:* (a reserved prefix nobody else can set).
          { 'aws:ResourceTag/aws:cloudformation:stack-name': stack.name },
        ),
      ];
    case 'AWS::IAM::Role': {
      const boundary = { 'iam:PermissionsBoundary': str(p.PermissionsBoundary) };
      const policies = (r.Properties?.Policies as unknown[] | undefined) ?? [];
      const managed = ((p.ManagedPolicyArns as string[] | undefined) ?? []).flatMap((policyArn) =>
        on(name, arn, ['iam:AttachRolePolicy', 'iam:DetachRolePolicy'], {
          ...boundary,
          'iam:PolicyARN': policyArn,
        }),
      );
      return [
        ...on(name, arn, ['iam:CreateRole'], boundary),
        ...(policies.length > 0
          ? on(name, arn, ['iam:PutRolePolicy', 'iam:DeleteRolePolicy'], boundary)
          : []),
        ...managed,
        ...on(name, arn, ['iam:GetRole', 'iam:GetRolePolicy', 'iam:DeleteRole']),
      ];
    }
    default:
      throw new Error(
        `${name}: no deployer requests known for this type; add them to test/support/stack-requests.ts`,
      );
  }
}
