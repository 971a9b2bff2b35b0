import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  clearSecretCache,
  createSlackTokenProvider,
  createSsmClient,
  createWebhookUrlProvider,
  readSecretParameter,
} from '../../shared/adapters/ssm.ts';
import { SecretReadError } from '../../shared/errors.ts';

// A local SSM endpoint speaking the AWS JSON 1.1 protocol of GetParameter (real SDK client, real HTTP).
const WEBHOOK = 'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/super-secret-token';
const parameters = new Map<string, string>([
  ['/sentinel/slack-webhook', WEBHOOK],
  ['/sentinel/not-a-url', 'super-secret-but-not-a-url'],
  ['/sentinel/slack-bot-token', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
]);
let calls: Array<{ target: string; body: Record<string, unknown> }> = [];
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString('utf8');
    });
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      calls.push({ target: String(req.headers['x-amz-target']), body });
      const name = String(body.Name);
      const reply = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(json));
      };
      if (name === '/sentinel/forbidden') {
        reply(400, {
          __type: 'AccessDeniedException',
          message: `User is not authorized to perform ssm:GetParameter on ${name}`,
        });
      } else if (!parameters.has(name)) {
        reply(400, { __type: 'ParameterNotFound', message: '' });
      } else {
        reply(200, {
          Parameter: { Name: name, Type: 'SecureString', Value: parameters.get(name), Version: 1 },
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  clearSecretCache();
  calls = [];
});

const ssm = () =>
  createSsmClient('eu-west-1', {
    endpoint,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    maxAttempts: 1,
    callBudgetMs: 5000,
  });

describe('readSecretParameter (local SSM endpoint)', () => {
  it('reads a SecureString with decryption, once per process', async () => {
    const client = ssm();
    expect(await readSecretParameter(client, '/sentinel/slack-webhook')).toBe(WEBHOOK);
    expect(await readSecretParameter(client, '/sentinel/slack-webhook')).toBe(WEBHOOK);
    expect(calls).toEqual([
      { target: 'AmazonSSM.GetParameter', body: { Name: '/sentinel/slack-webhook', WithDecryption: true } },
    ]);
  });

  it('names the parameter, not a value, when it does not exist; the failure is not cached', async () => {
    const error = await readSecretParameter(ssm(), '/sentinel/missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretReadError);
    expect((error as SecretReadError).message).toContain('/sentinel/missing');
    expect((error as SecretReadError).message).toContain('ParameterNotFound');
    await readSecretParameter(ssm(), '/sentinel/missing').catch(() => undefined);
    expect(calls).toHaveLength(2);
  });

  it('says which permissions are missing on AccessDenied', async () => {
    const error = await readSecretParameter(ssm(), '/sentinel/forbidden').catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'SecretReadError',
      code: 'forbidden',
      resource: '/sentinel/forbidden',
    });
    expect((error as Error).message).toContain('ssm:GetParameter');
    expect((error as Error).message).toContain('kms:Decrypt');
  });

  it('refuses a Secrets Manager ARN as unsupported without calling anything', async () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:slack-webhook-AbCdEf';
    const error = await readSecretParameter(ssm(), arn).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'SecretReadError', code: 'unsupported' });
    expect((error as Error).message).toContain('/aws/reference/secretsmanager/');
    expect(calls).toHaveLength(0);
  });
});

describe('createWebhookUrlProvider', () => {
  it('gives the URL', async () => {
    expect(await createWebhookUrlProvider(ssm(), '/sentinel/slack-webhook')()).toBe(WEBHOOK);
  });

  it('refuses a value that is not a URL without repeating the value', async () => {
    const error = await createWebhookUrlProvider(ssm(), '/sentinel/not-a-url')().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretReadError);
    expect((error as Error).message).toBe('Secret parameter /sentinel/not-a-url does not hold a URL');
    expect(JSON.stringify(error)).not.toContain('super-secret');
    expect(String((error as Error).cause)).not.toContain('super-secret');
  });
});

describe('createSlackTokenProvider', () => {
  it('gives a bot token', async () => {
    expect(await createSlackTokenProvider(ssm(), '/sentinel/slack-bot-token')()).toMatch(/^xoxb-/);
  });

  it('refuses a value that is not a bot token (a webhook URL, a user token) without repeating it', async () => {
    const error = await createSlackTokenProvider(ssm(), '/sentinel/slack-webhook')().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretReadError);
    expect((error as Error).message).toBe(
      'Secret parameter /sentinel/slack-webhook does not hold a Slack bot token (xoxb-…, value withheld)',
    );
    expect(JSON.stringify(error)).not.toContain('super-secret-token');
  });
});
