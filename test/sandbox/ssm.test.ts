import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { SLACK_WEBHOOK_PARAMETER } from '../../infra/sandbox/ssm-service.ts';
import { createSsmClient, createWebhookUrlProvider } from '../../shared/adapters/ssm.ts';
import { baseSnapshot, REGION } from '../support/sandbox-seed.ts';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ clusters: [{ snapshot: baseSnapshot() }] });
});
afterAll(async () => {
  await sandbox.close();
});

function client(credentials = sandbox.credentials): SSMClient {
  return new SSMClient({
    region: REGION,
    endpoint: sandbox.env.AWS_ENDPOINT_URL_SSM,
    credentials,
    maxAttempts: 1,
  });
}

describe('sandbox SSM (GetParameter)', () => {
  it('serves the Slack sink URL as the SecureString /eks-auth-sentinel/slack-webhook', async () => {
    const out = await client().send(
      new GetParameterCommand({ Name: SLACK_WEBHOOK_PARAMETER, WithDecryption: true }),
    );
    expect(out.Parameter?.Value).toBe(sandbox.env.SLACK_WEBHOOK_URL);
    expect(out.Parameter?.Type).toBe('SecureString');
    expect(out.Parameter?.ARN).toBe(
      `arn:aws:ssm:${REGION}:${sandbox.accountId}:parameter${SLACK_WEBHOOK_PARAMETER}`,
    );
    expect(sandbox.calls.at(-1)).toMatchObject({ service: 'ssm', operation: 'GetParameter', status: 200 });
  });

  it('answers ParameterNotFound for an unknown name, and the adapter names the parameter', async () => {
    await expect(client().send(new GetParameterCommand({ Name: '/nope' }))).rejects.toMatchObject({
      name: 'ParameterNotFound',
    });
    const ssm = createSsmClient(REGION, {
      endpoint: sandbox.env.AWS_ENDPOINT_URL_SSM,
      credentials: sandbox.credentials,
      maxAttempts: 1,
    });
    await expect(createWebhookUrlProvider(ssm, '/nope')()).rejects.toThrow(/\/nope/);
    sandbox.ssmParameters.set('/rotated', 'https://hooks.example.test/x');
    expect(await createWebhookUrlProvider(ssm, '/rotated')()).toBe('https://hooks.example.test/x');
  });

  it('refuses an unknown key', async () => {
    const forged = { accessKeyId: 'AKIAFORGED0000000000', secretAccessKey: 'x' };
    await expect(
      client(forged).send(new GetParameterCommand({ Name: SLACK_WEBHOOK_PARAMETER })),
    ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
  });
});
