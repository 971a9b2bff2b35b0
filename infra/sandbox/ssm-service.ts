/**
 * SSM Parameter Store, just `GetParameter` (AWS JSON 1.1, `X-Amz-Target: AmazonSSM.GetParameter`):
 * enough for the monitor's Slack webhook SecureString. Requests must be SigV4-signed with a
 * sandbox key; `WithDecryption` is not required (the sandbox stores values in clear). A missing
 * parameter answers 400 `ParameterNotFound`, as SSM does. Faults: service 'ssm', operation
 * 'GetParameter'. Latency applies like every other AWS call.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Runtime, readIncoming, requestId, send } from './runtime.ts';
import { verifyRequest } from './sigv4.ts';

/** Name of the parameter the sandbox seeds with its Slack sink URL (the deployment's default). */
export const SLACK_WEBHOOK_PARAMETER = '/eks-auth-sentinel/slack-webhook';
export const SLACK_BOT_TOKEN_PARAMETER = '/eks-auth-sentinel/slack-bot-token';

const JSON_TYPE = 'application/x-amz-json-1.1';

export function createSsmServer(runtime: Runtime, parameters: Map<string, string>): Server {
  return createServer((req, res) => {
    handleSsm(runtime, parameters, req, res).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, { __type: 'InternalServerError', message: String(err) });
    });
  });
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  send(res, status, JSON_TYPE, JSON.stringify(body), { 'x-amzn-requestid': requestId() });
}

async function handleSsm(
  runtime: Runtime,
  parameters: Map<string, string>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const incoming = await readIncoming(req);
  const action = (incoming.headers['x-amz-target'] ?? '').split('.').pop() ?? 'Unknown';
  const answer = (status: number, body: Record<string, unknown>): void => {
    runtime.record('ssm', action, undefined, status);
    reply(res, status, body);
  };
  await runtime.delay();
  const verified = verifyRequest(incoming, runtime.lookupSecret, Date.now());
  if (!verified.ok) {
    const type =
      verified.code === 'unknown-key' ? 'UnrecognizedClientException' : 'InvalidSignatureException';
    answer(verified.code === 'missing' ? 401 : 403, { __type: type, message: verified.message });
    return;
  }
  if (action !== 'GetParameter') {
    answer(400, { __type: 'InvalidAction', message: `The action ${action} is not served by the sandbox.` });
    return;
  }
  const fault = runtime.takeFault('ssm', action, undefined);
  if (fault) {
    answer(fault.status, {
      __type: fault.code ?? 'InternalServerError',
      message: fault.message ?? 'Injected fault',
    });
    return;
  }
  let name: unknown;
  try {
    name = (JSON.parse(incoming.body.toString('utf8') || '{}') as { Name?: unknown }).Name;
  } catch {
    name = undefined;
  }
  const value = typeof name === 'string' ? parameters.get(name) : undefined;
  if (typeof name !== 'string' || value === undefined) {
    answer(400, { __type: 'ParameterNotFound', message: `Parameter ${String(name)} not found.` });
    return;
  }
  const principal = runtime.principals.get(verified.scope.accessKeyId);
  const account = principal?.arn.split(':')[4] ?? runtime.world.accountId;
  answer(200, {
    Parameter: {
      Name: name,
      Type: 'SecureString',
      Value: value,
      Version: 1,
      DataType: 'text',
      ARN: `arn:aws:ssm:${verified.scope.region}:${account}:parameter${name.startsWith('/') ? '' : '/'}${name}`,
      LastModifiedDate: Math.floor(Date.now() / 1000),
    },
  });
}
