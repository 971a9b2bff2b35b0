/**
 * IamReader over `@aws-sdk/client-iam`: instance profile → role ARN (cached per profile for the
 * reader's lifetime; a capture creates one reader, the Lambda may keep it warm — `ttlMs` bounds
 * how long an answer is trusted), and GetRole → IamRole (IAM's ARN and path, for the access
 * entries a fix or a migration writes; role ID and create date, for the
 * "role re-created under the same name" rule,
 * docs/eks-auth-semantics.md#managed-node-groups-and-access-entries, trap 17 of
 * docs/eks-auth-semantics.md#traps).
 *
 * Every call goes through `callAws` like the EKS and EC2 readers: throttling is retried within the
 * throttling budget, and the reader's deadline (`deadline`, or `withDeadline` for one invocation:
 * the same client and instance-profile cache) stops it with a `DeadlineExceededError` naming the
 * operation; the capture turns that into a source in error, a partial snapshot that says why.
 */
import {
  GetInstanceProfileCommand,
  type GetInstanceProfileCommandOutput,
  GetOpenIDConnectProviderCommand,
  type GetOpenIDConnectProviderCommandOutput,
  GetRoleCommand,
  type GetRoleCommandOutput,
  IAMClient,
  ListOpenIDConnectProvidersCommand,
  type ListOpenIDConnectProvidersCommandOutput,
  SimulatePrincipalPolicyCommand,
  type SimulatePrincipalPolicyCommandOutput,
} from '@aws-sdk/client-iam';
import type { IamRole, OidcProvider, RoleActionPermission } from '../core/model.ts';
import { AwsApiError } from '../errors.ts';
import type { IamReader, Lookup } from '../ports.ts';
import {
  type AwsCallContext,
  type AwsClient,
  type AwsClientOptions,
  callAws,
  createAwsClient,
  type Deadline,
} from './aws-clients.ts';
import { isAwsError } from './errors.ts';
import { dropUndefined, isoTime } from './util.ts';

export interface IamReaderOptions {
  /** How long an instance profile's role is cached, ms (default 5 minutes). */
  ttlMs?: number;
  now?: () => number;
  /** Retries stop here (`DeadlineExceededError`); none by default. */
  deadline?: Deadline;
}

/** An IamReader whose `withDeadline` gives the same client and cache with another deadline. */
export interface DeadlineIamReader extends IamReader {
  withDeadline(deadline: Deadline | undefined): DeadlineIamReader;
}

/** The last path segment of an IAM ARN's resource (`role/team/x` → `x`), or the input when it is a plain name. */
export function iamNameOf(arnOrName: string, resourceType: 'role' | 'instance-profile'): string {
  const match = /^arn:[^:]+:iam::\d*:([^/]+)\/(.+)$/.exec(arnOrName);
  if (match === null) return arnOrName;
  if (match[1] !== resourceType) {
    throw new RangeError(`expected an IAM ${resourceType} ARN, got ${arnOrName}`);
  }
  const segments = (match[2] ?? '').split('/');
  return segments[segments.length - 1] ?? arnOrName;
}

/** IAM is global: one client (default Region us-east-1, the `aws` partition's signing Region). */
export function createIamClient(region = 'us-east-1', options: AwsClientOptions = {}): AwsClient<IAMClient> {
  return createAwsClient(IAMClient, region, options, options.endpoints?.iam);
}

export function createIamReader(
  iam: AwsClient<IAMClient>,
  options: IamReaderOptions = {},
): DeadlineIamReader {
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  const profileCache = new Map<string, { at: number; value: Promise<Lookup<string>> }>();
  return bindIamReader(iam, { ttlMs, now, profileCache }, options.deadline);
}

interface IamReaderState {
  ttlMs: number;
  now: () => number;
  profileCache: Map<string, { at: number; value: Promise<Lookup<string>> }>;
}

type IamCommand =
  | GetInstanceProfileCommand
  | GetRoleCommand
  | ListOpenIDConnectProvidersCommand
  | GetOpenIDConnectProviderCommand
  | SimulatePrincipalPolicyCommand;

function bindIamReader(
  iam: AwsClient<IAMClient>,
  state: IamReaderState,
  deadline: Deadline | undefined,
): DeadlineIamReader {
  const { client } = iam;
  const { ttlMs, now, profileCache } = state;

  /** One IAM call within the throttling budget and the deadline; every failure an `AwsApiError`. */
  function call<O>(command: IamCommand, operation: string, subject?: string): Promise<O> {
    const context: AwsCallContext = {
      service: 'iam',
      operation,
      ...(subject === undefined ? {} : { subject }),
    };
    return callAws(
      iam,
      context,
      // biome-ignore lint/suspicious/noExplicitAny: one send for a union of commands; the caller names O.
      async (sendOptions) => (await client.send(command as any, sendOptions)) as O,
      deadline,
    );
  }

  async function fetchRoleOfProfile(instanceProfile: string): Promise<Lookup<string>> {
    const name = iamNameOf(instanceProfile, 'instance-profile');
    try {
      const output = await call<GetInstanceProfileCommandOutput>(
        new GetInstanceProfileCommand({ InstanceProfileName: name }),
        'GetInstanceProfile',
        name,
      );
      const roles = output.InstanceProfile?.Roles ?? [];
      const arn = roles[0]?.Arn;
      if (arn === undefined) return { found: false, reason: `instance profile ${name} has no role` };
      return { found: true, value: arn };
    } catch (error) {
      if (isAwsError(error, 'NoSuchEntity', 'NoSuchEntityException')) {
        return { found: false, reason: `instance profile ${name} does not exist` };
      }
      throw error;
    }
  }

  return {
    withDeadline: (next) => bindIamReader(iam, state, next),

    roleOfInstanceProfile(instanceProfile) {
      const cached = profileCache.get(instanceProfile);
      if (cached !== undefined && now() - cached.at < ttlMs) return cached.value;
      const value = fetchRoleOfProfile(instanceProfile);
      profileCache.set(instanceProfile, { at: now(), value });
      // A failure is not cached: the next capture asks again.
      value.catch(() => profileCache.delete(instanceProfile));
      return value;
    },

    async getRole(roleArn): Promise<IamRole> {
      const name = iamNameOf(roleArn, 'role');
      let output: GetRoleCommandOutput;
      try {
        output = await call<GetRoleCommandOutput>(new GetRoleCommand({ RoleName: name }), 'GetRole', name);
      } catch (error) {
        if (isAwsError(error, 'NoSuchEntity', 'NoSuchEntityException'))
          return { arn: roleArn, state: 'missing' };
        throw error;
      }
      const role = output.Role;
      if (role === undefined) {
        throw new AwsApiError(`GetRole (${name}): the response has no role`, {
          code: 'invalid-response',
          service: 'iam',
          operation: 'GetRole',
          iamAction: 'iam:GetRole',
        });
      }
      // IAM's ARN carries the role's path, which the ARN asked with may lack (aws-auth names roles
      // without it); an access entry needs IAM's.
      const real = iamRoleArnOf(role.Arn, role.Path, name);
      return dropUndefined({
        arn: real?.arn ?? roleArn,
        state: 'exists' as const,
        path: real?.path,
        roleId: role.RoleId,
        createDate: isoTime(role.CreateDate),
        trustPolicy: decodePolicyDocument(role.AssumeRolePolicyDocument),
      });
    },

    async oidcProviders(): Promise<OidcProvider[]> {
      const output = await call<ListOpenIDConnectProvidersCommandOutput>(
        new ListOpenIDConnectProvidersCommand({}),
        'ListOpenIDConnectProviders',
      );
      return (output.OpenIDConnectProviderList ?? [])
        .map((p) => p.Arn)
        .filter((arn): arn is string => arn !== undefined && arn !== '')
        .map((arn) => ({ arn, url: oidcProviderUrlOf(arn) }));
    },

    async oidcProviderClientIds(arn): Promise<Lookup<string[]>> {
      const subject = oidcProviderUrlOf(arn) || arn;
      try {
        const output = await call<GetOpenIDConnectProviderCommandOutput>(
          new GetOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn }),
          'GetOpenIDConnectProvider',
          subject,
        );
        return { found: true, value: [...(output.ClientIDList ?? [])] };
      } catch (error) {
        if (isAwsError(error, 'NoSuchEntity', 'NoSuchEntityException'))
          return { found: false, reason: `OIDC provider ${subject} does not exist` };
        throw error;
      }
    },

    async simulateRoleAction(roleArn, action): Promise<RoleActionPermission> {
      const name = iamNameOf(roleArn, 'role');
      const output = await call<SimulatePrincipalPolicyCommandOutput>(
        new SimulatePrincipalPolicyCommand({ PolicySourceArn: roleArn, ActionNames: [action] }),
        'SimulatePrincipalPolicy',
        name,
      );
      const result = (output.EvaluationResults ?? []).find((r) => r.EvalActionName === action);
      const decision = result?.EvalDecision;
      if (decision !== 'allowed' && decision !== 'implicitDeny' && decision !== 'explicitDeny') {
        throw new AwsApiError(
          `SimulatePrincipalPolicy (${name}): no decision for ${action} (got ${JSON.stringify(decision ?? null)})`,
          {
            code: 'invalid-response',
            service: 'iam',
            operation: 'SimulatePrincipalPolicy',
            iamAction: 'iam:SimulatePrincipalPolicy',
          },
        );
      }
      return { roleArn, action, decision };
    },
  };
}

/**
 * GetRole's ARN and path when they are well-formed and name the role asked for (the path the
 * snapshot schema takes, the ARN ending in `<path><name>`); undefined otherwise.
 */
export function iamRoleArnOf(
  arn: string | undefined,
  path: string | undefined,
  name: string,
): { arn: string; path: string } | undefined {
  if (arn === undefined || path === undefined || !/^(?:\/|\/[\x21-\x7E]+\/)$/.test(path)) return undefined;
  const match = /^arn:aws(?:-[a-z]+)*:iam::\d{12}:role(\/.*)$/.exec(arn);
  if (match === null || match[1]?.toLowerCase() !== `${path}${name}`.toLowerCase()) return undefined;
  return { arn, path };
}

/** The issuer of an IAM OIDC provider ARN as IAM names it (`oidc.eks.<region>.amazonaws.com/id/<ID>`). */
export function oidcProviderUrlOf(arn: string): string {
  const at = arn.indexOf(':oidc-provider/');
  return at < 0 ? '' : arn.slice(at + ':oidc-provider/'.length);
}

/**
 * GetRole's `AssumeRolePolicyDocument` is URL-encoded JSON (RFC 3986; the IAM API documents it):
 * decoded once; a document that does not decode is kept as is, for the rules to report unreadable.
 */
export function decodePolicyDocument(document: string | undefined): string | undefined {
  if (document === undefined) return undefined;
  if (document.trimStart().startsWith('{')) return document;
  try {
    return decodeURIComponent(document.replace(/\+/g, '%20'));
  } catch {
    return document;
  }
}
