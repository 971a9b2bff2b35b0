/**
 * What the four handlers share: one Powertools Logger (structured JSON; `POWERTOOLS_LOG_LEVEL`),
 * the config loaded once per cold start, and the error shape that is safe to log.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { loadConfig, type SentinelConfig } from '../../shared/app/config.ts';
import { redactSecrets } from '../../shared/errors.ts';

export const logger = new Logger({ serviceName: 'eks-auth-sentinel' });

let config: SentinelConfig | undefined;

/** `loadConfig(process.env)` once per cold start (a bad config fails every invocation, loudly). */
export function coldStartConfig(): SentinelConfig {
  config ??= loadConfig(process.env);
  return config;
}

/** Memoizes a cold-start factory. */
export function once<T>(create: () => T): () => T {
  let value: T | undefined;
  let done = false;
  return () => {
    if (!done) {
      value = create();
      done = true;
    }
    return value as T;
  };
}

/** An error as log fields: name, message and the cause chain, secrets removed (never a webhook URL or token). */
export function errorFields(error: unknown): Record<string, unknown> {
  const chain: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 4; depth++) {
    chain.push(current instanceof Error ? `${current.name}: ${current.message}` : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  const [head, ...causes] = chain.map((line) => redactSecrets(line));
  return { error: head, ...(causes.length > 0 ? { causes } : {}) };
}
