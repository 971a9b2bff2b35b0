/**
 * CloudWatch Logs, just `DescribeSubscriptionFilters` (AWS JSON 1.1, `X-Amz-Target:
 * Logs_20140328.DescribeSubscriptionFilters`): what the monitor asks to tell whether a cluster's
 * audit log reaches onAuditEvent. A cluster's log group `/aws/eks/<cluster>/cluster` exists once
 * any control-plane log type is enabled (EKS creates it then); another group answers 400
 * `ResourceNotFoundException`, as CloudWatch Logs does. Filters are the sandbox's
 * `logSubscriptions` (editable). Requests must be SigV4-signed with a sandbox key. Faults:
 * service 'logs', operation 'DescribeSubscriptionFilters'.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Runtime, readIncoming, requestId, send } from './runtime.ts';
import { verifyRequest } from './sigv4.ts';
import type { SandboxSubscriptionFilter } from './types.ts';

const JSON_TYPE = 'application/x-amz-json-1.1';
const LOG_GROUP = /^\/aws\/eks\/([^/]+)\/cluster$/;

export function createLogsServer(
  runtime: Runtime,
  subscriptions: Map<string, SandboxSubscriptionFilter[]>,
): Server {
  return createServer((req, res) => {
    handleLogs(runtime, subscriptions, req, res).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, { __type: 'ServiceUnavailableException', message: String(err) });
    });
  });
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  send(res, status, JSON_TYPE, JSON.stringify(body), { 'x-amzn-requestid': requestId() });
}

async function handleLogs(
  runtime: Runtime,
  subscriptions: Map<string, SandboxSubscriptionFilter[]>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const incoming = await readIncoming(req);
  const action = (incoming.headers['x-amz-target'] ?? '').split('.').pop() ?? 'Unknown';
  const answer = (status: number, body: Record<string, unknown>): void => {
    runtime.record('logs', action, undefined, status);
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
  if (action !== 'DescribeSubscriptionFilters') {
    answer(400, { __type: 'InvalidAction', message: `The action ${action} is not served by the sandbox.` });
    return;
  }
  const fault = runtime.takeFault('logs', action, undefined);
  if (fault) {
    answer(fault.status, {
      __type: fault.code ?? 'ServiceUnavailableException',
      message: fault.message ?? 'Injected fault',
    });
    return;
  }
  let group: unknown;
  try {
    group = (JSON.parse(incoming.body.toString('utf8') || '{}') as { logGroupName?: unknown }).logGroupName;
  } catch {
    group = undefined;
  }
  const name = typeof group === 'string' ? LOG_GROUP.exec(group)?.[1] : undefined;
  const cluster = name === undefined ? undefined : runtime.world.find(name, verified.scope.region);
  if (typeof group !== 'string' || cluster === undefined || cluster.logging.length === 0) {
    answer(400, {
      __type: 'ResourceNotFoundException',
      message: 'The specified log group does not exist.',
    });
    return;
  }
  answer(200, {
    subscriptionFilters: (subscriptions.get(group) ?? []).map((f) => ({ ...f, logGroupName: group })),
  });
}
