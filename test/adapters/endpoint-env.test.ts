/**
 * The SDK itself honours AWS_ENDPOINT_URL_EKS/_EC2/_IAM and the default credential chain reads
 * AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY: a capture with no explicit endpoint or credential
 * reaches the sandbox. This file sets process.env; vitest isolates each test file in its own
 * worker, and the values are restored afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createLiveCaptureDeps } from '../../shared/adapters/live.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { callsOf, loadScenario } from '../support/sandbox-helpers.ts';

const KEYS = [
  'AWS_ENDPOINT_URL_EKS',
  'AWS_ENDPOINT_URL_EC2',
  'AWS_ENDPOINT_URL_IAM',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_PROFILE',
  'AWS_SESSION_TOKEN',
] as const;

describe('endpoints and credentials from the environment', () => {
  let sandbox: Sandbox;
  const saved = new Map<string, string | undefined>();
  beforeAll(async () => {
    sandbox = await startSandbox({
      clusters: [{ snapshot: loadScenario('a-karpenter-shares-last-nodegroup-role') }],
    });
    for (const key of KEYS) saved.set(key, process.env[key]);
    delete process.env.AWS_PROFILE;
    delete process.env.AWS_SESSION_TOKEN;
    for (const key of KEYS.slice(0, 5)) process.env[key] = sandbox.env[key];
  });
  afterAll(async () => {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await sandbox.close();
  });

  it('captures through AWS_ENDPOINT_URL_* with the default credential chain (token included)', async () => {
    const snapshot = await captureSnapshot(createLiveCaptureDeps(), {
      region: 'eu-west-1',
      clusterName: 'prod',
    });
    expect(snapshot.clusterArn).toBe('arn:aws:eks:eu-west-1:111122223333:cluster/prod');
    expect([snapshot.awsAuth.status, snapshot.compute.status, snapshot.iamRoles.status]).toEqual([
      'ok',
      'ok',
      'ok',
    ]);
    expect(callsOf(sandbox, 'eks', 'DescribeCluster').length).toBeGreaterThan(0);
    expect(callsOf(sandbox, 'ec2', 'DescribeInstances').length).toBeGreaterThan(0);
    expect(callsOf(sandbox, 'iam', 'GetRole').length).toBeGreaterThan(0);
  });
});
