import { describe, expect, it } from 'vitest';
import { refusedEntryArn, roleArnIndex } from '../../shared/core/access/role-arn.ts';
import type { ClusterSnapshot, IamRole } from '../../shared/core/model.ts';
import { renderShellScript } from '../../shared/core/quote/shell.ts';
import { ACCOUNT, buildSnapshot, ec2Entry, nodegroup } from '../support/snapshot-builder.ts';

const role = (resource: string) => `arn:aws:iam::${ACCOUNT}:role/${resource}`;
const LEGACY = role('eks/legacy-node');
const PATHLESS = role('legacy-node');

/** A cluster whose self-managed node runs with `roleArn` (as its instance profile names it). */
function selfManaged(roleArn: string | undefined, iamRoles: IamRole[] = []): ClusterSnapshot {
  const s = buildSnapshot({
    compute: [{ kind: 'self-managed', id: 'i-0b1c2d3e4f5a60718', ...(roleArn ? { roleArn } : {}) }],
  });
  s.iamRoles = { status: 'ok', data: iamRoles };
  return s;
}

describe('roleArnIndex: the real ARN of a role, IAM path included', () => {
  it("takes IAM's path over every other source", () => {
    const s = selfManaged(role('old/legacy-node'), [
      { arn: role('new/legacy-node'), state: 'exists', path: '/new/' },
    ]);
    expect(roleArnIndex(s).entryArn(PATHLESS)).toEqual({
      known: true,
      arn: role('new/legacy-node'),
      source: 'IAM',
    });
  });

  it('does not trust an IAM entry whose ARN and path disagree (no capture writes one)', () => {
    const s = selfManaged(undefined, [{ arn: PATHLESS, state: 'exists', path: '/eks/' }]);
    expect(roleArnIndex(s).entryArn(PATHLESS)).toMatchObject({ known: false });
    const t = selfManaged(undefined, [{ arn: LEGACY, state: 'exists', path: '/' }]);
    expect(roleArnIndex(t).entryArn(PATHLESS)).toMatchObject({ known: true, arn: LEGACY });
  });

  it('reads the path from the instance profile when IAM roles were read before paths were recorded', () => {
    // what an older capture holds: both spellings, the path-less one last
    const s = selfManaged(LEGACY, [
      { arn: LEGACY, state: 'exists' },
      { arn: PATHLESS, state: 'exists' },
    ]);
    expect(roleArnIndex(s).entryArn(PATHLESS)).toEqual({
      known: true,
      arn: LEGACY,
      source: 'instance profile',
    });
  });

  it('knows a role without a path from a source that reports the role as AWS holds it', () => {
    const s = buildSnapshot({ mode: 'API_AND_CONFIG_MAP', entries: [ec2Entry(role('ci'))], iamRoles: [] });
    expect(roleArnIndex(s).entryArn(role('ci'))).toEqual({
      known: true,
      arn: role('ci'),
      source: 'access entry',
    });
    const ng = buildSnapshot({ nodegroups: [nodegroup('general', role('team/ng-role'))], iamRoles: [] });
    expect(roleArnIndex(ng).entryArn(role('ng-role'))).toEqual({
      known: true,
      arn: role('team/ng-role'),
      source: 'node group',
    });
  });

  it('does not know the path of a role only aws-auth names, and gives the get-role that tells', () => {
    const answer = roleArnIndex(selfManaged(undefined)).entryArn(PATHLESS);
    expect(answer).toMatchObject({ known: false, roleName: 'legacy-node' });
    if (answer.known) throw new Error('known');
    expect(answer.why).toBe('no source of the snapshot names the role with its ARN');
    expect(renderShellScript([answer.lookup])).toEqual({
      ok: true,
      text: 'aws iam get-role --role-name legacy-node --region eu-west-1 --query Role.Arn --output text',
    });
  });

  it('does not take a path-less IAM entry without a recorded path, nor a Karpenter role name, as the path', () => {
    const old = selfManaged(undefined, [{ arn: PATHLESS, state: 'exists' }]);
    expect(roleArnIndex(old).entryArn(PATHLESS)).toMatchObject({
      known: false,
      why: expect.stringContaining('does not record its path'),
    });
    const karpenter = buildSnapshot({
      compute: [{ kind: 'karpenter', id: 'ip-10-0-1-1', nodeClass: 'default', roleArn: PATHLESS }],
      iamRoles: [],
    });
    karpenter.karpenterNodeClasses = {
      status: 'ok',
      data: [{ name: 'default', role: 'legacy-node', roleArn: PATHLESS }],
    };
    expect(roleArnIndex(karpenter).entryArn(PATHLESS)).toMatchObject({ known: false });
    // resolved through its instance profile, the node class names the role as IAM has it
    karpenter.karpenterNodeClasses.data = [{ name: 'default', instanceProfile: 'legacy', roleArn: LEGACY }];
    karpenter.compute = { status: 'ok', data: [] };
    expect(roleArnIndex(karpenter).entryArn(PATHLESS)).toMatchObject({ known: true, arn: LEGACY });
  });

  it('says why for unreadable IAM roles, deleted roles and roles of other accounts', () => {
    const s = selfManaged(undefined);
    s.iamRoles = { status: 'error', error: 'AccessDenied' };
    expect(roleArnIndex(s).entryArn(PATHLESS)).toMatchObject({ why: 'the IAM roles could not be read' });
    const deleted = selfManaged(undefined, [{ arn: PATHLESS, state: 'missing' }]);
    expect(roleArnIndex(deleted).entryArn(PATHLESS)).toMatchObject({
      why: expect.stringContaining('no role'),
    });
    expect(roleArnIndex(s).entryArn('arn:aws:iam::444455556666:role/x')).toMatchObject({
      known: false,
      why: expect.stringContaining('account 444455556666'),
    });
  });

  it('keeps a user ARN as written, and a path aws-auth itself wrote', () => {
    const index = roleArnIndex(selfManaged(undefined));
    const user = `arn:aws:iam::${ACCOUNT}:user/ops/alice`;
    expect(index.entryArn(user)).toEqual({ known: true, arn: user, source: 'as written' });
    expect(index.entryArn(role('team/x'))).toEqual({ known: true, arn: role('team/x'), source: 'aws-auth' });
  });
});

describe('refusedEntryArn: a CreateAccessEntry EKS refuses', () => {
  const index = roleArnIndex(selfManaged(LEGACY, [{ arn: LEGACY, state: 'exists', path: '/eks/' }]));

  it('names the real ARN for the path-less form or another path, and nothing for the real ARN', () => {
    expect(refusedEntryArn(index, PATHLESS)).toBe(LEGACY);
    expect(refusedEntryArn(index, role('other/legacy-node'))).toBe(LEGACY);
    expect(refusedEntryArn(index, LEGACY)).toBeUndefined();
    // IAM role names are case-insensitive, paths are not
    expect(refusedEntryArn(index, role('eks/Legacy-Node'))).toBeUndefined();
    expect(refusedEntryArn(index, role('EKS/legacy-node'))).toBe(LEGACY);
  });

  it('refuses nothing it cannot tell', () => {
    expect(refusedEntryArn(index, role('unknown'))).toBeUndefined();
    expect(refusedEntryArn(index, `arn:aws:iam::${ACCOUNT}:user/alice`)).toBeUndefined();
  });
});
