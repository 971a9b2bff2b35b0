/**
 * The Go reference decoder (tools/go-reference/): aws-auth decoded exactly as
 * aws-iam-authenticator's ParseMap does. One long-lived process answers JSON lines in order, so
 * 10 000 documents cost one process start and a minimisation step costs one round trip.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REFERENCE_DIR = fileURLToPath(new URL('../../tools/go-reference/', import.meta.url));
export const REFERENCE_BIN = `${REFERENCE_DIR}bin/aws-auth-reference`;

export type AwsAuthKey = 'mapRoles' | 'mapUsers' | 'mapAccounts';
export const AWS_AUTH_KEYS: readonly AwsAuthKey[] = ['mapRoles', 'mapUsers', 'mapAccounts'];

export interface GoSso {
  permissionSetName: string;
  accountID: string;
  partition?: string;
}
export interface GoRole {
  index: number;
  rolearn?: string;
  sso?: GoSso;
  username: string;
  groups: string[] | null;
  userid?: string;
}
export interface GoUser {
  index: number;
  userarn: string;
  username: string;
  groups: string[] | null;
  userid?: string;
}
export interface GoKey {
  /** missing: absent; skipped: isSkippable; failed: the key keeps nothing; ok: a list or null decoded. */
  status: 'missing' | 'skipped' | 'ok' | 'failed';
  error?: string;
  /** Kind of the decoded top-level value (array, null, object, string, number, bool). */
  top?: string;
  decoded: number;
  invalid: Array<{ index: number; error: string }>;
}
export interface GoResult {
  id: unknown;
  crash?: string;
  manifestError?: string;
  /** For a manifest request: the data the API server would store. */
  data?: Record<string, string>;
  keys: Record<AwsAuthKey, GoKey>;
  roles: GoRole[];
  users: GoUser[];
  accounts: string[];
}
export type GoRequest = { id: unknown; data: Record<string, string> } | { id: unknown; manifest: string };

/** The files the binary is built from: build.sh and the package's Go files. */
const SOURCES = () => readdirSync(REFERENCE_DIR).filter((f) => f.endsWith('.go') || f === 'build.sh');

/** Builds the reference if its binary is missing or older than a source. Throws (never skips) when Go cannot build it. */
export function ensureReference(): string {
  const stale = () => {
    const built = statSync(REFERENCE_BIN).mtimeMs;
    return SOURCES().some((f) => built < statSync(`${REFERENCE_DIR}${f}`).mtimeMs);
  };
  if (!existsSync(REFERENCE_BIN) || stale()) {
    execFileSync(`${REFERENCE_DIR}build.sh`, { stdio: ['ignore', 'inherit', 'inherit'] });
  }
  if (!existsSync(REFERENCE_BIN))
    throw new Error(`the Go reference did not build: ${REFERENCE_BIN} is missing`);
  return REFERENCE_BIN;
}

export interface GoReference {
  decode(requests: GoRequest[]): Promise<GoResult[]>;
  close(): Promise<void>;
}

export function startReference(bin = ensureReference()): GoReference {
  const child: ChildProcessWithoutNullStreams = spawn(bin, [], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting: Array<{ resolve: (r: GoResult) => void; reject: (e: Error) => void }> = [];
  let buffered = '';
  let stderr = '';
  let dead: Error | undefined;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      waiting.shift()?.resolve(JSON.parse(line) as GoResult);
      nl = buffered.indexOf('\n');
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const fail = (e: Error) => {
    dead = e;
    for (const w of waiting.splice(0)) w.reject(e);
  };
  child.on('error', fail);
  child.on('exit', (code, signal) => {
    if (waiting.length) fail(new Error(`Go reference exited (${code ?? signal}): ${stderr.trim()}`));
  });
  return {
    decode(requests) {
      if (dead) return Promise.reject(dead);
      const answers = requests.map(
        () => new Promise<GoResult>((resolve, reject) => waiting.push({ resolve, reject })),
      );
      child.stdin.write(`${requests.map((r) => JSON.stringify(r)).join('\n')}\n`);
      return Promise.all(answers);
    },
    close() {
      return new Promise((resolve) => {
        if (child.exitCode !== null || dead) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      });
    },
  };
}
