import { describe, expect, it } from 'vitest';
import {
  principalKey,
  roleArnHasPath,
  roleArnWithoutPath,
  ssoMatches,
} from '../../shared/core/access/principal.ts';

describe('principalKey', () => {
  it('folds an STS assumed-role session onto its role, lower-cased', () => {
    expect(principalKey('arn:aws:sts::111122223333:assumed-role/Prod-Node/i-0abc')).toBe(
      'arn:aws:iam::111122223333:role/prod-node',
    );
  });
  it('drops the IAM path of a role (STS never carries it)', () => {
    expect(principalKey('arn:aws:iam::111122223333:role/eks/nodes/Prod-Node')).toBe(
      'arn:aws:iam::111122223333:role/prod-node',
    );
  });
  it('keeps the path of an IAM user', () => {
    expect(principalKey('arn:aws:iam::111122223333:user/ops/Alice')).toBe(
      'arn:aws:iam::111122223333:user/ops/alice',
    );
  });
  it('keeps other partitions', () => {
    expect(principalKey('arn:aws-cn:iam::111122223333:role/x')).toBe('arn:aws-cn:iam::111122223333:role/x');
  });
  it('lower-cases what is not an ARN instead of failing', () => {
    expect(principalKey(' Garbage ')).toBe('garbage');
  });
});

describe('role paths', () => {
  it('detects and strips a path', () => {
    expect(roleArnHasPath('arn:aws:iam::1:role/team/x')).toBe(true);
    expect(roleArnHasPath('arn:aws:iam::1:role/x')).toBe(false);
    expect(roleArnWithoutPath('arn:aws:iam::1:role/team/x')).toBe('arn:aws:iam::1:role/x');
  });
});

describe('ssoMatches', () => {
  const sso = { permissionSetName: 'ViewOnlyAccess', accountID: '012345678912' };
  it('matches the reserved SSO role of the permission set, case-insensitively', () => {
    expect(
      ssoMatches(sso, 'arn:aws:iam::012345678912:role/awsreservedsso_viewonlyaccess_0123456789abcdef'),
    ).toBe(true);
  });
  it('does not match another permission set or account', () => {
    expect(ssoMatches(sso, 'arn:aws:iam::012345678912:role/AWSReservedSSO_Admin_0123')).toBe(false);
    expect(ssoMatches(sso, 'arn:aws:iam::999999999999:role/AWSReservedSSO_ViewOnlyAccess_0123')).toBe(false);
  });
  it('never matches with an explicit partition, as upstream SSOArnLike leaves it blank', () => {
    expect(
      ssoMatches(
        { ...sso, partition: 'aws' },
        'arn:aws:iam::012345678912:role/AWSReservedSSO_ViewOnlyAccess_1',
      ),
    ).toBe(false);
  });
});
