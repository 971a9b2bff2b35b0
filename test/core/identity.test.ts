import { describe, expect, it } from 'vitest';
import { clusterIdKey, clusterRefOf, isRegionCode } from '../../shared/core/model.ts';
import { ACCOUNT, buildSnapshot } from '../support/snapshot-builder.ts';

describe('isRegionCode', () => {
  it.each([
    'eu-west-1',
    'us-east-1',
    'ap-southeast-7',
    'ap-southeast-10',
    'us-gov-west-1',
    'cn-north-1',
    'us-iso-east-1',
    'us-isob-east-1',
    'eu-isoe-west-1',
    'eusc-de-east-1',
  ])('accepts the Region code %s', (code) => {
    expect(isRegionCode(code)).toBe(true);
  });

  it.each([
    '',
    'eu-west',
    'eu-west-',
    'euwest1',
    'EU-WEST-1',
    'eu-west-1a',
    'e-west-1',
    'europe-west-1',
    'mars-north-9x',
    'eu-west-1;rm',
    'eu-west-1\n',
    '../eu-west-1',
  ])('refuses %j', (value) => {
    expect(isRegionCode(value)).toBe(false);
  });
});

describe('cluster identity', () => {
  const id = { accountId: '111122223333', region: 'eu-west-1', clusterName: 'prod' };

  it('keys a cluster by account, Region and name', () => {
    expect(clusterIdKey(id)).toBe('111122223333/eu-west-1/prod');
    expect(clusterIdKey({ ...id, region: 'eu-west-2' })).not.toBe(clusterIdKey(id));
  });

  it('names the cluster of a finding with exactly the published fields, from a snapshot too', () => {
    expect(clusterRefOf(buildSnapshot())).toEqual({ accountId: ACCOUNT, region: 'eu-west-1', name: 'prod' });
  });
});
