/** Issue 10's CLI papercuts, one test each. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toAwsApiError } from '../../shared/adapters/errors.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { createFakeIo, deleteNodegroupEvent, REPO_ROOT } from '../support/fake-io.ts';

const KARPENTER = 'scenarios/a-karpenter-shares-last-nodegroup-role.json';

function karpenterWith(edit: (s: Record<string, unknown>) => void): string {
  const snapshot = JSON.parse(readFileSync(join(REPO_ROOT, KARPENTER), 'utf8')) as Record<string, unknown>;
  edit(snapshot);
  return JSON.stringify(snapshot, null, 2);
}

async function run(argv: string[], files: Record<string, string> = {}) {
  const fake = createFakeIo(files);
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

describe('issue 10 CLI papercuts', () => {
  it('accepts --fail-on in the case the output prints it (HIGH, None)', async () => {
    const whatif = ['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'general'];
    const upper = await run([...whatif, '--fail-on', 'HIGH']);
    expect(upper.err).toBe('');
    expect(upper.code).toBe(1);
    const none = await run([...whatif, '--fail-on', 'None']);
    expect(none.err).toBe('');
    expect(none.code).toBe(0);
  });
});

describe('issue 10 text output', () => {
  it('shows each fix once, flush left between indented frame lines, with no Markdown fence', async () => {
    const { code, out } = await run(['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'general']);
    expect(code).toBe(1);
    expect(out).not.toMatch(/^ {0,3}(`{3,}|~{3,})/m);
    const command = 'aws eks create-access-entry --cluster-name prod --region eu-west-1 \\';
    expect(out.split('\n').filter((line) => line === command)).toHaveLength(1);
    expect(out).toMatch(/\n {4}--- sh ---\n# Durable: access entries[\s\S]*?\n {4}--- end ---\n/);
    expect(out).toMatch(/\n {4}--- yaml ---\n- rolearn: arn:aws:iam::111122223333:role\/prod-node-role\n/);
  });
});

describe('issue 10 diff order', () => {
  it('refuses --before captured after --after, naming both times, exit 2', async () => {
    const later = karpenterWith((s) => {
      s.capturedAt = '2030-01-01T00:00:00.000Z';
    });
    const { code, out, err } = await run(['diff', '--before', 'later.json', '--after', KARPENTER], {
      'later.json': later,
    });
    const before = (JSON.parse(readFileSync(join(REPO_ROOT, KARPENTER), 'utf8')) as { capturedAt: string })
      .capturedAt;
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(/^eks-auth-sentinel: [^\n]+\n$/);
    expect(err).toContain('2030-01-01T00:00:00.000Z');
    expect(err).toContain(before);
    const inOrder = await run(['diff', '--before', KARPENTER, '--after', 'later.json'], {
      'later.json': later,
    });
    expect(inOrder.code).toBe(0);
  });
});

describe('issue 10 version stamp', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  const tool = { name: 'eks-auth-sentinel', version: pkg.version, snapshotSchemaVersion: 1 };

  it('--version names the snapshot schema version too', async () => {
    const { code, out } = await run(['--version']);
    expect(code).toBe(0);
    expect(out).toBe(`eks-auth-sentinel ${pkg.version} (snapshot schema 1)\n`);
  });

  it.each([
    ['assess', ['assess', '--snapshot', KARPENTER]],
    ['whatif', ['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'general']],
    ['diff', ['diff', '--before', KARPENTER, '--after', KARPENTER]],
  ])('%s --format json carries tool {name, version, snapshotSchemaVersion} first', async (_, argv) => {
    const { out } = await run([...argv, '--format', 'json']);
    const parsed = JSON.parse(out) as Record<string, unknown>;
    expect(Object.keys(parsed)[0]).toBe('tool');
    expect(parsed.tool).toEqual(tool);
  });
});

describe('issue 10 credential errors', () => {
  // What the SDK throws: a named error with the HTTP status in $metadata (403 for all of these).
  it.each([
    'InvalidSignatureException',
    'SignatureDoesNotMatch',
    'UnrecognizedClientException',
    'InvalidClientTokenId',
    'ExpiredToken',
  ])('%s is a credential problem, not a missing eks:DescribeCluster', (name) => {
    const thrown = Object.assign(new Error('The request signature we calculated does not match'), {
      name,
      $metadata: { httpStatusCode: 403 },
    });
    const error = toAwsApiError(thrown, { service: 'eks', operation: 'DescribeCluster', cluster: 'prod' });
    expect(error.code).toBe('unauthorized');
    expect(error.message).toContain('AWS rejected the credentials in use');
    expect(error.message).not.toContain('is missing eks:DescribeCluster');
    expect(error.message).not.toMatch(/the monitor['’]s (credentials|IAM role)/);
  });

  it('names a missing permission without assuming whose credentials they are', () => {
    const thrown = Object.assign(new Error('not authorized'), {
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 403 },
    });
    const error = toAwsApiError(thrown, { service: 'eks', operation: 'DescribeCluster', cluster: 'prod' });
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('is missing eks:DescribeCluster');
    expect(error.message).toContain('yours from the CLI');
  });
});

describe('issue 10 event from elsewhere', () => {
  const whatif = ['whatif', '--snapshot', KARPENTER, '--event', 'record.json'];

  it('refuses an event from another Region, naming both, exit 2', async () => {
    const event = deleteNodegroupEvent();
    event.region = 'us-east-1';
    (event.detail as Record<string, unknown>).awsRegion = 'us-east-1';
    const { code, out, err } = await run(whatif, { 'record.json': JSON.stringify(event) });
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(/^eks-auth-sentinel: [^\n]+\n$/);
    expect(err).toContain('Region us-east-1');
    expect(err).toContain('Region eu-west-1');
  });

  it('refuses an event from another account, naming both, exit 2', async () => {
    const event = deleteNodegroupEvent();
    event.account = '999988887777';
    (event.detail as Record<string, unknown>).recipientAccountId = '999988887777';
    const { code, err } = await run(whatif, { 'record.json': JSON.stringify(event) });
    expect(code).toBe(2);
    expect(err).toContain('account 999988887777');
    expect(err).toContain('account 111122223333');
  });
});
