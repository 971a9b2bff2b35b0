/**
 * UpdateClusterConfig's many kinds of update (docs/eks-auth-semantics.md#updateclusterconfig-update-types):
 * any record without an authentication mode is ignored with the kind of update named — never
 * invalid, never a change — whatever fields EKS adds; a mode set together with other fields is
 * still read; the mode is also read from the response's update params.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEksEvent } from '../../shared/core/events/cloudtrail.ts';
import { CLUSTER_UPDATE_TYPES } from '../../shared/core/events/cloudtrail-cluster-config.ts';
import { AUTHENTICATION_MODES } from '../../shared/core/model.ts';
import { REPO_ROOT } from '../support/fake-io.ts';

// biome-ignore lint/suspicious/noExplicitAny: a CloudTrail fixture edited per case
function record(): any {
  return JSON.parse(
    readFileSync(join(REPO_ROOT, 'test/fixtures/cloudtrail/update-cluster-config-auth-mode.json'), 'utf8'),
  );
}

/** The request fields of UpdateClusterConfigRequest other than accessConfig (SDK v3 3.1169). */
const NEW_FIELDS: Record<string, fc.Arbitrary<unknown>> = {
  deletionProtection: fc.boolean(),
  zonalShiftConfig: fc.record({ enabled: fc.boolean() }),
  upgradePolicy: fc.record({ supportType: fc.constantFrom('STANDARD', 'EXTENDED') }),
  computeConfig: fc.record({
    enabled: fc.boolean(),
    nodePools: fc.array(fc.string()),
    nodeRoleArn: fc.string(),
  }),
  kubernetesNetworkConfig: fc.record({ elasticLoadBalancing: fc.record({ enabled: fc.boolean() }) }),
  storageConfig: fc.record({ blockStorage: fc.record({ enabled: fc.boolean() }) }),
  remoteNetworkConfig: fc.record({
    remoteNodeNetworks: fc.array(fc.record({ cidrs: fc.array(fc.string()) })),
  }),
  controlPlaneScalingConfig: fc.record({ tier: fc.string() }),
  resourcesVpcConfig: fc.record({ controlPlaneEgressMode: fc.constantFrom('DEFAULT', 'CUSTOMER_ROUTED') }),
  logging: fc.record({ clusterLogging: fc.array(fc.record({ enabled: fc.boolean() })) }),
  kubeApiServerConfig: fc.dictionary(fc.string(), fc.jsonValue()),
};

const otherFields = fc.record(
  Object.fromEntries(Object.entries(NEW_FIELDS).map(([k, v]) => [k, v])) as Record<
    string,
    fc.Arbitrary<unknown>
  >,
  { requiredKeys: [] },
);
/** Fields EKS may add later: any name, any JSON value. */
const futureFields = fc.dictionary(
  fc.string().filter((k) => !['name', 'accessConfig', '__proto__'].includes(k)),
  fc.jsonValue(),
  { maxKeys: 4 },
);
const updateType = fc.oneof(
  fc.constantFrom(...CLUSTER_UPDATE_TYPES.filter((t) => t !== 'AccessConfigUpdate')),
  fc.string(),
);

describe('UpdateClusterConfig: every kind of update tolerated', () => {
  it('without an authentication mode: ignored, naming the update type, never invalid', () => {
    fc.assert(
      fc.property(
        otherFields,
        futureFields,
        fc.option(updateType, { nil: undefined }),
        (fields, future, type) => {
          if (type === 'AccessConfigUpdate') return;
          const e = record();
          e.detail.requestParameters = { ...future, ...fields, name: 'prod' };
          e.detail.responseElements = {
            update: {
              id: 'u-1',
              status: 'InProgress',
              ...(type === undefined ? {} : { type }),
              params: [],
              errors: [],
            },
          };
          const r = parseEksEvent(e);
          expect(r.kind).toBe('ignored');
          if (r.kind !== 'ignored') return;
          expect(r.reason).toMatch(/^UpdateClusterConfig .*: not an authentication change$/s);
          if (type !== undefined && /^[A-Za-z][A-Za-z0-9]{0,63}$/.test(type))
            expect(r.reason).toContain(type);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the mode together with any other fields: read', () => {
    fc.assert(
      fc.property(
        otherFields,
        futureFields,
        fc.constantFrom(...AUTHENTICATION_MODES),
        (fields, future, mode) => {
          const e = record();
          e.detail.requestParameters = {
            ...future,
            ...fields,
            name: 'prod',
            accessConfig: { authenticationMode: mode },
          };
          const r = parseEksEvent(e);
          expect(r.kind).toBe('change');
          if (r.kind === 'change') expect(r.change).toEqual({ kind: 'set-auth-mode', mode });
        },
      ),
      { numRuns: 200 },
    );
  });

  it.each(CLUSTER_UPDATE_TYPES.filter((t) => t !== 'AccessConfigUpdate'))(
    '%s without a mode is ignored by name',
    (type) => {
      const e = record();
      e.detail.requestParameters = { name: 'prod' };
      e.detail.responseElements = { update: { id: 'u', status: 'InProgress', type, params: [] } };
      const r = parseEksEvent(e);
      expect(r).toMatchObject({
        kind: 'ignored',
        reason: `UpdateClusterConfig ${type}: not an authentication change`,
      });
    },
  );

  it('a non-auth update with a cut request (no name, null requestParameters, null mode) is ignored, not invalid', () => {
    for (const req of [
      null,
      {},
      { name: '', deletionProtection: true },
      { name: 'prod', accessConfig: { authenticationMode: null } },
    ]) {
      const e = record();
      e.detail.requestParameters = req;
      e.detail.responseElements = { update: { type: 'DeletionProtectionUpdate' } };
      expect(parseEksEvent(e).kind).toBe('ignored');
    }
  });

  it('the mode from the response params when the request lacks it', () => {
    const e = record();
    e.detail.requestParameters = { name: 'prod' };
    e.detail.responseElements = {
      update: { type: 'AccessConfigUpdate', params: [{ type: 'AuthenticationMode', value: 'API' }] },
    };
    const r = parseEksEvent(e);
    expect(r).toMatchObject({ kind: 'change', change: { kind: 'set-auth-mode', mode: 'API' } });
  });

  it('an unknown mode stays invalid, with its path', () => {
    const e = record();
    e.detail.requestParameters = {
      name: 'prod',
      deletionProtection: true,
      accessConfig: { authenticationMode: 'IAM' },
    };
    const r = parseEksEvent(e);
    expect(r).toMatchObject({ kind: 'invalid' });
    if (r.kind === 'invalid')
      expect(r.reason).toContain('$.detail.requestParameters.accessConfig.authenticationMode');
  });

  it('a hostile field name is quoted in the reason, on one line', () => {
    const e = record();
    e.detail.requestParameters = { name: 'prod', 'x\n`*evil*`': true };
    e.detail.responseElements = null;
    const r = parseEksEvent(e);
    expect(r.kind).toBe('ignored');
    if (r.kind === 'ignored') {
      expect(r.reason).not.toContain('\n');
      expect(r.reason).toContain('"x\\n`*evil*`"');
    }
  });
});
