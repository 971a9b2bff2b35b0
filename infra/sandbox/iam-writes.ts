/**
 * The IAM write calls that break Pod Identity or IRSA, as the IAM query API answers them
 * (API_UpdateAssumeRolePolicy, API_DeleteRole, API_DetachRolePolicy, API_DeleteRolePolicy,
 * API_DeleteOpenIDConnectProvider of the IAM API reference): `NoSuchEntity` (404) for what does
 * not exist, `DeleteConflict` (409) for DeleteRole while managed or inline policies remain,
 * `MalformedPolicyDocument` (400) for a trust policy that is not JSON. Each success changes the
 * account at once (IAM applies immediately), leaves the CloudTrail record IAM writes (source
 * `aws.iam`, `iam.amazonaws.com`, us-east-1, `responseElements: null`) and schedules the pods'
 * next credential refresh on every cluster.
 *
 * Not modelled: instance profiles block DeleteRole in AWS ("must remove roles from instance
 * profile first"); the sandbox's default instance profiles exist only to answer
 * GetInstanceProfile, so they do not.
 */
import { cloudTrailRecord } from './cloudtrail-record.ts';
import { xmlEscape } from './ids.ts';
import type { QueryHandlerContext } from './query-services.ts';
import { QueryError } from './service-errors.ts';
import type { SandboxIamRole } from './types.ts';

const IAM_NAMESPACE = 'https://iam.amazonaws.com/doc/2010-05-08/';
/** IAM is global: CloudTrail records its calls in us-east-1. */
const IAM_RECORD_REGION = 'us-east-1';

type IamWriteHandler = (ctx: QueryHandlerContext) => { body: string };

function param(ctx: QueryHandlerContext, key: string): string {
  const value = ctx.params.get(key)?.[0];
  if (value === undefined || value === '') {
    throw new QueryError(
      400,
      'ValidationError',
      `1 validation error detected: Value null at '${key}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return value;
}

function existingRole(ctx: QueryHandlerContext, name: string): SandboxIamRole {
  const role = ctx.runtime.world.iamRoles.get(name.toLowerCase());
  if (!role || role.state === 'missing') {
    throw new QueryError(404, 'NoSuchEntity', `The role with name ${name} cannot be found.`);
  }
  return role;
}

/** The empty `<XResponse>` IAM answers write calls with, after recording the call in CloudTrail. */
function done(
  ctx: QueryHandlerContext,
  action: string,
  requestParameters: Record<string, unknown>,
): { body: string } {
  const world = ctx.runtime.world;
  ctx.runtime.cloudTrail.push(
    cloudTrailRecord({
      service: 'iam',
      principal: ctx.principal,
      accountId: world.accountId,
      region: IAM_RECORD_REGION,
      eventName: action,
      requestParameters,
      responseElements: null,
      userAgent: ctx.userAgent,
      sourceIPAddress: ctx.sourceIPAddress,
      requestId: ctx.reqId,
      at: Date.now(),
    }),
  );
  world.credentialsChanged();
  return {
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${IAM_NAMESPACE}"><ResponseMetadata><RequestId>${xmlEscape(ctx.reqId)}</RequestId></ResponseMetadata></${action}Response>`,
  };
}

const updateAssumeRolePolicy: IamWriteHandler = (ctx) => {
  const roleName = param(ctx, 'RoleName');
  const policyDocument = param(ctx, 'PolicyDocument');
  const role = existingRole(ctx, roleName);
  let parsed: unknown;
  try {
    parsed = JSON.parse(policyDocument);
  } catch {
    throw new QueryError(400, 'MalformedPolicyDocument', 'This policy contains invalid Json');
  }
  if (typeof parsed !== 'object' || parsed === null || !('Statement' in parsed)) {
    throw new QueryError(400, 'MalformedPolicyDocument', 'Syntax errors in policy.');
  }
  role.trustPolicy = policyDocument;
  ctx.runtime.world.log(`IAM: trust policy of role ${role.roleName} replaced (UpdateAssumeRolePolicy)`);
  return done(ctx, 'UpdateAssumeRolePolicy', { roleName, policyDocument });
};

const deleteRole: IamWriteHandler = (ctx) => {
  const roleName = param(ctx, 'RoleName');
  const role = existingRole(ctx, roleName);
  if ((role.attachedPolicies ?? []).length > 0) {
    throw new QueryError(409, 'DeleteConflict', 'Cannot delete entity, must detach all policies first.');
  }
  if (Object.keys(role.inlinePolicies ?? {}).length > 0) {
    throw new QueryError(409, 'DeleteConflict', 'Cannot delete entity, must delete policies first.');
  }
  role.state = 'missing';
  ctx.runtime.world.log(`IAM: role ${role.roleName} deleted`);
  return done(ctx, 'DeleteRole', { roleName });
};

const detachRolePolicy: IamWriteHandler = (ctx) => {
  const roleName = param(ctx, 'RoleName');
  const policyArn = param(ctx, 'PolicyArn');
  const role = existingRole(ctx, roleName);
  if (!(role.attachedPolicies ?? []).includes(policyArn)) {
    throw new QueryError(404, 'NoSuchEntity', `Policy ${policyArn} was not found.`);
  }
  role.attachedPolicies = (role.attachedPolicies ?? []).filter((p) => p !== policyArn);
  ctx.runtime.world.log(`IAM: ${policyArn} detached from role ${role.roleName}`);
  return done(ctx, 'DetachRolePolicy', { roleName, policyArn });
};

const deleteRolePolicy: IamWriteHandler = (ctx) => {
  const roleName = param(ctx, 'RoleName');
  const policyName = param(ctx, 'PolicyName');
  const role = existingRole(ctx, roleName);
  if (role.inlinePolicies?.[policyName] === undefined) {
    throw new QueryError(404, 'NoSuchEntity', `The role policy with name ${policyName} cannot be found.`);
  }
  const { [policyName]: _gone, ...kept } = role.inlinePolicies;
  role.inlinePolicies = kept;
  ctx.runtime.world.log(`IAM: inline policy ${policyName} of role ${role.roleName} deleted`);
  return done(ctx, 'DeleteRolePolicy', { roleName, policyName });
};

const deleteOpenIdConnectProvider: IamWriteHandler = (ctx) => {
  const arn = param(ctx, 'OpenIDConnectProviderArn');
  const providers = ctx.runtime.world.oidcProviders;
  const index = providers.indexOf(arn);
  if (index < 0) {
    throw new QueryError(404, 'NoSuchEntity', `OpenIDConnect Provider not found for arn ${arn}`);
  }
  providers.splice(index, 1);
  ctx.runtime.world.oidcProviderClientIds.delete(arn);
  ctx.runtime.world.log(`IAM: OIDC provider ${arn} deleted`);
  return done(ctx, 'DeleteOpenIDConnectProvider', { openIDConnectProviderArn: arn });
};

const attachRolePolicy: IamWriteHandler = (ctx) => {
  const roleName = param(ctx, 'RoleName');
  const policyArn = param(ctx, 'PolicyArn');
  const role = existingRole(ctx, roleName);
  if (!/^arn:aws[\w-]*:iam::(aws|\d{12}):policy\/.+$/.test(policyArn)) {
    throw new QueryError(400, 'InvalidInput', `ARN ${policyArn} is not valid.`);
  }
  if (!(role.attachedPolicies ?? []).includes(policyArn))
    role.attachedPolicies = [...(role.attachedPolicies ?? []), policyArn];
  ctx.runtime.world.log(`IAM: ${policyArn} attached to role ${role.roleName}`);
  return done(ctx, 'AttachRolePolicy', { roleName, policyArn });
};

const addClientIdToOpenIdConnectProvider: IamWriteHandler = (ctx) => {
  const arn = param(ctx, 'OpenIDConnectProviderArn');
  const clientId = param(ctx, 'ClientID');
  const world = ctx.runtime.world;
  if (!world.oidcProviders.includes(arn)) {
    throw new QueryError(404, 'NoSuchEntity', `OpenIDConnect Provider not found for arn ${arn}`);
  }
  const ids = world.oidcProviderClientIds.get(arn) ?? ['sts.amazonaws.com'];
  if (!ids.includes(clientId)) world.oidcProviderClientIds.set(arn, [...ids, clientId]);
  world.log(`IAM: client ID ${clientId} added to OIDC provider ${arn}`);
  return done(ctx, 'AddClientIDToOpenIDConnectProvider', {
    openIDConnectProviderArn: arn,
    clientID: clientId,
  });
};

/** The IAM write actions by name, for the IAM query server's handler table. */
export const IAM_WRITE_HANDLERS: Record<string, IamWriteHandler> = {
  UpdateAssumeRolePolicy: updateAssumeRolePolicy,
  DeleteRole: deleteRole,
  DetachRolePolicy: detachRolePolicy,
  DeleteRolePolicy: deleteRolePolicy,
  DeleteOpenIDConnectProvider: deleteOpenIdConnectProvider,
  AttachRolePolicy: attachRolePolicy,
  AddClientIDToOpenIDConnectProvider: addClientIdToOpenIdConnectProvider,
};
