/** Identifiers and small helpers shared by the sandbox services. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function randomUpper(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += UPPER_ALNUM[b % UPPER_ALNUM.length];
  return out;
}

/** A stable pseudo-ID derived from a string (e.g. a role ID from its ARN). */
export function stableUpper(seed: string, length: number): string {
  const digest = createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; i < length; i++) out += UPPER_ALNUM[(digest[i % digest.length] ?? 0) % UPPER_ALNUM.length];
  return out;
}

export function stableHex(seed: string, length: number): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, length);
}

export function uuid(): string {
  return randomUUID();
}

export function isoNow(now: number = Date.now()): string {
  return new Date(now).toISOString();
}

/** `arn:aws:iam::1:role/a/b/name` → `{ accountId, path: '/a/b/', name }`. */
export function parseRoleArn(
  arn: string,
): { partition: string; accountId: string; path: string; name: string } | undefined {
  const m = /^arn:([\w-]+):iam::(\d{12}):role(\/.*)?\/([^/]+)$/.exec(arn);
  if (!m) return undefined;
  return {
    partition: m[1] as string,
    accountId: m[2] as string,
    path: `${m[3] ?? ''}/`,
    name: m[4] as string,
  };
}

/** Lower-cased role ARN without its IAM path: how EKS compares node roles (path- and case-insensitive). */
export function roleKey(arn: string): string {
  const role = parseRoleArn(arn);
  if (!role) return arn.toLowerCase();
  return `arn:${role.partition}:iam::${role.accountId}:role/${role.name}`.toLowerCase();
}

export function stripRolePath(arn: string): string {
  const role = parseRoleArn(arn);
  return role ? `arn:${role.partition}:iam::${role.accountId}:role/${role.name}` : arn;
}

export function roleName(arn: string): string | undefined {
  return parseRoleArn(arn)?.name;
}

export function instanceProfileName(roleArn: string): string {
  return `${roleName(roleArn) ?? 'role'}-instance-profile`;
}

export function xmlEscape(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Opaque pagination token for an offset. */
export function encodeToken(offset: number, salt: string): string {
  return Buffer.from(JSON.stringify({ o: offset, s: salt })).toString('base64url');
}

export function decodeToken(token: string, salt: string): number | undefined {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown; s?: unknown };
    return typeof v.o === 'number' && Number.isInteger(v.o) && v.o >= 0 && v.s === salt ? v.o : undefined;
  } catch {
    return undefined;
  }
}
