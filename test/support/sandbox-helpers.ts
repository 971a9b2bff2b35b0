/**
 * Shared set-up for the adapter tests against the local sandbox (infra/sandbox): real SDK
 * clients over HTTP, endpoints and credentials passed explicitly (no process.env mutation, so
 * test files can run in parallel).
 */
import { readFileSync } from 'node:fs';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../infra/sandbox/index.ts';
import type { AwsClientOptions } from '../../shared/adapters/aws-clients.ts';
import {
  createLiveCaptureDeps,
  type LiveCaptureDeps,
  type LiveDepsOptions,
} from '../../shared/adapters/live.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';

export function loadScenario(name: string): ClusterSnapshot {
  const url = new URL(`../../scenarios/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as ClusterSnapshot;
}

export function clientOptions(sandbox: Sandbox, overrides: AwsClientOptions = {}): AwsClientOptions {
  const endpoint = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);
  const endpoints: NonNullable<AwsClientOptions['endpoints']> = {};
  const eks = endpoint(sandbox.env.AWS_ENDPOINT_URL_EKS);
  const ec2 = endpoint(sandbox.env.AWS_ENDPOINT_URL_EC2);
  const iam = endpoint(sandbox.env.AWS_ENDPOINT_URL_IAM);
  if (eks !== undefined) endpoints.eks = eks;
  if (ec2 !== undefined) endpoints.ec2 = ec2;
  if (iam !== undefined) endpoints.iam = iam;
  const logs = endpoint(sandbox.env.AWS_ENDPOINT_URL_CLOUDWATCH_LOGS);
  if (logs !== undefined) endpoints.logs = logs;
  return {
    credentials: { ...sandbox.credentials },
    endpoints,
    maxAttempts: 4,
    callBudgetMs: 20_000,
    ...overrides,
  };
}

/** Fast Kubernetes retries so that tests of persistent failures stay short. */
export function sandboxDeps(sandbox: Sandbox, overrides: LiveDepsOptions = {}): LiveCaptureDeps {
  return createLiveCaptureDeps({
    ...clientOptions(sandbox),
    kube: { baseDelayMs: 20, budgetMs: 5_000, requestTimeoutMs: 5_000 },
    ...overrides,
  });
}

export async function withSandbox<T>(
  options: SandboxOptions,
  fn: (sandbox: Sandbox) => Promise<T>,
): Promise<T> {
  const sandbox = await startSandbox(options);
  try {
    return await fn(sandbox);
  } finally {
    await sandbox.close();
  }
}

export function callsOf(sandbox: Sandbox, service: string, operation?: string) {
  return sandbox.calls.filter(
    (c) => c.service === service && (operation === undefined || c.operation === operation),
  );
}
