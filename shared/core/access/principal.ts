/**
 * Principal keys with aws-iam-authenticator's semantics (pkg/arn/arn.go Canonicalize, and the
 * lower-cased lookups of pkg/config/mapper.go).
 *
 * - The identity a caller presents is canonicalised: `sts::…:assumed-role/Role/Session` becomes
 *   `iam::…:role/Role`. STS knows no IAM path, so a canonical role ARN never carries one.
 * - Keys are lower-cased.
 * - An aws-auth `rolearn` is keyed as written: if it carries a path it can never equal a canonical
 *   ARN (aws-iam-authenticator #268). Access entries and EKS APIs (`nodeRole`, instance profiles)
 *   may carry a path and are matched by the role itself, so their key drops the path.
 */

export interface ParsedArn {
  partition: string;
  service: string;
  region: string;
  account: string;
  resource: string;
}

const ARN_RE = /^arn:([^:]+):([^:]+):([^:]*):([^:]*):(.+)$/;

export function parseArn(arn: string): ParsedArn | undefined {
  const m = ARN_RE.exec(arn.trim());
  if (!m) return undefined;
  const [, partition, service, region, account, resource] = m;
  if (!partition || !service || account === undefined || region === undefined || !resource) return undefined;
  return { partition, service, region, account, resource };
}

/** The role name of a role ARN (last path segment), or undefined when not a role ARN. */
export function roleNameOf(arn: string): string | undefined {
  const p = parseArn(arn);
  if (!p) return undefined;
  if (p.service === 'iam' && p.resource.startsWith('role/')) {
    const segments = p.resource.slice('role/'.length).split('/');
    return segments[segments.length - 1] || undefined;
  }
  if (p.service === 'sts' && p.resource.startsWith('assumed-role/')) {
    return p.resource.split('/')[1] || undefined;
  }
  return undefined;
}

/** True when an IAM role ARN carries a path (`role/team/name`). */
export function roleArnHasPath(arn: string): boolean {
  const p = parseArn(arn);
  return !!p && p.service === 'iam' && p.resource.startsWith('role/') && p.resource.split('/').length > 2;
}

/**
 * The canonical key of a principal as the authenticator would see it authenticate:
 * lower-cased, roles without path, assumed-role sessions folded onto their role.
 * Users keep their path (STS returns it for users). Unparseable input is lower-cased as is.
 */
export function principalKey(arn: string): string {
  const known = keyMemo?.get(arn);
  if (known !== undefined) return known;
  const key = computePrincipalKey(arn);
  keyMemo?.set(arn, key);
  return key;
}

/** principalKey results inside `withPrincipalKeyMemo`: one plan evaluation keys the same ARNs many times. */
let keyMemo: Map<string, string> | undefined;

/** Runs `fn` with principalKey remembered (nested calls share the outer memo); emptied afterwards. */
export function withPrincipalKeyMemo<T>(fn: () => T): T {
  if (keyMemo !== undefined) return fn();
  keyMemo = new Map();
  try {
    return fn();
  } finally {
    keyMemo = undefined;
  }
}

function computePrincipalKey(arn: string): string {
  const p = parseArn(arn);
  if (!p) return arn.trim().toLowerCase();
  const role = roleNameOf(arn);
  if (role !== undefined) return `arn:${p.partition}:iam::${p.account}:role/${role}`.toLowerCase();
  return `arn:${p.partition}:${p.service}:${p.region}:${p.account}:${p.resource}`.toLowerCase();
}

/** Key of an aws-auth `rolearn`/`userarn` exactly as the authenticator stores it: lower-cased, path kept. */
export function awsAuthArnKey(arn: string): string {
  return arn.toLowerCase();
}

/** The role ARN without its path, original case: what belongs in aws-auth. */
export function roleArnWithoutPath(arn: string): string {
  const p = parseArn(arn);
  const role = roleNameOf(arn);
  if (!p || role === undefined) return arn;
  return `arn:${p.partition}:iam::${p.account}:role/${role}`;
}

/** Account of an ARN, when it has one. */
export function accountOf(arn: string): string | undefined {
  return parseArn(arn)?.account || undefined;
}

/**
 * Does an aws-auth SSO matcher match this (canonical) role ARN? pkg/config/mapper.go
 * `SSOArnLike`: `arn:<partition>:iam::<account>:role/AWSReservedSSO_<set>_*`, lower-cased, where
 * `*` matches anything. Upstream only fills the partition when it is empty ("aws"); an explicit
 * partition leaves it blank (`arn::iam::…`), so such a matcher never matches. We keep that.
 */
export function ssoMatches(
  sso: { permissionSetName: string; accountID: string; partition?: string },
  canonicalRoleArn: string,
): boolean {
  if (sso.partition) return false;
  const prefix = `arn:aws:iam::${sso.accountID}:role/awsreservedsso_${sso.permissionSetName}_`.toLowerCase();
  return canonicalRoleArn.toLowerCase().startsWith(prefix);
}
