/**
 * Secrets for the senders (the Slack webhook URL) from SSM Parameter Store: `GetParameter` with
 * `WithDecryption` (a SecureString), read once per cold start and cached in module scope; a failed
 * read is not cached, so the next invocation tries again. Errors name the parameter, never its
 * value. A Secrets Manager secret can be read through SSM by naming it
 * `/aws/reference/secretsmanager/<secret name>` (IAM: secretsmanager:GetSecretValue as well);
 * a bare Secrets Manager ARN is refused as unsupported (that client is not bundled).
 * IAM: ssm:GetParameter on the parameter ARN, kms:Decrypt on its key.
 */
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { SecretReadError } from '../errors.ts';
import { type AwsClient, budgetOptions, createAwsClient, type EndpointClientOptions } from './aws-clients.ts';
import { toMonitorIoError } from './errors.ts';
import { webhookUrlProblem } from './slack.ts';

export type SsmClientOptions = EndpointClientOptions;

export function createSsmClient(region: string, options: SsmClientOptions = {}): AwsClient<SSMClient> {
  return createAwsClient(SSMClient, region, options, options.endpoint);
}

/** Module scope: survives warm invocations of the Lambda, one read per cold start. */
const cache = new Map<string, Promise<string>>();

/** Forget cached secrets (tests; or after the webhook was rotated and a send got 404/403). */
export function clearSecretCache(): void {
  cache.clear();
}

async function fetchParameter(ssm: AwsClient<SSMClient>, name: string): Promise<string> {
  if (name.startsWith('arn:aws:secretsmanager:') || /^arn:aws[\w-]*:secretsmanager:/.test(name)) {
    throw new SecretReadError(
      `Secret ${name} is a Secrets Manager ARN, which is unsupported (the Secrets Manager client is not bundled): store the value as an SSM SecureString, or name it through SSM as /aws/reference/secretsmanager/<secret name>`,
      { code: 'unsupported', service: 'ssm', operation: 'GetParameter', resource: name },
    );
  }
  let value: string | undefined;
  try {
    const out = await ssm.client.send(
      new GetParameterCommand({ Name: name, WithDecryption: true }),
      budgetOptions(ssm.callBudgetMs),
    );
    value = out.Parameter?.Value;
  } catch (error) {
    const io = toMonitorIoError(error, {
      service: 'ssm',
      operation: 'GetParameter',
      resource: `parameter ${name}`,
    });
    throw new SecretReadError(
      `Reading secret parameter ${name} failed (${io.code})${io.code === 'forbidden' ? ' — the role needs ssm:GetParameter on it and kms:Decrypt on its key' : ''}: ${io.message}`,
      { code: io.code, service: 'ssm', operation: 'GetParameter', resource: name, cause: io },
    );
  }
  if (value === undefined || value.trim() === '') {
    throw new SecretReadError(`Secret parameter ${name} has no value`, {
      code: 'invalid-document',
      service: 'ssm',
      operation: 'GetParameter',
      resource: name,
    });
  }
  return value.trim();
}

/** The decrypted value of an SSM parameter, read once per process (cold start) and cached. */
export function readSecretParameter(ssm: AwsClient<SSMClient>, name: string): Promise<string> {
  let pending = cache.get(name);
  if (pending === undefined) {
    pending = fetchParameter(ssm, name);
    cache.set(name, pending);
    pending.catch(() => {
      if (cache.get(name) === pending) cache.delete(name);
    });
  }
  return pending;
}

/** A provider of the Slack webhook URL for `createSlackNoticeSender`: checks it is an http(s) URL. */
export function createWebhookUrlProvider(
  ssm: AwsClient<SSMClient>,
  parameterName: string,
): () => Promise<string> {
  return async () => {
    const value = await readSecretParameter(ssm, parameterName);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new SecretReadError(`Secret parameter ${parameterName} does not hold a URL`, {
        code: 'invalid-document',
        service: 'ssm',
        operation: 'GetParameter',
        resource: parameterName,
        cause: new Error('unparsable URL (value withheld)'),
      });
    }
    const problem = webhookUrlProblem(url.href);
    if (problem !== undefined) {
      throw new SecretReadError(
        `Secret parameter ${parameterName} holds a ${url.protocol} URL, expected https: only https: is accepted for the Slack webhook (the URL is a secret; alerts must not travel in clear text)`,
        {
          code: 'invalid-document',
          service: 'ssm',
          operation: 'GetParameter',
          resource: parameterName,
        },
      );
    }
    return value;
  };
}

/** A provider of the Slack bot token for `createSlackBotSender`: checks it is a bot token (`xoxb-`). */
export function createSlackTokenProvider(
  ssm: AwsClient<SSMClient>,
  parameterName: string,
): () => Promise<string> {
  return async () => {
    const value = await readSecretParameter(ssm, parameterName);
    if (!/^xoxb-[A-Za-z0-9-]+$/.test(value)) {
      throw new SecretReadError(
        `Secret parameter ${parameterName} does not hold a Slack bot token (xoxb-…, value withheld)`,
        {
          code: 'invalid-document',
          service: 'ssm',
          operation: 'GetParameter',
          resource: parameterName,
        },
      );
    }
    return value;
  };
}
