/**
 * What every sandbox service shares: the world, the principals and their keys, faults, latency,
 * EKS throttling, and the recordings (calls, CloudTrail, SNS, Slack).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUpper } from './ids.ts';
import { parseQuery, type QueryParams, type ReceivedRequest } from './sigv4.ts';
import type { SandboxCall, SandboxFault, SandboxService, SlackApiCall, SnsRecord } from './types.ts';
import type { World } from './world.ts';

export interface Principal {
  accessKeyId: string;
  secretAccessKey: string;
  /** IAM role ARN. */
  arn: string;
  roleName: string;
  roleId: string;
  sessionName: string;
  /** The STS assumed-role ARN the principal acts as. */
  stsArn: string;
}

export function makePrincipal(accountId: string, roleName: string, roleId: string): Principal {
  return {
    accessKeyId: `AKIA${randomUpper(16)}`,
    secretAccessKey: Buffer.from(randomUpper(30)).toString('base64'),
    arn: `arn:aws:iam::${accountId}:role/${roleName}`,
    roleName,
    roleId,
    sessionName: roleName,
    stsArn: `arn:aws:sts::${accountId}:assumed-role/${roleName}/${roleName}`,
  };
}

interface ActiveFault {
  fault: SandboxFault;
  remaining: number;
}

export class Runtime {
  readonly principals = new Map<string, Principal>();
  readonly calls: SandboxCall[] = [];
  readonly cloudTrail: unknown[] = [];
  readonly sns: SnsRecord[] = [];
  readonly slack: Array<{ body: unknown; at: number }> = [];
  readonly slackApi: SlackApiCall[] = [];
  /** `full`: DescribeInstances items carry a real instance's other fields too (memory benchmarks). */
  ec2InstanceDetail: 'lean' | 'full' = 'lean';
  /** Most requests in flight at once, by `service:operation` (EKS). */
  readonly peakInFlight = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private faults: ActiveFault[] = [];
  private tokens: number;
  private lastRefill = Date.now();

  constructor(
    readonly world: World,
    readonly latencyMs: number,
    readonly eksCallsPerSecond: number | undefined,
  ) {
    this.tokens = eksCallsPerSecond ?? 0;
  }

  lookupSecret = (accessKeyId: string): string | undefined =>
    this.principals.get(accessKeyId)?.secretAccessKey;

  injectFault(fault: SandboxFault): void {
    this.faults.push({ fault: { ...fault }, remaining: fault.times ?? Number.POSITIVE_INFINITY });
  }

  clearFaults(): void {
    this.faults = [];
  }

  takeFault(
    service: SandboxService,
    operation: string,
    cluster: string | undefined,
  ): SandboxFault | undefined {
    for (const active of this.faults) {
      const f = active.fault;
      if (f.service !== service) continue;
      if (f.operation !== undefined && f.operation !== operation) continue;
      if (f.cluster !== undefined && f.cluster !== cluster) continue;
      if (active.remaining <= 0) continue;
      active.remaining -= 1;
      return f;
    }
    return undefined;
  }

  record(service: SandboxService, operation: string, cluster: string | undefined, status: number): void {
    const call: SandboxCall = { service, operation, status, at: Date.now() };
    if (cluster !== undefined) call.cluster = cluster;
    this.calls.push(call);
  }

  /** Counts a request in flight until the returned function is called (once). */
  enter(service: SandboxService, operation: string): () => void {
    const key = `${service}:${operation}`;
    const now = (this.inFlight.get(key) ?? 0) + 1;
    this.inFlight.set(key, now);
    if (now > (this.peakInFlight.get(key) ?? 0)) this.peakInFlight.set(key, now);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.inFlight.set(key, (this.inFlight.get(key) ?? 1) - 1);
    };
  }

  async delay(): Promise<void> {
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
  }

  /** Token bucket for EKS; true when the call may proceed. */
  takeEksToken(): boolean {
    const rate = this.eksCallsPerSecond;
    if (rate === undefined || rate <= 0) return true;
    const now = Date.now();
    this.tokens = Math.min(rate, this.tokens + ((now - this.lastRefill) / 1000) * rate);
    this.lastRefill = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }
}

// -----------------------------------------------------------------------------------------------
// HTTP helpers

export interface Incoming extends ReceivedRequest {
  rawQuery: string;
  query: QueryParams;
}

export async function readIncoming(req: IncomingMessage): Promise<Incoming> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  }
  return {
    method: req.method ?? 'GET',
    rawPath,
    rawQuery,
    query: parseQuery(rawQuery),
    headers,
    body: Buffer.concat(chunks),
  };
}

export function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export function requestId(): string {
  return crypto.randomUUID();
}
