/**
 * `serverless package` (osls) runs offline and the CloudFormation it writes holds what the
 * deployment promises: least-privilege IAM, a locked-down bucket, DLQs on every async path,
 * Node 22 on arm64, alarms. The bundle script runs first (the package zips the bundles).
 * Network access is made to fail (proxy to a closed port): packaging must not need it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../fakes/snapshot-builder.ts';

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties: Json;
}
interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
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

let template: { Resources: Record<string, Resource>; Conditions?: Json; Outputs?: Json };
let bundleMeta: Record<string, { bytes: number; packages: string[] }>;

function run(command: string, args: string[]): void {
  execFileSync(command, args, { cwd: ROOT, env: OFFLINE_ENV, stdio: 'pipe', timeout: 120_000 });
}

beforeAll(() => {
  run(process.execPath, ['scripts/bundle-functions.mjs']);
  run(process.execPath, [
    'node_modules/osls/bin/serverless.js',
    'package',
    '--stage',
    'test',
    '--region',
    'eu-west-1',
    '--param=regions=eu-west-1,us-east-1',
    '--param=slackWebhookParameter=/eks-auth-sentinel/slack-webhook',
  ]);
  template = JSON.parse(
    readFileSync(join(ROOT, '.serverless', 'cloudformation-template-update-stack.json'), 'utf8'),
  );
  bundleMeta = JSON.parse(readFileSync(join(ROOT, 'dist', 'functions', 'meta.json'), 'utf8'));
}, 180_000);

const ofType = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);

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
      });
    expect(outside).toEqual([]);
    for (const { statement } of roleStatements()) {
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
          expect(JSON.stringify(resource)).toContain(':parameter/eks-auth-sentinel/slack-webhook');
          continue;
        }
        const ids = referencedIds(resource);
        expect(ids.length, `${role} ${writes.join(',')} → ${JSON.stringify(resource)}`).toBeGreaterThan(0);
        for (const id of ids) expect(template.Resources, `${role} refers to ${id}`).toHaveProperty(id);
      }
    }
  });

  it('the event function has no EC2 or IAM permission, and its bundle no EC2 or IAM client', () => {
    const eventActions = roleStatements()
      .filter(({ role }) => role === 'OnEksEventRole')
      .flatMap(({ statement }) => actionsOf(statement));
    expect(eventActions.filter((a) => a.startsWith('ec2:') || a.startsWith('iam:'))).toEqual([]);
    expect(bundleMeta.onEksEvent?.packages).not.toContain('@aws-sdk/client-ec2');
    expect(bundleMeta.onEksEvent?.packages).not.toContain('@aws-sdk/client-iam');
    expect(bundleMeta.snapshotWorker?.packages).toContain('@aws-sdk/client-ec2');
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
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.[1].Properties).toMatchObject({
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
    expect(rules.length).toBe(2);
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

  it('the EKS rule matches the 10 CloudTrail calls of docs/design.md#cloudtrail-events-handled and skips failed calls', () => {
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
    expect(pattern.detail.eventName).toHaveLength(10);
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
