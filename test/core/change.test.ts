import { describe, expect, it } from 'vitest';
import { deletionChanges, hasSettled } from '../../shared/core/predict/change.ts';
import {
  buildSnapshot,
  FARGATE_ROLE,
  fargateProfile,
  NODE_ROLE,
  nodegroup,
} from '../support/snapshot-builder.ts';

describe('deletionChanges', () => {
  it('lists the deletion of every node group and every Fargate profile, with their roles', () => {
    const s = buildSnapshot({
      nodegroups: [nodegroup('general'), nodegroup('spot')],
      fargateProfiles: [fargateProfile('system')],
    });
    expect(deletionChanges(s)).toEqual([
      { kind: 'delete-nodegroup', nodegroupName: 'general', nodeRole: NODE_ROLE },
      { kind: 'delete-nodegroup', nodegroupName: 'spot', nodeRole: NODE_ROLE },
      { kind: 'delete-fargate-profile', fargateProfileName: 'system', podExecutionRoleArn: FARGATE_ROLE },
    ]);
  });
  it('asks nothing about a source that could not be read', () => {
    const s = buildSnapshot({ fargateProfiles: [fargateProfile('system')] });
    const blind = { ...s, nodegroups: { status: 'error' as const, error: 'denied' } };
    expect(deletionChanges(blind)).toEqual([
      { kind: 'delete-fargate-profile', fargateProfileName: 'system', podExecutionRoleArn: FARGATE_ROLE },
    ]);
    expect(deletionChanges({ ...blind, fargateProfiles: { status: 'absent' } })).toEqual([]);
  });
});

describe('hasSettled', () => {
  const s = buildSnapshot({ mode: 'API_AND_CONFIG_MAP' });
  it('a node group deletion settles when the group is gone or its deletion failed', () => {
    expect(hasSettled({ kind: 'delete-nodegroup', nodegroupName: 'general' }, s)).toBe(false);
    expect(hasSettled({ kind: 'delete-nodegroup', nodegroupName: 'other' }, s)).toBe(true);
    const failed = buildSnapshot({
      nodegroups: [{ name: 'general', status: 'DELETE_FAILED', nodeRole: NODE_ROLE, healthIssues: [] }],
    });
    expect(hasSettled({ kind: 'delete-nodegroup', nodegroupName: 'general' }, failed)).toBe(true);
  });
  it('an unreadable source never settles', () => {
    const blind = { ...s, nodegroups: { status: 'error' as const, error: 'denied' } };
    expect(hasSettled({ kind: 'delete-nodegroup', nodegroupName: 'other' }, blind)).toBe(false);
  });
  it('a mode change settles once the cluster is ACTIVE in the new mode', () => {
    expect(hasSettled({ kind: 'set-auth-mode', mode: 'API' }, s)).toBe(false);
    const updating = {
      ...s,
      cluster: { ...s.cluster, authenticationMode: 'API' as const, status: 'UPDATING' },
    };
    expect(hasSettled({ kind: 'set-auth-mode', mode: 'API' }, updating)).toBe(false);
    expect(
      hasSettled(
        { kind: 'set-auth-mode', mode: 'API' },
        { ...updating, cluster: { ...updating.cluster, status: 'ACTIVE' } },
      ),
    ).toBe(true);
  });
  it('an access entry deletion settles when the entry is gone', () => {
    const withEntry = buildSnapshot({
      mode: 'API',
      entries: [{ principalArn: NODE_ROLE, type: 'EC2_LINUX', kubernetesGroups: [], accessPolicies: [] }],
    });
    expect(hasSettled({ kind: 'delete-access-entry', principalArn: NODE_ROLE }, withEntry)).toBe(false);
    expect(hasSettled({ kind: 'delete-access-entry', principalArn: NODE_ROLE }, s)).toBe(true);
  });
});
