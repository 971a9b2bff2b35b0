/**
 * Constants from upstream aws-iam-authenticator: SSO partitions, account-ID and permission-set
 * patterns, the JSON field names of RoleMapping/UserMapping/SSOARNMatcher, and the nouns used in
 * loss descriptions.
 */
import type { AwsAuthKey } from './parse-result.ts';

/**
 * `pkg/endpoints/partitions.go` PARTITIONS at 81b1dab (older releases lack aws-iso-e, aws-iso-f
 * and aws-eusc).
 */
export const SSO_PARTITIONS: readonly string[] = [
  'aws',
  'aws-cn',
  'aws-us-gov',
  'aws-iso',
  'aws-iso-b',
  'aws-iso-e',
  'aws-iso-f',
  'aws-eusc',
];
export const ACCOUNT_ID_RE = /^[0-9]{12}$/;
export const PERMISSION_SET_NAME_RE = /^[\w+=,.@-]{1,32}$/;

export const ROLE_FIELDS = ['rolearn', 'sso', 'username', 'groups', 'userid'] as const;
export const USER_FIELDS = ['userarn', 'username', 'groups', 'userid'] as const;
export const SSO_FIELDS = ['permissionSetName', 'accountID', 'partition'] as const;

export const KEY_NOUN: Record<AwsAuthKey, { one: string; many: string }> = {
  mapRoles: { one: 'role mapping', many: 'role mappings' },
  mapUsers: { one: 'user mapping', many: 'user mappings' },
  mapAccounts: { one: 'auto-mapped account', many: 'auto-mapped accounts' },
};
