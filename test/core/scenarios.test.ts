import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { principalKey, roleNameOf } from '../../shared/core/access/principal.ts';
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { formatSnapshotErrors, parseSnapshotJson } from '../../shared/core/snapshot/snapshot-schema.ts';

const dir = new URL('../../scenarios/', import.meta.url);
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .sort();

function load(name: string): ClusterSnapshot {
  const result = parseSnapshotJson(readFileSync(new URL(name, dir), 'utf8'), name);
  if (!result.ok) throw new Error(formatSnapshotErrors(name, result));
  return result.snapshot;
}

const NODE_ROLE = 'arn:aws:iam::111122223333:role/prod-node-role';
const ADMIN_ROLE = 'arn:aws:iam::111122223333:role/platform-admin';

/** Every role ARN the snapshot refers to, from any source. */
function rolesInUse(s: ClusterSnapshot): Set<string> {
  const roles = new Set<string>();
  if (s.nodegroups.status === 'ok') for (const ng of s.nodegroups.data) roles.add(ng.nodeRole);
  if (s.fargateProfiles.status === 'ok')
    for (const fp of s.fargateProfiles.data) roles.add(fp.podExecutionRoleArn);
  if (s.compute.status === 'ok') for (const n of s.compute.data) if (n.roleArn) roles.add(n.roleArn);
  if (s.karpenterNodeClasses?.status === 'ok') {
    for (const c of s.karpenterNodeClasses.data) if (c.roleArn) roles.add(c.roleArn);
  }
  if (s.accessEntries.status === 'ok') for (const e of s.accessEntries.data) roles.add(e.principalArn);
  if (s.awsAuth.status === 'ok') {
    for (const r of parseAwsAuth(s.awsAuth.data.data).roles) if (r.rolearn) roles.add(r.rolearn);
    // entries of a key that fails to parse still name roles the cluster depends on
    for (const m of Object.values(s.awsAuth.data.data)
      .join('\n')
      .matchAll(/rolearn:\s*(\S+)/g)) {
      if (m[1]) roles.add(m[1]);
    }
  }
  return roles;
}

describe('scenarios', () => {
  it('holds the eleven documented scenarios', () => {
    expect(files).toEqual([
      'a-karpenter-shares-last-nodegroup-role.json',
      'a-karpenter-shares-role-api-and-config-map-no-entry.json',
      'a-karpenter-shares-role-api-and-config-map-with-entry.json',
      'a-two-nodegroups-share-role.json',
      'b-fargate-entry-removed-by-terraform.json',
      'c-yaml-slip-in-maproles.json',
      'd-access-entry-older-than-role.json',
      'e-switch-to-api-mode.json',
      'f-path-node-role-api-and-config-map.json',
      'f-path-node-role-config-map.json',
      'healthy-api-mode.json',
    ]);
  });

  it.each(files)('%s validates against the snapshot schema', (name) => {
    const result = parseSnapshotJson(readFileSync(new URL(name, dir), 'utf8'), name);
    expect(result.ok ? 'valid' : formatSnapshotErrors(name, result)).toBe('valid');
  });

  it.each(files)(
    '%s describes cluster prod in 111122223333/eu-west-1, ACTIVE 1.31 eks.20, at one instant',
    (name) => {
      const s = load(name);
      expect([s.accountId, s.region, s.clusterName, s.clusterArn, s.capturedAt]).toEqual([
        '111122223333',
        'eu-west-1',
        'prod',
        'arn:aws:eks:eu-west-1:111122223333:cluster/prod',
        '2026-11-20T10:00:00Z',
      ]);
      expect([s.cluster.status, s.cluster.version, s.cluster.platformVersion]).toEqual([
        'ACTIVE',
        '1.31',
        'eks.20',
      ]);
    },
  );

  it.each(files)('%s has an existing iamRoles entry, with its path, for every role it uses', (name) => {
    const s = load(name);
    if (s.iamRoles.status !== 'ok') throw new Error('iamRoles not ok');
    // IAM knows a role by its name: aws-auth spells `role/eks/x` as `role/x`, the same role
    const known = new Map(s.iamRoles.data.map((r) => [principalKey(r.arn), r]));
    for (const arn of rolesInUse(s)) {
      const role = known.get(principalKey(arn));
      expect(role, arn).toBeDefined();
      expect(role?.state).toBe('exists');
      expect(role?.roleId).toMatch(/^AROA[A-Z0-9]{17}$/);
      expect(role?.createDate).toBeDefined();
      // as a capture records it: GetRole's ARN and Path
      expect(role?.arn.endsWith(`:role${role?.path}${roleNameOf(arn)}`), arn).toBe(true);
    }
  });

  it.each(files)('%s uses well-formed EC2 node names and instance IDs', (name) => {
    const s = load(name);
    if (s.compute.status !== 'ok') throw new Error('compute not ok');
    for (const node of s.compute.data) {
      if (node.kind === 'fargate') {
        expect(node.nodeName).toMatch(/^fargate-ip-10-0-\d+-\d+\.eu-west-1\.compute\.internal$/);
      } else {
        expect(node.id).toMatch(/^i-0[0-9a-f]{16}$/);
        expect(node.nodeName).toMatch(/^ip-10-0-\d+-\d+\.eu-west-1\.compute\.internal$/);
      }
    }
  });

  it('a: Karpenter shares the only managed node group role, mapped once by EKS, in CONFIG_MAP mode', () => {
    const s = load('a-karpenter-shares-last-nodegroup-role.json');
    expect(s.cluster.authenticationMode).toBe('CONFIG_MAP');
    expect(s.accessEntries.status).toBe('absent');
    expect(s.nodegroups.status === 'ok' && s.nodegroups.data.map((n) => [n.name, n.nodeRole])).toEqual([
      ['general', NODE_ROLE],
    ]);
    expect(s.karpenterNodeClasses?.status === 'ok' && s.karpenterNodeClasses.data[0]?.roleArn).toBe(
      NODE_ROLE,
    );
    const kinds = s.compute.status === 'ok' ? s.compute.data.map((n) => `${n.kind}:${n.roleArn}`) : [];
    expect(kinds.filter((k) => k === `managed:${NODE_ROLE}`)).toHaveLength(2);
    expect(kinds.filter((k) => k === `karpenter:${NODE_ROLE}`)).toHaveLength(3);
    if (s.awsAuth.status !== 'ok') throw new Error('aws-auth not ok');
    const parsed = parseAwsAuth(s.awsAuth.data.data);
    expect(parsed.issues).toEqual([]);
    expect(parsed.roles.map((r) => [r.rolearn, r.username, r.groups])).toEqual([
      [NODE_ROLE, 'system:node:{{EC2PrivateDNSName}}', ['system:bootstrappers', 'system:nodes']],
      [ADMIN_ROLE, 'platform-admin', ['system:masters']],
    ]);
    expect(s.awsAuth.data.managedFields.map((f) => f.manager)).toEqual(['vpcLambda']);
  });

  it('a: the API_AND_CONFIG_MAP variants differ only in the EC2_LINUX entry for the node role', () => {
    const withEntry = load('a-karpenter-shares-role-api-and-config-map-with-entry.json');
    const noEntry = load('a-karpenter-shares-role-api-and-config-map-no-entry.json');
    const entries = (s: ClusterSnapshot) =>
      s.accessEntries.status === 'ok' ? s.accessEntries.data.map((e) => `${e.type}:${e.principalArn}`) : [];
    expect(entries(withEntry).sort()).toEqual([`EC2_LINUX:${NODE_ROLE}`, `STANDARD:${ADMIN_ROLE}`]);
    expect(entries(noEntry)).toEqual([`STANDARD:${ADMIN_ROLE}`]);
    expect({ ...withEntry, accessEntries: noEntry.accessEntries }).toEqual(noEntry);
  });

  it('a: the second node group spare uses the same role', () => {
    const s = load('a-two-nodegroups-share-role.json');
    expect(s.nodegroups.status === 'ok' && s.nodegroups.data.map((n) => [n.name, n.nodeRole])).toEqual([
      ['general', NODE_ROLE],
      ['spare', NODE_ROLE],
    ]);
  });

  it('b: the Fargate pod execution role is missing from a Terraform-owned mapRoles', () => {
    const s = load('b-fargate-entry-removed-by-terraform.json');
    if (s.awsAuth.status !== 'ok' || s.fargateProfiles.status !== 'ok') throw new Error('sources not ok');
    const podRole = s.fargateProfiles.data[0]?.podExecutionRoleArn;
    expect(podRole).toBe('arn:aws:iam::111122223333:role/prod-fargate-pod-execution');
    const mapped = parseAwsAuth(s.awsAuth.data.data).roles.map((r) => r.rolearn);
    expect(mapped).toContain(NODE_ROLE);
    expect(mapped).not.toContain(podRole);
    expect(s.awsAuth.data.managedFields).toEqual([
      { manager: 'Terraform', operation: 'Apply', time: '2026-11-20T08:15:12Z', dataKeys: ['mapRoles'] },
    ]);
  });

  it('c: mapRoles fails to parse as a whole, so no role is mapped', () => {
    const s = load('c-yaml-slip-in-maproles.json');
    if (s.awsAuth.status !== 'ok') throw new Error('aws-auth not ok');
    const parsed = parseAwsAuth(s.awsAuth.data.data);
    expect(parsed.keyStatus.mapRoles).toBe('failed');
    expect(parsed.roles).toEqual([]);
  });

  it('d: the access entry for ci-deployer is older than the IAM role it names', () => {
    const s = load('d-access-entry-older-than-role.json');
    if (s.accessEntries.status !== 'ok' || s.iamRoles.status !== 'ok') throw new Error('sources not ok');
    const ci = 'arn:aws:iam::111122223333:role/ci-deployer';
    const entry = s.accessEntries.data.find((e) => e.principalArn === ci);
    const role = s.iamRoles.data.find((r) => r.arn === ci);
    expect(Date.parse(entry?.createdAt ?? '')).toBeLessThan(Date.parse(role?.createDate ?? ''));
  });

  it('e: of the aws-auth principals only the node role and platform-admin have access entries', () => {
    const s = load('e-switch-to-api-mode.json');
    if (s.awsAuth.status !== 'ok' || s.accessEntries.status !== 'ok') throw new Error('sources not ok');
    const entries = new Set(s.accessEntries.data.map((e) => e.principalArn));
    const withoutEntry = parseAwsAuth(s.awsAuth.data.data)
      .roles.map((r) => r.rolearn)
      .filter((arn) => arn !== undefined && !entries.has(arn));
    expect(withoutEntry).toEqual(['arn:aws:iam::111122223333:role/developers']);
  });

  it('f: self-managed nodes run with role/eks/legacy-node, which aws-auth maps as role/legacy-node', () => {
    const legacy = 'arn:aws:iam::111122223333:role/eks/legacy-node';
    for (const [file, mode] of [
      ['f-path-node-role-config-map.json', 'CONFIG_MAP'],
      ['f-path-node-role-api-and-config-map.json', 'API_AND_CONFIG_MAP'],
    ] as const) {
      const s = load(file);
      expect(s.cluster.authenticationMode).toBe(mode);
      if (s.awsAuth.status !== 'ok' || s.compute.status !== 'ok' || s.iamRoles.status !== 'ok')
        throw new Error('sources not ok');
      expect(s.compute.data.filter((n) => n.kind === 'self-managed').map((n) => n.roleArn)).toEqual([
        legacy,
        legacy,
      ]);
      expect(parseAwsAuth(s.awsAuth.data.data).roles.map((r) => r.rolearn)).toContain(
        'arn:aws:iam::111122223333:role/legacy-node',
      );
      expect(s.iamRoles.data.find((r) => r.arn === legacy)?.path).toBe('/eks/');
      const entries = s.accessEntries.status === 'ok' ? s.accessEntries.data : [];
      expect(entries.some((e) => principalKey(e.principalArn) === principalKey(legacy))).toBe(false);
    }
  });

  it('healthy: API mode without aws-auth, the node role has an EC2_LINUX entry', () => {
    const s = load('healthy-api-mode.json');
    expect(s.cluster.authenticationMode).toBe('API');
    expect(s.awsAuth.status).toBe('absent');
    expect(
      s.accessEntries.status === 'ok' &&
        s.accessEntries.data.some((e) => e.type === 'EC2_LINUX' && e.principalArn === NODE_ROLE),
    ).toBe(true);
  });
});
