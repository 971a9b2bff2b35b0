/**
 * `serverless package` (osls) runs offline and the CloudFormation it writes holds what the
 * deployment promises: least-privilege IAM, a locked-down bucket, DLQs on every async path,
 * Node 22 on arm64, alarms. The bundle script runs first (the package zips the bundles).
 * Network access is made to fail (proxy to a closed port): packaging must not need it.
 * Everything happens in a copy of the service in a directory of the test's own, bundles
 * included: `npm start` or another test bundling into the checkout's dist/functions at the same
 * time cannot change what is packaged.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HANDLED_EKS_EVENTS } from '../../shared/core/events/cloudtrail.ts';
import { expectIamCallPattern } from '../support/event-patterns.ts';
import { allows, denies } from '../support/identity-policy.ts';
import { ROOT } from '../support/snapshot-builder.ts';
import {
  ACCOUNT,
  REGION,
  resolve,
  resourceRequests,
  type StackRequest,
  stackRequests,
} from '../support/stack-requests.ts';

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties: Json;
}
interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource?: unknown;
  NotResource?: unknown;
  Condition?: Json;
}

const OFFLINE_ENV = {
  ...process.env,
  AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'not-a-secret',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  SLS_TELEMETRY_DISABLED: '1',
  SLS_NOTIFICATIONS_MODE: 'off',
  HTTP_PROXY: 'http://127.0.0.1:9',
  HTTPS_PROXY: 'http://127.0.0.1:9',
  http_proxy: 'http://127.0.0.1:9',
  https_proxy: 'http://127.0.0.1:9',
  NO_PROXY: '',
};

const policyFile = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'infra', 'iam', name), 'utf8')) as { Statement: Statement[] };
const DEPLOYER_POLICY = policyFile('deployer-policy.json');
const BOUNDARY_POLICY = policyFile('function-boundary-policy.json');
const DEPLOYER = `arn:aws:iam::${ACCOUNT}:role/platform-deployer`;
const BOUNDARY_ARN = `arn:aws:iam::${ACCOUNT}:policy/eks-auth-sentinel-function-boundary`;

/** The read-only set documented in infra/iam/monitor-read-policy.json. */
const READ_POLICY = JSON.parse(
  readFileSync(join(ROOT, 'infra', 'iam', 'monitor-read-policy.json'), 'utf8'),
) as {
  Statement: Statement[];
};
const READ_ONLY = new Set(READ_POLICY.Statement.flatMap((s) => [s.Action].flat()));

/** State, queue, topic, parameter and log actions the functions may have, each on its own ARN. */
const STATE_ACTIONS = new Set([
  'logs:CreateLogStream',
  'logs:PutLogEvents',
  's3:GetObject',
  's3:PutObject',
  's3:ListBucket',
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:DeleteItem',
  'sqs:SendMessage',
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sns:Publish',
  'ssm:GetParameter',
  'kms:Decrypt',
  'kms:GenerateDataKey',
]);
const WRITE_ACTIONS = new Set([
  'logs:CreateLogStream',
  'logs:PutLogEvents',
  's3:PutObject',
  'dynamodb:PutItem',
  'dynamodb:DeleteItem',
  'sqs:SendMessage',
  'sqs:DeleteMessage',
  'sns:Publish',
  'kms:GenerateDataKey',
]);

/** The actions only `remediation=on` adds, to onEksEvent's role alone. */
const REMEDIATION_ONLY = new Set([
  'OnEksEventRole: dynamodb:UpdateItem',
  'AwsAuthRole: dynamodb:UpdateItem',
  'OnEksEventRole: eks:CreateAccessEntry',
  'OnEksEventRole: eks:AssociateAccessPolicy',
  'OnEksEventRole: iam:PassRole',
]);

type Template = { Resources: Record<string, Resource>; Conditions?: Json; Outputs?: Json };
let template: Template;
/** `serverless package` without any `--param`. */
let defaults: Template;
/** With `--param=subnetIds=…` and `--param=securityGroupIds=…`. */
let inVpc: Template;
let withBot: Template;
/** With `--param=remediation=on`. */
let remediationOn: Template;
let bundleMeta: Record<string, { bytes: number; packages: string[] }>;
let work: string;
/** The test's copy of the service (serverless.yml, what it reads, and its own dist/functions). */
let service: string;

const SERVERLESS = join(ROOT, 'node_modules', 'osls', 'bin', 'serverless.js');
const SUBNETS = ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'];
const SECURITY_GROUP = 'sg-0123456789abcdef0';
const KUBERNETES_READERS = [
  'SnapshotWorkerLambdaFunction',
  'OnEksEventLambdaFunction',
  'ReportLambdaFunction',
];

function run(command: string, args: string[], cwd: string): void {
  execFileSync(command, args, { cwd, env: OFFLINE_ENV, stdio: 'pipe', timeout: 120_000 });
}

/** A copy of the service as a fresh checkout has it: serverless.yml and the files it reads, no dist/. */
function copyService(dir: string): string {
  cpSync(join(ROOT, 'serverless.yml'), join(dir, 'serverless.yml'));
  cpSync(join(ROOT, 'scripts', 'serverless'), join(dir, 'scripts', 'serverless'), { recursive: true });
  cpSync(join(ROOT, 'infra', 'iam'), join(dir, 'infra', 'iam'), { recursive: true });
  return dir;
}

/** `serverless package` into its own directory; the CloudFormation it wrote. */
function packageWith(name: string, params: string[]): Template {
  const out = join(work, name);
  run(
    process.execPath,
    [SERVERLESS, 'package', '--stage', 'test', '--region', 'eu-west-1', '--package', out, ...params],
    service,
  );
  return JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'serverless-package-'));
  service = copyService(join(work, 'service'));
  const bundles = join(service, 'dist', 'functions');
  run(process.execPath, ['scripts/bundle-functions.mjs', '--outdir', bundles], ROOT);
  template = packageWith('with-params', [
    '--param=regions=eu-west-1,us-east-1',
    '--param=slackWebhookParameter=/eks-auth-sentinel/slack-webhook',
  ]);
  defaults = packageWith('defaults', []);
  withBot = packageWith('bot', [
    '--param=slackBotTokenParameter=/eks-auth-sentinel/slack-bot-token',
    '--param=slackChannel=C0123456789',
  ]);
  remediationOn = packageWith('remediation-on', ['--param=remediation=on']);
  inVpc = packageWith('vpc', [
    `--param=subnetIds=${SUBNETS.join(',')}`,
    `--param=securityGroupIds=${SECURITY_GROUP}`,
  ]);
  bundleMeta = JSON.parse(readFileSync(join(bundles, 'meta.json'), 'utf8'));
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

const ofType = (type: string, t: Template = template) =>
  Object.entries(t.Resources).filter(([, r]) => r.Type === type);

/** Every IAM statement of every role, with the conditional (Fn::If) ones unwrapped. */
function roleStatements(): Array<{ role: string; statement: Statement }> {
  const out: Array<{ role: string; statement: Statement }> = [];
  for (const [role, r] of ofType('AWS::IAM::Role')) {
    for (const policy of (r.Properties.Policies as Array<{ PolicyDocument: { Statement: unknown[] } }>) ??
      []) {
      for (const raw of policy.PolicyDocument.Statement) {
        const ifs = (raw as { 'Fn::If'?: unknown[] })['Fn::If'];
        const candidates = ifs === undefined ? [raw] : ifs.slice(1);
        for (const c of candidates) {
          if ((c as { Ref?: string }).Ref === 'AWS::NoValue') continue;
          out.push({ role, statement: c as Statement });
        }
      }
    }
  }
  return out;
}

const actionsOf = (s: Statement) => [s.Action].flat();

/** A template condition of the shape serverless.yml writes: Fn::Not of Fn::Equals over two strings. */
function conditionHolds(t: Template, name: string): boolean {
  const evaluate = (c: unknown): boolean => {
    const v = c as Json;
    if (Array.isArray(v['Fn::Not'])) return !evaluate(v['Fn::Not'][0]);
    if (Array.isArray(v['Fn::Equals'])) return v['Fn::Equals'][0] === v['Fn::Equals'][1];
    throw new Error(`condition ${name}: ${JSON.stringify(c)} is not evaluated here`);
  };
  return evaluate(t.Conditions?.[name]);
}
const resourcesOf = (s: Statement) => [s.Resource].flat();

/** Logical IDs a CloudFormation value refers to (Ref, GetAtt, ${X} / ${X.Arn} in Sub). */
function referencedIds(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const v = value as Json;
  if (typeof v.Ref === 'string') return [v.Ref];
  if (Array.isArray(v['Fn::GetAtt'])) return [String(v['Fn::GetAtt'][0])];
  if (typeof v['Fn::Sub'] === 'string') {
    return [...v['Fn::Sub'].matchAll(/\$\{([A-Za-z0-9]+)(?:\.[A-Za-z]+)?\}/g)].map((m) => m[1] ?? '');
  }
  return [];
}

describe('serverless package (offline)', () => {
  it('every function runs nodejs22.x on arm64, from its own bundle', () => {
    const fns = ofType('AWS::Lambda::Function');
    expect(fns.map(([id]) => id).sort()).toEqual([
      'AwsAuthCheckLambdaFunction',
      'AwsAuthWatchLambdaFunction',
      'OnAuditEventLambdaFunction',
      'OnEksEventLambdaFunction',
      'ReportLambdaFunction',
      'SchedulerLambdaFunction',
      'SnapshotWorkerLambdaFunction',
    ]);
    for (const [, fn] of fns) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(String(fn.Properties.Handler)).toMatch(/^dist\/functions\/\w+\/index\.handler$/);
    }
  });

  it('no IAM action outside the documented read-only set and the state/queue/topic/parameter actions', () => {
    const outside = roleStatements()
      .flatMap(({ role, statement }) => actionsOf(statement).map((a) => `${role}: ${a}`))
      .filter((entry) => {
        const action = entry.split(': ')[1] ?? '';
        return !READ_ONLY.has(action) && !STATE_ACTIONS.has(action);
      })
      // remediation's own statements, present only with remediation=on (asserted below)
      .filter((entry) => !REMEDIATION_ONLY.has(entry));
    expect(outside).toEqual([]);
    for (const { statement } of roleStatements()) {
      // The Denies narrow iam:GetRole and iam:GetOpenIDConnectProvider to this account (asserted below).
      if (statement.Sid === 'GetRoleOfThisAccountOnly' || statement.Sid === 'OidcProviderOfThisAccountOnly')
        continue;
      expect(statement.Effect).toBe('Allow');
      for (const a of actionsOf(statement)) expect(a).not.toContain('*');
    }
  });

  it('no write action has a `*` resource; each is on an ARN of this stack (KMS only through SSM/SNS)', () => {
    for (const { role, statement } of roleStatements()) {
      const writes = actionsOf(statement).filter(
        (a) => WRITE_ACTIONS.has(a) || a === 'ssm:GetParameter' || a === 'kms:Decrypt',
      );
      if (writes.length === 0) continue;
      for (const resource of resourcesOf(statement)) {
        expect(resource, `${role} ${writes.join(',')}`).not.toBe('*');
        if (writes.some((a) => a.startsWith('kms:'))) {
          expect(statement.Condition, `${role} kms`).toMatchObject({
            StringEquals: { 'kms:ViaService': expect.anything() },
          });
          continue;
        }
        if (writes.includes('ssm:GetParameter')) {
          // This template names the webhook; the bot-token statement's condition is false here.
          const bot = (statement as { Sid?: string }).Sid === 'SlackBotTokenParameter';
          expect(JSON.stringify(resource)).toContain(
            bot ? ':parameterdisabled"' : ':parameter/eks-auth-sentinel/slack-webhook',
          );
          continue;
        }
        const ids = referencedIds(resource);
        expect(ids.length, `${role} ${writes.join(',')} → ${JSON.stringify(resource)}`).toBeGreaterThan(0);
        for (const id of ids) expect(template.Resources, `${role} refers to ${id}`).toHaveProperty(id);
      }
    }
  });

  it("iam:GetRole reaches this account's roles only (issue 8 case 10)", () => {
    const statements = roleStatements();
    const readers = new Set(
      statements
        .filter(
          ({ statement }) => statement.Effect === 'Allow' && actionsOf(statement).includes('iam:GetRole'),
        )
        .map(({ role }) => role),
    );
    expect([...readers].sort()).toEqual(['ReportRole', 'SnapshotWorkerRole']);
    for (const role of readers) {
      const deny = statements.find(
        (s) =>
          s.role === role && s.statement.Effect === 'Deny' && actionsOf(s.statement).includes('iam:GetRole'),
      );
      expect(deny?.statement.NotResource, role).toEqual({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub, not a template
        'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:role/*',
      });
      // The cluster's IAM OIDC provider is read in this account only too.
      const oidc = statements.find(
        (s) =>
          s.role === role &&
          s.statement.Effect === 'Deny' &&
          actionsOf(s.statement).includes('iam:GetOpenIDConnectProvider'),
      );
      expect(oidc?.statement.NotResource, role).toEqual({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub, not a template
        'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:oidc-provider/*',
      });
    }
  });

  it('onEksEvent reads and writes only its own table items, and deletes only idempotency claims (issue 8 case 10)', () => {
    const dynamo = roleStatements().filter(
      ({ role, statement }) =>
        role === 'OnEksEventRole' && actionsOf(statement).some((a) => a.startsWith('dynamodb:')),
    );
    expect(dynamo.length).toBeGreaterThan(0);
    const leadingKeys = (s: Statement) =>
      ((s.Condition?.['ForAllValues:StringLike'] as Json | undefined)?.['dynamodb:LeadingKeys'] ??
        []) as unknown[];
    for (const { statement } of dynamo) expect(leadingKeys(statement), statement.Sid).not.toEqual([]);
    const deletes = dynamo.filter(({ statement }) => actionsOf(statement).includes('dynamodb:DeleteItem'));
    expect(deletes.map(({ statement }) => leadingKeys(statement))).toEqual([['event#cloudtrail:*']]);
    const rest = dynamo.flatMap(({ statement }) => leadingKeys(statement));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub, not a template
    expect(rest).toContainEqual({ 'Fn::Sub': 'cluster#${AWS::AccountId}#*' });
  });

  it('the snapshot worker deletes only its follow-up claims', () => {
    const deletes = roleStatements().filter(
      ({ role, statement }) =>
        role === 'SnapshotWorkerRole' && actionsOf(statement).includes('dynamodb:DeleteItem'),
    );
    expect(
      deletes.map(
        ({ statement }) =>
          (statement.Condition?.['ForAllValues:StringLike'] as Json | undefined)?.['dynamodb:LeadingKeys'],
      ),
    ).toEqual([['event#followup:*']]);
  });

  it('the event function has no EC2 or IAM permission, and its bundle no EC2 or IAM client', () => {
    const eventActions = roleStatements()
      .filter(({ role }) => role === 'OnEksEventRole')
      // remediation=on passes a node role to EKS (asserted with the remediation parameter)
      .filter(({ statement }) => statement.Sid !== 'RemediationPassNodeRole')
      .flatMap(({ statement }) => actionsOf(statement));
    expect(eventActions.filter((a) => a.startsWith('ec2:') || a.startsWith('iam:'))).toEqual([]);
    expect(bundleMeta.onEksEvent?.packages).not.toContain('@aws-sdk/client-ec2');
    expect(bundleMeta.onEksEvent?.packages).not.toContain('@aws-sdk/client-iam');
    expect(bundleMeta.snapshotWorker?.packages).toContain('@aws-sdk/client-ec2');
  });

  it('no function bundle contains the `yaml` package (aws-auth is read by the go-yaml port)', () => {
    expect(Object.keys(bundleMeta).sort()).toEqual([
      'awsAuthCheck',
      'awsAuthWatch',
      'onAuditEvent',
      'onEksEvent',
      'report',
      'scheduler',
      'snapshotWorker',
    ]);
    for (const [name, { packages }] of Object.entries(bundleMeta))
      expect(packages, name).not.toContain('yaml');
  });

  it('the snapshot bucket is encrypted, versioned, private, TLS-only and expires old versions', () => {
    const [[bucketId, bucket]] = ofType('AWS::S3::Bucket').filter(([id]) => id === 'SnapshotBucket') as [
      [string, Resource],
    ];
    const p = bucket.Properties as Json & {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: Array<{ ServerSideEncryptionByDefault: { SSEAlgorithm: string } }>;
      };
    };
    expect(['AES256', 'aws:kms']).toContain(
      p.BucketEncryption.ServerSideEncryptionConfiguration[0]?.ServerSideEncryptionByDefault.SSEAlgorithm,
    );
    expect(p.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(p.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(JSON.stringify(p.LifecycleConfiguration)).toContain('NoncurrentVersionExpiration');
    const policies = ofType('AWS::S3::BucketPolicy').filter(([, r]) =>
      referencedIds(r.Properties.Bucket).includes(bucketId),
    );
    expect(policies).toHaveLength(1);
    const document = policies[0]?.[1].Properties.PolicyDocument as { Statement: Statement[] } | undefined;
    const statements = document?.Statement ?? [];
    const tls = statements.find(
      (s) => s.Effect === 'Deny' && JSON.stringify(s.Condition).includes('aws:SecureTransport'),
    );
    expect(tls?.Condition).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
    expect(resourcesOf(tls as Statement)).toHaveLength(2); // the bucket and its objects
  });

  it('state table on demand with TTL; alert topic encrypted', () => {
    const [, table] = ofType('AWS::DynamoDB::Table')[0] as [string, Resource];
    expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(JSON.stringify(table.Properties.KeySchema)).toBe(
      JSON.stringify([
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ]),
    );
    for (const [, topic] of ofType('AWS::SNS::Topic')) expect(topic.Properties.KmsMasterKeyId).toBeDefined();
    expect(template.Resources.AlertTopic?.Properties.KmsMasterKeyId).toBe('alias/aws/sns');
  });

  it('a DLQ on every async path: SQS redrive, and scheduled/EventBridge invocations', () => {
    const queues = Object.fromEntries(ofType('AWS::SQS::Queue'));
    const work = queues.WorkQueue as Resource;
    const redrive = work.Properties.RedrivePolicy as {
      deadLetterTargetArn: unknown;
      maxReceiveCount: number;
    };
    expect(referencedIds(redrive.deadLetterTargetArn)).toEqual(['WorkDeadLetterQueue']);
    expect(redrive.maxReceiveCount).toBeGreaterThan(1);

    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    // The work queue's, and awsAuthCheck's re-check queue (a message lost there is one look fewer).
    expect(mappings).toHaveLength(2);
    const workMapping = mappings.find(([, m]) =>
      referencedIds(m.Properties.EventSourceArn).includes('WorkQueue'),
    );
    expect(workMapping?.[1].Properties).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: expect.any(Number) },
    });

    // Every function an EventBridge rule invokes (async) has an on-failure destination.
    const invokeConfigs = Object.fromEntries(
      ofType('AWS::Lambda::EventInvokeConfig').map(([, r]) => [
        referencedIds(r.Properties.FunctionName)[0],
        r.Properties,
      ]),
    );
    const rules = ofType('AWS::Events::Rule');
    // The schedule, the EKS CloudTrail rule, the IAM CloudTrail rule (us-east-1 records), and the
    // schedules of awsAuthCheck and awsAuthWatch.
    expect(rules.length).toBe(5);
    for (const [id, rule] of rules) {
      for (const target of rule.Properties.Targets as Array<{
        Arn: unknown;
        DeadLetterConfig?: { Arn: unknown };
      }>) {
        const fn = referencedIds(target.Arn)[0] ?? '';
        const config = invokeConfigs[fn] as
          | { DestinationConfig?: { OnFailure?: { Destination: unknown } } }
          | undefined;
        expect(referencedIds(config?.DestinationConfig?.OnFailure?.Destination), `${id} → ${fn}`).toEqual([
          'AsyncFailureQueue',
        ]);
      }
    }
    const eksRule = rules.find(([, r]) =>
      (JSON.stringify(r.Properties.EventPattern) ?? '').includes('aws.eks'),
    )?.[1];
    const target = ((eksRule?.Properties.Targets ?? []) as Array<{ DeadLetterConfig?: { Arn: unknown } }>)[0];
    expect(referencedIds(target?.DeadLetterConfig?.Arn)).toEqual(['AsyncFailureQueue']);
  });

  it('the IAM rule matches the IAM calls of workload identity (IAM records arrive in us-east-1 only; infra/ forwards them) and skips failed calls', () => {
    const iamRule = ofType('AWS::Events::Rule').find(([, r]) =>
      (JSON.stringify(r.Properties.EventPattern) ?? '').includes('aws.iam'),
    );
    expectIamCallPattern(iamRule?.[1].Properties.EventPattern);
  });

  it('the EKS rule matches the CloudTrail calls of docs/design.md#cloudtrail-events-handled and skips failed calls', () => {
    const eksRule = ofType('AWS::Events::Rule').find(([, r]) =>
      (JSON.stringify(r.Properties.EventPattern) ?? '').includes('aws.eks'),
    );
    const pattern = eksRule?.[1].Properties.EventPattern as {
      source: string[];
      'detail-type': string[];
      detail: { eventName: string[]; errorCode: unknown };
    };
    expect(pattern.source).toEqual(['aws.eks']);
    expect(pattern['detail-type']).toEqual(['AWS API Call via CloudTrail']);
    expect([...pattern.detail.eventName].sort()).toEqual([...HANDLED_EKS_EVENTS].sort());
    expect(pattern.detail.errorCode).toEqual([{ exists: false }]);
  });

  it('alarms watch both DLQs and monitor/source-unavailable', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const watched = alarms.flatMap(
      (a) =>
        (a.Dimensions as Array<{ Value: unknown }> | undefined)?.map((d) => referencedIds(d.Value)[0]) ?? [],
    );
    expect(watched).toEqual(expect.arrayContaining(['WorkDeadLetterQueue', 'AsyncFailureQueue']));
    expect(alarms.some((a) => a.MetricName === 'SourceUnavailable')).toBe(true);
    const filter = ofType('AWS::Logs::MetricFilter')[0]?.[1].Properties;
    expect(filter?.FilterPattern).toContain('sourceUnavailable');
  });
});

describe('serverless package: parameters', () => {
  const environment = (t: Template, fn: string) =>
    (t.Resources[fn]?.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
      ?.Variables ?? {};

  it('without any --param: the deploy Region is watched, Slack is off, no VPC', () => {
    for (const [id] of ofType('AWS::Lambda::Function', defaults)) {
      expect(environment(defaults, id).SENTINEL_REGIONS, id).toBe('eu-west-1');
      expect(environment(defaults, id).SENTINEL_SLACK_WEBHOOK_PARAMETER, id).toBe('disabled');
      expect(defaults.Resources[id]?.Properties, id).not.toHaveProperty('VpcConfig');
    }
    // SlackEnabled is false: the SSM statements are dropped.
    expect(defaults.Conditions?.SlackEnabled).toEqual({
      'Fn::Not': [{ 'Fn::Equals': ['disabled', 'disabled'] }],
    });
    for (const [id, role] of ofType('AWS::IAM::Role', defaults)) {
      expect(role.Properties.ManagedPolicyArns ?? [], id).toEqual([]);
    }
  });

  /** The statements a packaging really grants: each Fn::If resolved by the template's own condition. */
  const effectiveStatements = (t: Template) =>
    ofType('AWS::IAM::Role', t).flatMap(([role, r]) =>
      ((r.Properties.Policies as Array<{ PolicyDocument: { Statement: unknown[] } }>) ?? []).flatMap((p) =>
        p.PolicyDocument.Statement.flatMap((raw) => {
          const ifs = (raw as { 'Fn::If'?: unknown[] })['Fn::If'];
          const [condition, yes, no] = ifs ?? [undefined, raw, raw];
          const st = (
            condition === undefined || conditionHolds(t, String(condition)) ? yes : no
          ) as Statement;
          return (st as { Ref?: string }).Ref === 'AWS::NoValue' ? [] : [{ role, statement: st }];
        }),
      ),
    );
  const READS_OF_EKS = new Set([...READ_ONLY].filter((a) => a.startsWith('eks:')));

  it('remediation off (the default): no write permission on EKS, on IAM or in any cluster, and no remediation ledger', () => {
    for (const t of [defaults, template, withBot, inVpc]) {
      for (const [id] of ofType('AWS::Lambda::Function', t))
        expect(environment(t, id).SENTINEL_REMEDIATION, id).toBe('off');
      expect(conditionHolds(t, 'RemediationOn')).toBe(false);
      expect(conditionHolds(t, 'RemediationEnabled')).toBe(false);
      const granted = effectiveStatements(t).flatMap(({ role, statement }) =>
        actionsOf(statement).map((a) => ({ role, action: a, sid: statement.Sid })),
      );
      expect(granted.length).toBeGreaterThan(30);
      // every EKS action granted is a read of the documented read-only set; none is a write
      expect(granted.filter((g) => g.action.startsWith('eks:') && !READS_OF_EKS.has(g.action))).toEqual([]);
      expect(
        granted.filter((g) => /^(iam:(Pass|Create|Put|Update|Delete|Attach)|sts:AssumeRole)/.test(g.action)),
      ).toEqual([]);
      expect(granted.filter((g) => String(g.sid ?? '').startsWith('Remediation'))).toEqual([]);
    }
    // Kubernetes writes are RBAC inside each cluster: nothing in the stack grants them.
    expect(JSON.stringify(defaults)).not.toMatch(/remediators|configmaps/);
  });

  it("remediation=on: onEksEvent alone may create node access entries of this account's clusters; the aws-auth paths only keep the ledger", () => {
    expect(conditionHolds(remediationOn, 'RemediationOn')).toBe(true);
    const writes = effectiveStatements(remediationOn).filter(({ statement }) =>
      String(statement.Sid ?? '').startsWith('Remediation'),
    );
    expect(writes.map((w) => `${w.role}: ${w.statement.Sid}`).sort()).toEqual([
      // The aws-auth paths restore through Kubernetes RBAC: their role only records and caps.
      'AwsAuthRole: RemediationLedger',
      'AwsAuthRole: RemediationRateLimit',
      'OnEksEventRole: RemediationAssociateAutoNodePolicy',
      'OnEksEventRole: RemediationCreateAccessEntry',
      'OnEksEventRole: RemediationLedger',
      'OnEksEventRole: RemediationPassNodeRole',
      'OnEksEventRole: RemediationRateLimit',
    ]);
    const bySid = new Map(writes.map((w) => [w.statement.Sid, w.statement]));
    expect(JSON.stringify(bySid.get('RemediationCreateAccessEntry')?.Resource)).toContain(
      ':eks:*:${AWS::AccountId}:cluster/*',
    );
    expect(bySid.get('RemediationPassNodeRole')?.Condition).toEqual({
      StringEquals: { 'iam:PassedToService': 'eks.amazonaws.com' },
    });
    for (const [id] of ofType('AWS::Lambda::Function', remediationOn))
      expect(environment(remediationOn, id).SENTINEL_REMEDIATION, id).toBe('on');
  });

  it('with slackBotTokenParameter and slackChannel: bot-token mode, ssm:GetParameter on that parameter only', () => {
    for (const [id] of ofType('AWS::Lambda::Function', withBot)) {
      expect(environment(withBot, id).SENTINEL_SLACK_BOT_TOKEN_PARAMETER, id).toBe(
        '/eks-auth-sentinel/slack-bot-token',
      );
      expect(environment(withBot, id).SENTINEL_SLACK_CHANNEL, id).toBe('C0123456789');
      expect(environment(withBot, id).SENTINEL_SLACK_WEBHOOK_PARAMETER, id).toBe('disabled');
    }
    expect(withBot.Conditions?.SlackBotEnabled).toEqual({
      'Fn::Not': [{ 'Fn::Equals': ['/eks-auth-sentinel/slack-bot-token', 'disabled'] }],
    });
    expect(withBot.Conditions?.SlackEnabled).toEqual({
      'Fn::Not': [{ 'Fn::Equals': ['disabled', 'disabled'] }],
    });
    const grants =
      JSON.stringify(withBot.Resources).match(/parameter\/eks-auth-sentinel\/slack-bot-token/g) ?? [];
    expect(grants.length).toBe(3); // the worker's, the event function's and the aws-auth paths' roles
    expect(defaults.Conditions?.SlackBotEnabled).toEqual({
      'Fn::Not': [{ 'Fn::Equals': ['disabled', 'disabled'] }],
    });
  });

  it('with subnetIds and securityGroupIds: the Kubernetes-reading functions run in the VPC, with ENI permissions; the scheduler does not', () => {
    for (const id of KUBERNETES_READERS) {
      expect(inVpc.Resources[id]?.Properties.VpcConfig, id).toEqual({
        SubnetIds: SUBNETS,
        SecurityGroupIds: [SECURITY_GROUP],
      });
    }
    expect(inVpc.Resources.SchedulerLambdaFunction?.Properties).not.toHaveProperty('VpcConfig');
    const managed = Object.fromEntries(
      ofType('AWS::IAM::Role', inVpc).map(([id, r]) => [
        id,
        JSON.stringify(r.Properties.ManagedPolicyArns ?? []),
      ]),
    );
    for (const role of ['SnapshotWorkerRole', 'OnEksEventRole', 'ReportRole']) {
      expect(managed[role], role).toContain(':iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole');
    }
    expect(managed.SchedulerRole).toBe('[]');
  });

  it('outputs one role ARN per parameter of infra/cloudformation/cluster-read-access.yaml, and the list for Terraform', () => {
    const outputs = template.Outputs as Record<string, { Value: unknown }>;
    expect(outputs.WorkerRoleArn?.Value).toEqual({ 'Fn::GetAtt': ['SnapshotWorkerRole', 'Arn'] });
    expect(outputs.EventRoleArn?.Value).toEqual({ 'Fn::GetAtt': ['OnEksEventRole', 'Arn'] });
    expect(outputs.ReportRoleArn?.Value).toEqual({ 'Fn::GetAtt': ['ReportRole', 'Arn'] });
    const readAccess = readFileSync(
      join(ROOT, 'infra', 'cloudformation', 'cluster-read-access.yaml'),
      'utf8',
    );
    for (const name of ['WorkerRoleArn', 'EventRoleArn', 'ReportRoleArn'])
      expect(readAccess).toContain(`  ${name}:`);
    expect(JSON.stringify(outputs.MonitorRoleArns?.Value)).toContain('Fn::Join');
  });

  it('before bundling, or with parameters that do not fit, it exits 1 with one line per problem naming the fix', () => {
    // A copy of the service without dist/: what a fresh checkout has.
    const fresh = copyService(join(work, 'fresh-checkout'));
    const attempt = (params: string[]) => {
      const result = spawnSync(
        process.execPath,
        [SERVERLESS, 'package', '--region', 'eu-west-1', ...params],
        {
          cwd: fresh,
          env: OFFLINE_ENV,
          encoding: 'utf8',
          timeout: 120_000,
        },
      );
      const lines = `${result.stdout}${result.stderr}`.split('\n').map((l) => l.trim());
      return { status: result.status, lines, text: lines.join('\n') };
    };

    const unbundled = attempt([]);
    expect(unbundled.status).toBe(1);
    expect(unbundled.text).toMatch(
      /no bundle at dist\/functions\/scheduler\/index\.js, .*: run `npm run bundle` first/,
    );
    expect(unbundled.text).not.toContain('No file matches include / exclude patterns');
    expect(unbundled.text).not.toContain('Cannot resolve variable');

    const wrong = attempt([
      '--param=subnetIds=subnet-0123456789abcdef0,vpc-1',
      '--param=regions=eu-west-1,mars',
      '--param=slackWebhookParameter=https://hooks.slack.com/services/T/B/x',
      '--param=slackBotTokenParameter=xoxb-1234-pasted-token',
    ]);
    expect(wrong.status).toBe(1);
    expect(wrong.text).not.toContain('pasted-token');
    const problems = wrong.lines.filter((l) =>
      /^(subnetIds|securityGroupIds|regions|slackWebhookParameter|slackBotTokenParameter|slackChannel)\b/.test(
        l,
      ),
    );
    expect(problems).toEqual([
      'subnetIds: "vpc-1" is not a subnet ID (subnet-0123456789abcdef0)',
      'subnetIds is set but securityGroupIds is not: add --param=securityGroupIds=sg-…',
      'regions: "mars" is not a Region: --param=regions=eu-west-1,us-east-1',
      `slackWebhookParameter: "https://hooks.slack.com/services/T/B/x" is neither an SSM parameter name under /eks-auth-sentinel/ (the functions' permissions boundary allows no other) nor "disabled": --param=slackWebhookParameter=/eks-auth-sentinel/slack-webhook`,
      'slackBotTokenParameter: neither an SSM parameter name under /eks-auth-sentinel/ nor "disabled" (the name of the parameter, never the token): --param=slackBotTokenParameter=/eks-auth-sentinel/slack-bot-token',
      'slackBotTokenParameter: set either it or slackWebhookParameter, not both: drop --param=slackWebhookParameter=…',
      'slackChannel: a channel ID is needed with slackBotTokenParameter: --param=slackChannel=C0123456789',
    ]);

    // A typo'd --param, or one in the stage's params: block, is refused with the known names
    // (osls itself would deploy the default); the value is never echoed.
    const known = Object.keys(
      (
        parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8'), { logLevel: 'silent' }) as {
          params: { default: Record<string, unknown> };
        }
      ).params.default,
    ).filter((name) => name !== 'target');
    expect(known).toContain('slackWebhookParameter');
    const list = `the parameters are ${known.join(', ')}`;
    const typo = attempt(['--param=slackWebhookParamter=/eks-auth-sentinel/secret-name']);
    expect(typo.status).toBe(1);
    expect(typo.lines).toContain(
      `--param=slackWebhookParamter=…: no parameter "slackWebhookParamter"; ${list}`,
    );
    expect(typo.text).not.toContain('secret-name');
    const withStage = readFileSync(join(ROOT, 'serverless.yml'), 'utf8').replace(
      '\nparams:\n',
      '\nparams:\n  prod:\n    regoins: eu-west-1,us-east-1\n',
    );
    writeFileSync(join(fresh, 'serverless.yml'), withStage);
    const stageTypo = attempt(['--stage', 'prod']);
    expect(stageTypo.status).toBe(1);
    expect(stageTypo.lines).toContain(
      `params.prod.regoins in serverless.yml: no parameter "regoins"; ${list}`,
    );
  }, 300_000);
});

describe('serverless package: the deployer cannot make itself admin', () => {
  const STACK = 'eks-auth-sentinel-test';
  const all = () => [template, defaults, withBot, inVpc, remediationOn];
  const stackOf = (t: Template) => ({ name: STACK, resources: t.Resources });
  const request = (r: Omit<StackRequest, 'for'>) => ({ principalArn: DEPLOYER, ...r });
  const allowed = (r: Omit<StackRequest, 'for'>) => allows(DEPLOYER_POLICY, request(r));
  const denied = (r: Omit<StackRequest, 'for'>) => denies(DEPLOYER_POLICY, request(r));

  it('fits in one managed policy (6,144 characters without whitespace), as does the boundary', () => {
    for (const policy of [DEPLOYER_POLICY, BOUNDARY_POLICY])
      expect(JSON.stringify(policy).length).toBeLessThanOrEqual(6_144);
  });

  it('allows every call deploying and removing the stack makes, for every resource of every packaging', () => {
    const refused: string[] = [];
    for (const t of all()) {
      const stack = stackOf(t);
      const requests = [
        ...stackRequests(stack),
        ...Object.keys(t.Resources).flatMap((id) => resourceRequests(stack, id)),
      ];
      expect(requests.length).toBeGreaterThan(100);
      for (const r of requests) {
        if (!allowed(r))
          refused.push(`${r.for}: ${r.action} on ${r.resource} ${JSON.stringify(r.context ?? {})}`);
      }
    }
    expect([...new Set(refused)]).toEqual([]);
  });

  it('every role of every packaging carries the permissions boundary, and CreateRole is refused without it', () => {
    const boundary = {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub, not a template
      'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:policy/eks-auth-sentinel-function-boundary',
    };
    for (const t of all()) {
      const roles = ofType('AWS::IAM::Role', t);
      expect(roles.length).toBe(5);
      for (const [id, role] of roles) {
        expect(role.Properties.PermissionsBoundary, id).toEqual(boundary);
        expect(resolve(stackOf(t), boundary)).toBe(BOUNDARY_ARN);
        const arn = `arn:aws:iam::${ACCOUNT}:role/${String(role.Properties.RoleName)}`;
        expect(denied({ action: 'iam:CreateRole', resource: arn }), id).toBe(true);
        expect(
          denied({
            action: 'iam:CreateRole',
            resource: arn,
            context: { 'iam:PermissionsBoundary': `arn:aws:iam::${ACCOUNT}:policy/AdministratorAccess` },
          }),
          id,
        ).toBe(true);
        for (const action of ['iam:PutRolePolicy', 'iam:AttachRolePolicy', 'iam:DeleteRolePolicy'])
          expect(denied({ action, resource: arn }), `${id} ${action} without the boundary`).toBe(true);
      }
    }
  });

  it('cannot widen a role of the stack, lift its boundary or rewrite the boundary itself', () => {
    const role = `arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel-test-eu-west-1-worker`;
    const withBoundary = { 'iam:PermissionsBoundary': BOUNDARY_ARN };
    const attempts: Array<Omit<StackRequest, 'for'>> = [
      {
        action: 'iam:AttachRolePolicy',
        resource: role,
        context: { ...withBoundary, 'iam:PolicyARN': 'arn:aws:iam::aws:policy/AdministratorAccess' },
      },
      {
        action: 'iam:PutRolePermissionsBoundary',
        resource: role,
        context: { 'iam:PermissionsBoundary': 'arn:aws:iam::aws:policy/AdministratorAccess' },
      },
      { action: 'iam:DeleteRolePermissionsBoundary', resource: role, context: withBoundary },
      { action: 'iam:UpdateAssumeRolePolicy', resource: role, context: withBoundary },
      ...[
        'iam:CreatePolicyVersion',
        'iam:SetDefaultPolicyVersion',
        'iam:DeletePolicyVersion',
        'iam:DeletePolicy',
      ].map((action) => ({ action, resource: BOUNDARY_ARN })),
      { action: 'iam:CreatePolicy', resource: BOUNDARY_ARN },
    ];
    for (const a of attempts) expect(denied(a), `${a.action} ${a.resource}`).toBe(true);
  });

  it('touches nothing outside the stack: roles, keys, stacks, mappings, alarms and every other resource named otherwise', () => {
    const other = (service: string, resource: string) =>
      `arn:aws:${service}:${REGION}:${ACCOUNT}:${resource}`;
    const boundary = { 'iam:PermissionsBoundary': BOUNDARY_ARN };
    const attempts: Array<Omit<StackRequest, 'for'>> = [
      // roles: another name, even with the boundary; passing one to Lambda or the stack's to EC2
      { action: 'iam:CreateRole', resource: `arn:aws:iam::${ACCOUNT}:role/admin`, context: boundary },
      { action: 'iam:PutRolePolicy', resource: `arn:aws:iam::${ACCOUNT}:role/admin`, context: boundary },
      { action: 'iam:DeleteRole', resource: `arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel-admin` },
      {
        action: 'iam:PassRole',
        resource: `arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel-admin`,
        context: { 'iam:PassedToService': 'lambda.amazonaws.com' },
      },
      {
        action: 'iam:PassRole',
        resource: `arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel-test-eu-west-1-worker`,
        context: { 'iam:PassedToService': 'ec2.amazonaws.com' },
      },
      // KMS: no key-policy or deletion rights on keys this stack did not create
      ...['kms:PutKeyPolicy', 'kms:ScheduleKeyDeletion', 'kms:DescribeKey', 'kms:TagResource'].flatMap(
        (action) => [
          { action, resource: other('kms', 'key/0f0f0f0f-1111-2222-3333-444444444444') },
          {
            action,
            resource: other('kms', 'key/0f0f0f0f-1111-2222-3333-444444444444'),
            context: { 'aws:ResourceTag/aws:cloudformation:stack-name': 'payments-prod' },
          },
        ],
      ),
      // stacks, event source mappings and alarms of others
      ...['cloudformation:DeleteStack', 'cloudformation:UpdateStack', 'cloudformation:ExecuteChangeSet'].map(
        (action) => ({
          action,
          resource: other('cloudformation', 'stack/payments-prod/5c4ea2d0-6a1f-11ef-9a4d-0a8f2c5d7e11'),
        }),
      ),
      ...[
        'lambda:DeleteEventSourceMapping',
        'lambda:UpdateEventSourceMapping',
        'lambda:CreateEventSourceMapping',
      ].map((action) => ({
        action,
        resource: other('lambda', 'event-source-mapping:0b3c2c6e-8a5f-4d7e-9c1b-2f6a7e8d9c0b'),
        context: { 'lambda:FunctionArn': other('lambda', 'function:payments-consumer') },
      })),
      { action: 'cloudwatch:DeleteAlarms', resource: other('cloudwatch', 'alarm:payments-p99') },
      // an alarm of the stack whose action terminates instances
      {
        action: 'cloudwatch:PutMetricAlarm',
        resource: other('cloudwatch', 'alarm:eks-auth-sentinel-test-WorkDeadLetterAlarm-X'),
        context: { 'cloudwatch:AlarmActions': [`arn:aws:automate:${REGION}:ec2:terminate`] },
      },
    ];
    for (const a of attempts)
      expect(denied(a), `${a.action} ${a.resource} ${JSON.stringify(a.context ?? {})}`).toBe(true);
  });

  it('every action it allows on a named resource is refused on the same kind of resource named otherwise', () => {
    // Actions that take no resource (IAM requires `*`): reads, and CreateKey (a new key is the stack's).
    const NO_RESOURCE_LEVEL = new Set([
      'cloudformation:ValidateTemplate',
      'logs:DescribeLogGroups',
      'ec2:DescribeSubnets',
      'ec2:DescribeSecurityGroups',
      'ec2:DescribeVpcs',
      'kms:CreateKey',
    ]);
    const outside = (pattern: string) =>
      pattern
        .replace(/eks-auth-sentinel/g, 'payments')
        .split(':')
        .map((part, i) => (i === 3 && part === '*' ? REGION : i === 4 && part === '*' ? ACCOUNT : part))
        .join(':')
        .replace(/\*/g, 'x');
    let checked = 0;
    for (const st of DEPLOYER_POLICY.Statement.filter((s) => s.Effect === 'Allow')) {
      for (const action of actionsOf(st)) {
        for (const pattern of resourcesOf(st) as string[]) {
          if (pattern === '*') {
            if (NO_RESOURCE_LEVEL.has(action)) continue;
            // `*` with a condition that names the stack's functions (event source mappings)
            expect(JSON.stringify(st.Condition), `${st.Sid} ${action}`).toContain('eks-auth-sentinel-*');
            continue;
          }
          const resource = outside(pattern);
          expect(resource, pattern).not.toContain('eks-auth-sentinel');
          expect(denied({ action, resource }), `${st.Sid}: ${action} on ${resource}`).toBe(true);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(80);
  });

  it('the boundary allows what every role of every packaging is given, and the VPC managed policy', () => {
    const instantiate = (pattern: string) =>
      pattern
        .split(':')
        .map((part, i) =>
          i === 1 && part === '*'
            ? 'aws'
            : i === 3 && part === '*'
              ? REGION
              : i === 4 && part === '*'
                ? ACCOUNT
                : part,
        )
        .join(':')
        .replace(/\*/g, 'x');
    const context = {
      'kms:ViaService': `ssm.${REGION}.amazonaws.com`,
      'kms:CallerAccount': ACCOUNT,
      's3:prefix': 'snapshots/prod',
      'iam:PassedToService': 'eks.amazonaws.com',
    };
    const missing: string[] = [];
    for (const t of all()) {
      for (const [id, role] of ofType('AWS::IAM::Role', t)) {
        const principalArn = `arn:aws:iam::${ACCOUNT}:role/${String(role.Properties.RoleName)}`;
        for (const policy of (role.Properties.Policies as Array<{
          PolicyDocument: { Statement: unknown[] };
        }>) ?? []) {
          for (const raw of policy.PolicyDocument.Statement) {
            const ifs = (raw as { 'Fn::If'?: unknown[] })['Fn::If'];
            // The branch the packaging's condition takes (SlackEnabled: the parameter is not `disabled`).
            const [condition, yes, no] = ifs ?? [undefined, raw, raw];
            const st = (
              condition === undefined || conditionHolds(t, String(condition)) ? yes : no
            ) as Statement;
            if ((st as { Ref?: string }).Ref === 'AWS::NoValue' || st.Effect !== 'Allow') continue;
            const resources = [resolve(stackOf(t), st.Resource)].flat() as string[];
            for (const action of actionsOf(st)) {
              for (const resource of resources.map((r) => (r === '*' ? '*' : instantiate(r)))) {
                const target = resource === '*' ? `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/prod` : resource;
                if (
                  !allows(BOUNDARY_POLICY, {
                    principalArn,
                    action,
                    resource: target,
                    context: { ...context, 'aws:PrincipalArn': principalArn },
                  })
                )
                  missing.push(`${id}: ${action} on ${target}`);
              }
            }
          }
        }
      }
    }
    // AWSLambdaVPCAccessExecutionRole: Lambda manages the functions' network interfaces with it.
    for (const action of [
      'ec2:CreateNetworkInterface',
      'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSubnets',
      'ec2:DeleteNetworkInterface',
      'ec2:AssignPrivateIpAddresses',
      'ec2:UnassignPrivateIpAddresses',
    ]) {
      const principalArn = `arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel-test-eu-west-1-worker`;
      if (!allows(BOUNDARY_POLICY, { principalArn, action, resource: '*' })) missing.push(`VPC: ${action}`);
    }
    expect(missing).toEqual([]);
  });

  it('the boundary keeps a function to this account and the stack: no other parameter, key, role reader or write', () => {
    const principalArn = `arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel-test-eu-west-1-worker`;
    const attempts: Array<{ action: string; resource: string; context?: Record<string, string> }> = [
      {
        action: 'ssm:GetParameter',
        resource: `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/prod/database-password`,
      },
      {
        action: 'kms:Decrypt',
        resource: `arn:aws:kms:${REGION}:${ACCOUNT}:key/0f0f0f0f-1111-2222-3333-444444444444`,
        context: { 'kms:CallerAccount': ACCOUNT },
      },
      { action: 'iam:GetRole', resource: 'arn:aws:iam::999988887777:role/admin' },
      { action: 'sqs:SendMessage', resource: `arn:aws:sqs:${REGION}:${ACCOUNT}:payments-orders` },
      { action: 's3:GetObject', resource: 'arn:aws:s3:::payments-exports/2024/11/20.csv' },
      { action: 'iam:CreateRole', resource: `arn:aws:iam::${ACCOUNT}:role/x` },
      { action: 'iam:PassRole', resource: `arn:aws:iam::${ACCOUNT}:role/x` },
      // remediation's writes are the event function's alone
      {
        action: 'eks:CreateAccessEntry',
        resource: `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/prod`,
        context: { 'aws:PrincipalArn': principalArn },
      },
      {
        action: 'iam:PassRole',
        resource: `arn:aws:iam::${ACCOUNT}:role/x`,
        context: { 'iam:PassedToService': 'eks.amazonaws.com', 'aws:PrincipalArn': principalArn },
      },
      { action: 'lambda:UpdateFunctionCode', resource: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:x` },
    ];
    for (const a of attempts)
      expect(denies(BOUNDARY_POLICY, { principalArn, ...a }), `${a.action} on ${a.resource}`).toBe(true);
  });

  it('the alarm key lets CloudWatch use it for this stack’s alarms only; the functions’ key grants name this account', () => {
    const key = template.Resources.AlarmTopicKey?.Properties.KeyPolicy as { Statement: Statement[] };
    const cloudwatch = key.Statement.find((s) => s.Sid === 'CloudWatchPublishesAlarms');
    expect(cloudwatch?.Condition).toEqual({
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: {
        'aws:SourceArn': {
          'Fn::Sub':
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub, not a template
            'arn:${AWS::Partition}:cloudwatch:${AWS::Region}:${AWS::AccountId}:alarm:${AWS::StackName}-*',
        },
      },
    });
    // A kms:CallerAccount condition would refuse CloudWatch's publish (serverless.yml says why).
    expect(JSON.stringify(cloudwatch)).not.toContain('kms:CallerAccount');
    const kmsGrants = roleStatements().filter(({ statement }) =>
      actionsOf(statement).some((a) => a.startsWith('kms:')),
    );
    expect(kmsGrants.length).toBe(3);
    for (const { statement } of kmsGrants) {
      expect(statement.Condition?.StringEquals).toMatchObject({
        'kms:CallerAccount': { Ref: 'AWS::AccountId' },
      });
    }
  });
});
