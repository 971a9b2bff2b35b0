import { describe, expect, it } from 'vitest';
import { awaitRead, readAccessEntries, refreshVolatile } from '../../shared/app/read-sources.ts';
import { CollectionError } from '../../shared/errors.ts';
import type { ClusterDescription, EksReader } from '../../shared/ports.ts';
import { buildSnapshot, ec2Entry } from '../support/snapshot-builder.ts';

const denied = () =>
  new CollectionError('ListAccessEntries denied', {
    code: 'forbidden',
    service: 'eks',
    operation: 'ListAccessEntries',
  });

const described = (over: Partial<ClusterDescription> = {}): ClusterDescription => ({
  name: 'prod',
  arn: 'arn:aws:eks:eu-west-1:111122223333:cluster/prod',
  status: 'ACTIVE',
  authenticationMode: 'API_AND_CONFIG_MAP',
  ...over,
});

describe('readAccessEntries', () => {
  it('does not ask EKS in CONFIG_MAP mode: access entries cannot exist there', async () => {
    let asked = 0;
    const eks = {
      accessEntries: async () => {
        asked += 1;
        return { found: true as const, value: [] };
      },
    } as unknown as EksReader;
    expect(await readAccessEntries(eks, described({ authenticationMode: 'CONFIG_MAP' }))).toEqual({
      found: false,
      reason: 'authentication mode is CONFIG_MAP: access entries cannot exist',
    });
    expect(asked).toBe(0);
    await readAccessEntries(eks, described());
    expect(asked).toBe(1);
  });
});

describe('refreshVolatile', () => {
  const stored = buildSnapshot({ mode: 'API_AND_CONFIG_MAP', entries: [ec2Entry()] });

  it('takes the fresh aws-auth, access entries, status and mode over the stored ones', async () => {
    const { snapshot, staleSources } = refreshVolatile(
      stored,
      {
        cluster: described({ status: 'UPDATING', authenticationMode: 'API' }),
        awsAuth: await awaitRead(Promise.resolve({ found: false as const, reason: 'not found' })),
        accessEntries: await awaitRead(Promise.resolve({ found: true as const, value: [] })),
      },
      '2026-11-21T00:00:00.000Z',
    );
    expect(staleSources).toEqual([]);
    expect(snapshot).toEqual({
      ...stored,
      capturedAt: '2026-11-21T00:00:00.000Z',
      cluster: { ...stored.cluster, status: 'UPDATING', authenticationMode: 'API' },
      awsAuth: { status: 'absent', reason: 'not found' },
      accessEntries: { status: 'ok', data: [] },
    });
  });

  it('keeps the stored version of a source whose fresh read failed, and names it stale', async () => {
    const { snapshot, staleSources } = refreshVolatile(
      stored,
      {
        cluster: described(),
        awsAuth: await awaitRead(Promise.reject(denied())),
        accessEntries: await awaitRead(Promise.reject(denied())),
      },
      '2026-11-21T00:00:00.000Z',
    );
    expect(staleSources).toEqual(['awsAuth', 'accessEntries']);
    expect(snapshot.awsAuth).toBe(stored.awsAuth);
    expect(snapshot.accessEntries).toBe(stored.accessEntries);
  });

  it('in CONFIG_MAP mode reports access entries absent, whatever the read before the mode was known gave', async () => {
    const { snapshot, staleSources } = refreshVolatile(
      stored,
      {
        cluster: described({ authenticationMode: 'CONFIG_MAP' }),
        awsAuth: await awaitRead(Promise.resolve({ found: false as const, reason: 'not found' })),
        accessEntries: await awaitRead(Promise.reject(denied())),
      },
      '2026-11-21T00:00:00.000Z',
    );
    expect(staleSources).toEqual([]);
    expect(snapshot.accessEntries).toEqual({
      status: 'absent',
      reason: 'authentication mode is CONFIG_MAP: access entries cannot exist',
    });
  });
});
