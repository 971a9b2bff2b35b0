import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_VARIABLES } from '../../shared/app/config.ts';
import { ROOT } from '../support/snapshot-builder.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const deploy = readme.slice(
  readme.indexOf('## Deploy'),
  readme.indexOf('\n## ', readme.indexOf('## Deploy') + 1),
);

// CloudFormation short tags are irrelevant here: read them as plain strings.
const SHORT_TAGS = ['!Ref', '!GetAtt', '!Sub', '!If', '!Not', '!Equals', '!Join'].map((tag) => ({
  tag,
  resolve: (v: unknown) => v,
}));
const serverlessYml = parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8'), {
  customTags: [...SHORT_TAGS, ...SHORT_TAGS.map((t) => ({ ...t, collection: 'seq' as const }))],
}) as {
  params: Record<string, Record<string, unknown>>;
  resources: { Resources: Record<string, { Type: string }>; Outputs: Record<string, unknown> };
};

/** The `### name` subsection of the Deploy section. */
function subsection(name: string): string {
  const start = deploy.indexOf(`### ${name}`);
  expect(start, name).toBeGreaterThan(-1);
  const end = deploy.indexOf('\n### ', start + 1);
  return deploy.slice(start, end === -1 ? undefined : end);
}

describe('README "Deploy"', () => {
  it('documents every variable of the config schema, with its default', () => {
    expect(deploy.length).toBeGreaterThan(100);
    for (const [name, spec] of Object.entries(CONFIG_VARIABLES)) {
      const row = deploy.split('\n').find((line) => line.startsWith(`| \`${name}\``));
      expect(row, name).toBeDefined();
      expect(row).toContain(spec.required ? '| yes |' : '| no |');
      if ('default' in spec) expect(row).toContain(`\`${spec.default}\``);
    }
  });

  it('documents every parameter of serverless.yml', () => {
    const sls = serverlessYml;
    const names = new Set([
      ...Object.keys(sls.params.default ?? {}),
      ...[...readFileSync(join(ROOT, 'serverless.yml'), 'utf8').matchAll(/\$\{param:(\w+)/g)].map(
        (m) => m[1] ?? '',
      ),
    ]);
    names.delete('target'); // internal: which values the functions' environment points at
    for (const name of names) expect(deploy, name).toContain(`\`${name}\``);
  });

  it("names the deployer's permissions, and infra/iam/deployer-policy.json covers every service the stack creates resources in", () => {
    const section = subsection('Before the first deploy');
    expect(section).toContain('infra/iam/deployer-policy.json');
    const policy = JSON.parse(readFileSync(join(ROOT, 'infra', 'iam', 'deployer-policy.json'), 'utf8')) as {
      Statement: Array<{ Action: string | string[] }>;
    };
    const actions = policy.Statement.flatMap((st) => [st.Action].flat());
    const prefixes = new Set(actions.map((a) => a.split(':')[0]));
    // What serverless.yml declares, plus what osls generates for the functions and their events.
    const types = new Set([
      ...Object.values(serverlessYml.resources.Resources).map((r) => r.Type),
      'AWS::Lambda::Function',
      'AWS::Lambda::EventSourceMapping',
      'AWS::Lambda::EventInvokeConfig',
      'AWS::Lambda::Permission',
      'AWS::Events::Rule',
      'AWS::Logs::LogGroup',
      'AWS::S3::Bucket',
    ]);
    const PREFIX: Record<string, string> = { CloudWatch: 'cloudwatch', Logs: 'logs', Events: 'events' };
    for (const type of types) {
      const service = type.split('::')[1] ?? '';
      const prefix = PREFIX[service] ?? service.toLowerCase();
      expect(prefixes.has(prefix), `${type} → ${prefix}:`).toBe(true);
    }
    expect(actions).toEqual(
      expect.arrayContaining(['cloudformation:CreateChangeSet', 'iam:PassRole', 'ssm:PutParameter']),
    );
    for (const prefix of [
      'cloudformation:',
      'lambda:',
      'iam:',
      's3:',
      'dynamodb:',
      'sqs:',
      'sns:',
      'ssm:',
      'events:',
      'logs:',
    ]) {
      expect(section, prefix).toContain(prefix);
    }
  });

  it('says that EventBridge needs a CloudTrail trail logging management events', () => {
    expect(subsection('Before the first deploy')).toMatch(
      /CloudTrail trail[\s\S]*management \(write\) events/,
    );
  });

  it('stores the Slack webhook in a way that works on AWS CLI v1 and v2 (no URL as a --value)', () => {
    expect(readme).not.toMatch(/put-parameter[^\n]*--value\s+["']?https?:/);
    const section = subsection('Before the first deploy');
    expect(section).toContain('aws ssm put-parameter --cli-input-json file://');
    expect(section).toContain('cli_follow_urlparam');
  });

  it('names the stack outputs the cluster-access templates take, and they exist', () => {
    const section = subsection('After the first deploy');
    for (const name of ['WorkerRoleArn', 'EventRoleArn', 'ReportRoleArn', 'MonitorRoleArns']) {
      expect(serverlessYml.resources.Outputs, name).toHaveProperty(name);
      expect(section, name).toContain(`\`${name}\``);
    }
    expect(section).toContain('aws_auth_eksctl_commands');
  });

  it('covers private clusters: the VPC parameters, every endpoint or NAT the functions need, the 443 rule', () => {
    const section = subsection('Private clusters');
    for (const p of ['subnetIds', 'securityGroupIds']) expect(section).toContain(`--param="${p}=`);
    expect(section).toContain('AWSLambdaVPCAccessExecutionRole');
    const rows = section.split('\n').filter((l) => l.startsWith('| '));
    for (const service of ['EKS', 'STS', 'SNS', 'S3', 'DynamoDB', 'SQS', 'SSM', 'EC2', 'IAM', 'Slack']) {
      expect(
        rows.some((r) => r.startsWith(`| ${service} |`)),
        service,
      ).toBe(true);
    }
    expect(rows.find((r) => r.startsWith('| IAM |'))).toContain('NAT');
    expect(section).toMatch(/com\.amazonaws\.iam[\s\S]*us-east-1/);
    expect(section).toMatch(/authorize-security-group-ingress[^\n]*--port 443/);
  });

  it('covers updating (the same params, or a params: stage block) and teardown (the retained bucket and table)', () => {
    const section = subsection('Updating and teardown');
    expect(section).toContain('**same** `--param`s');
    expect(section).toMatch(/```yaml\nparams:\n {2}prod:\n/);
    expect(section).toContain('npx serverless remove');
    expect(section).toContain('DeletionPolicy: Retain');
    expect(section).toContain('aws s3api delete-bucket');
    expect(section).toContain('aws dynamodb delete-table');
    for (const output of ['SnapshotBucketName', 'StateTableName']) {
      expect(serverlessYml.resources.Outputs, output).toHaveProperty(output);
      expect(section).toContain(`\`${output}\``);
    }
  });
});
