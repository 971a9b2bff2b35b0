/**
 * Opt-in prevention, planned from data: which writes keep running compute authenticated after a
 * DeleteNodegroup or an aws-auth removal, and which removals are only alerted.
 */
import { describe, expect, it } from 'vitest';
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import type { AwsAuthConfigMap } from '../../shared/core/model.ts';
import {
  actionFinding,
  planAwsAuthRemoval,
  planNodegroupDeletion,
  type RemediationAction,
  restoreMapRoles,
} from '../../shared/core/remediation/index.ts';
import {
  adminMapping,
  buildSnapshot,
  ec2Entry,
  FARGATE_ROLE,
  fargateMapping,
  fargateProfile,
  karpenterNodes,
  managedNodes,
  NODE_ROLE,
  nodegroup,
  nodeMapping,
} from '../support/snapshot-builder.ts';

const withKarpenter = (mode: 'CONFIG_MAP' | 'API_AND_CONFIG_MAP' | 'API', over = {}) =>
  buildSnapshot({ mode, compute: [...managedNodes(2), ...karpenterNodes(3)], ...over });

const awsAuth = (
  mapRoles: string,
  managedFields: AwsAuthConfigMap['managedFields'] = [],
): AwsAuthConfigMap => ({
  data: { mapRoles },
  resourceVersion: '2',
  managedFields,
});

describe('planNodegroupDeletion', () => {
  it('creates the EC2_LINUX access entry in API_AND_CONFIG_MAP when Karpenter nodes share the role', () => {
    const plan = planNodegroupDeletion(withKarpenter('API_AND_CONFIG_MAP'), { nodegroupName: 'general' });
    expect(plan.actions).toHaveLength(1);
    const action = plan.actions[0] as Extract<RemediationAction, { kind: 'create-access-entry' }>;
    expect(action.kind).toBe('create-access-entry');
    expect(action.type).toBe('EC2_LINUX');
    expect(action.principalArn).toBe(NODE_ROLE);
    expect(action.accessPolicies).toEqual([]);
    expect(action.dependants.nodes).toBe(3);
    expect(action.dependants.nodegroups).toEqual([]);
  });

  it('creates EC2_WINDOWS for Windows nodes and EC2 with AmazonEKSAutoNodePolicy for an Auto Mode node class', () => {
    const windows = karpenterNodes(1).map((n) => ({ ...n, os: 'windows' as const }));
    const w = planNodegroupDeletion(
      buildSnapshot({ mode: 'API', compute: [...managedNodes(1), ...windows] }),
      { nodegroupName: 'general' },
    );
    expect(w.actions[0]).toMatchObject({ kind: 'create-access-entry', type: 'EC2_WINDOWS' });
    const auto = buildSnapshot({ mode: 'API_AND_CONFIG_MAP' });
    auto.autoModeNodeClasses = {
      status: 'ok',
      data: [{ name: 'custom', role: 'prod-node-role', roleArn: NODE_ROLE }],
    };
    const a = planNodegroupDeletion(auto, { nodegroupName: 'general' });
    expect(a.actions[0]).toMatchObject({
      kind: 'create-access-entry',
      type: 'EC2',
      accessPolicies: ['arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy'],
    });
  });

  it('does nothing when another managed node group keeps the role, or nothing else uses it', () => {
    const kept = planNodegroupDeletion(
      withKarpenter('API_AND_CONFIG_MAP', { nodegroups: [nodegroup('general'), nodegroup('spare')] }),
      { nodegroupName: 'general' },
    );
    expect(kept.actions).toEqual([]);
    expect(kept.skipped[0]?.reason).toMatch(/node group spare still uses the role/);
    const alone = planNodegroupDeletion(buildSnapshot({ mode: 'API_AND_CONFIG_MAP' }), {
      nodegroupName: 'general',
    });
    expect(alone.actions).toEqual([]);
    expect(alone.skipped[0]?.reason).toMatch(/nothing else runs with the role/);
  });

  it('leaves an existing access entry alone, working or not (its type cannot change)', () => {
    const working = planNodegroupDeletion(withKarpenter('API_AND_CONFIG_MAP', { entries: [ec2Entry()] }), {
      nodegroupName: 'general',
    });
    expect(working.actions).toEqual([]);
    expect(working.skipped[0]?.reason).toMatch(/already authorizes/);
    const standard = planNodegroupDeletion(
      withKarpenter('API_AND_CONFIG_MAP', { entries: [ec2Entry(NODE_ROLE, { type: 'STANDARD' })] }),
      { nodegroupName: 'general' },
    );
    expect(standard.actions).toEqual([]);
    expect(standard.skipped[0]?.reason).toMatch(/type cannot change/);
  });

  it('in CONFIG_MAP guards aws-auth instead of writing before EKS does', () => {
    const plan = planNodegroupDeletion(withKarpenter('CONFIG_MAP'), { nodegroupName: 'general' });
    expect(plan.actions).toEqual([]);
    expect(plan.guards).toEqual([{ principalArn: NODE_ROLE, excludingNodegroup: 'general' }]);
  });
});

describe('beforeNodegroupDeletion', () => {
  it('takes the stored aws-auth only when EKS already removed the node role from the fresh read', async () => {
    const { beforeNodegroupDeletion } = await import('../../shared/core/remediation/index.ts');
    const stored = withKarpenter('CONFIG_MAP', { mapRoles: `${adminMapping()}${nodeMapping()}` });
    const late = withKarpenter('CONFIG_MAP', { mapRoles: adminMapping() });
    const change = { nodegroupName: 'general' };
    expect(beforeNodegroupDeletion(late, stored, change).awsAuth).toEqual(stored.awsAuth);
    expect(beforeNodegroupDeletion(stored, stored, change)).toBe(stored);
    expect(beforeNodegroupDeletion(late, undefined, change)).toBe(late);
    // the plan from that state guards the role
    expect(planNodegroupDeletion(beforeNodegroupDeletion(late, stored, change), change).guards).toHaveLength(
      1,
    );
  });
});

describe('planAwsAuthRemoval', () => {
  const before = withKarpenter('CONFIG_MAP', {
    mapRoles: `${adminMapping()}${nodeMapping()}${nodeMapping()}`,
  });

  it('restores exactly the removed entries of a role that running nodes depend on', () => {
    const plan = planAwsAuthRemoval(before, awsAuth(adminMapping()));
    expect(plan.actions).toHaveLength(1);
    const action = plan.actions[0] as Extract<RemediationAction, { kind: 'restore-aws-auth-entries' }>;
    const parsedBefore = parseAwsAuth({ mapRoles: `${adminMapping()}${nodeMapping()}${nodeMapping()}` });
    expect(action.entries).toEqual(parsedBefore.roles.slice(1).map(({ location: _l, ...m }) => m));
    expect(action.dependants.nodes).toBe(5);
  });

  it('only alerts the removal of a role nothing runs with', () => {
    const plan = planAwsAuthRemoval(before, awsAuth(`${nodeMapping()}`));
    expect(plan.actions).toEqual([]);
    expect(plan.skipped).toEqual([
      expect.objectContaining({
        principalArn: expect.stringContaining('platform-admin'),
        reason: expect.stringMatching(/only alerted/),
      }),
    ]);
  });

  it('does nothing when the role is still mapped (an edit is a newer decision), in API mode, or when an access entry covers it', () => {
    const edited = nodeMapping().replace('system:nodes', 'system:nodez');
    expect(planAwsAuthRemoval(before, awsAuth(`${adminMapping()}${edited}`)).actions).toEqual([]);
    expect(planAwsAuthRemoval(withKarpenter('API'), awsAuth('')).actions).toEqual([]);
    const covered = withKarpenter('API_AND_CONFIG_MAP', { entries: [ec2Entry()] });
    const plan = planAwsAuthRemoval(covered, awsAuth(''));
    expect(plan.actions).toEqual([]);
    expect(plan.skipped[0]?.reason).toMatch(/still authorized/);
  });

  it('restores a Fargate pod execution role that Terraform dropped, naming the tool and the IaC change that keeps it', () => {
    const fargate = buildSnapshot({
      mapRoles: `${nodeMapping()}${fargateMapping()}`,
      fargateProfiles: [fargateProfile()],
      managedFields: [
        { manager: 'Terraform', operation: 'Update', time: '2026-11-20T09:00:00Z', dataKeys: ['mapRoles'] },
      ],
    });
    const plan = planAwsAuthRemoval(fargate, awsAuth(nodeMapping()));
    expect(plan.actions).toHaveLength(1);
    const action = plan.actions[0] as RemediationAction;
    expect(action).toMatchObject({ kind: 'restore-aws-auth-entries', principalArn: FARGATE_ROLE });
    const finding = actionFinding(
      fargate,
      { action, result: 'done', detail: 'patched', dryRun: false },
      {
        trigger: 'schedule',
        triggerId: 'rv:2',
      },
    );
    expect(finding.detail).toContain('Terraform');
    expect(finding.remediation?.summary).toMatch(/^Terraform owned mapRoles.*next apply/);
    expect(finding.remediation?.terraform).toContain('aws_eks_access_entry');
  });

  it("names no IaC owner for a one-off edit (kubectl edit) or the monitor's own restore", () => {
    for (const manager of ['kubectl-edit', 'eks-auth-sentinel', 'eks']) {
      const s = withKarpenter('CONFIG_MAP', {
        mapRoles: `${adminMapping()}${nodeMapping()}`,
        managedFields: [{ manager, operation: 'Update', dataKeys: ['mapRoles'] }],
      });
      const [action] = planAwsAuthRemoval(s, awsAuth(adminMapping())).actions;
      expect(action, manager).toBeDefined();
      expect(action, manager).not.toHaveProperty('iacOwner');
    }
  });

  it("with a guard, looks only at the guarded role and not at the deleted node group's own nodes", () => {
    const plan = planAwsAuthRemoval(before, awsAuth(''), {
      onlyRoles: [NODE_ROLE],
      excludingNodegroup: 'general',
    });
    expect(plan.actions.map((a) => a.principalArn)).toEqual([NODE_ROLE]);
    expect(plan.actions[0]?.dependants.nodes).toBe(3);
  });
});

describe('restoreMapRoles', () => {
  it('appends to the text as it stands, every other byte kept', () => {
    const current = `# kept comment\n${adminMapping()}`;
    const entries = parseAwsAuth({ mapRoles: nodeMapping() }).roles.map(({ location: _l, ...m }) => m);
    const out = restoreMapRoles({ mapRoles: current }, entries);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.mapRoles.startsWith(current)).toBe(true);
    expect(out.added).toHaveLength(1);
    expect(restoreMapRoles({ mapRoles: out.mapRoles }, entries)).toMatchObject({
      ok: true,
      added: [],
      mapRoles: out.mapRoles,
    });
  });

  it('refuses when mapRoles does not parse (a rewrite would change entries it cannot see)', () => {
    const entries = parseAwsAuth({ mapRoles: nodeMapping() }).roles.map(({ location: _l, ...m }) => m);
    const out = restoreMapRoles({ mapRoles: '- rolearn: [unclosed\n' }, entries);
    expect(out.ok).toBe(false);
  });

  it('re-encodes a flow-style list that cannot take an append, keeping its entries', () => {
    const entries = parseAwsAuth({ mapRoles: nodeMapping() }).roles.map(({ location: _l, ...m }) => m);
    const flow =
      '[{"rolearn": "arn:aws:iam::111122223333:role/platform-admin", "username": "admin", "groups": ["system:masters"]}]';
    const out = restoreMapRoles({ mapRoles: flow }, entries);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(parseAwsAuth({ mapRoles: out.mapRoles }).roles.map((r) => r.rolearn)).toEqual([
      'arn:aws:iam::111122223333:role/platform-admin',
      NODE_ROLE,
    ]);
  });
});

describe('actionFinding', () => {
  it('quotes the call for the shell whatever the entries hold, and says dry run', () => {
    const hostile = `- rolearn: ${NODE_ROLE}\n  username: "x'; rm -rf / #"\n  groups:\n    - system:nodes\n`;
    const s = withKarpenter('CONFIG_MAP', { mapRoles: hostile });
    const plan = planAwsAuthRemoval(s, awsAuth(''));
    const action = plan.actions[0] as RemediationAction;
    const out = restoreMapRoles(
      { mapRoles: '' },
      (action as Extract<RemediationAction, { kind: 'restore-aws-auth-entries' }>).entries,
    );
    expect(out.ok).toBe(true);
    const f = actionFinding(
      s,
      {
        action,
        result: 'would-do',
        detail: 'dry run: no write',
        dryRun: true,
        call: {
          service: 'kubernetes',
          method: 'PATCH',
          path: '/api/v1/namespaces/kube-system/configmaps/aws-auth',
          contentType: 'application/merge-patch+json',
          body: { metadata: { resourceVersion: '2' }, data: { mapRoles: out.ok ? out.mapRoles : '' } },
        },
      },
      { trigger: 'event:DeleteNodegroup', triggerId: 'e1' },
    );
    expect(f.title).toMatch(/^Remediation would do \(dry run\)/);
    expect(f.subject).toBe(NODE_ROLE);
    expect(f.remediation?.awsCli).toContain('kubectl patch configmap/aws-auth -n kube-system --type merge');
    // the username's quote is inside a single-quoted shell word: closed and escaped, never bare
    expect(f.remediation?.awsCli).not.toContain("x'; rm");
    expect(f.evidence).toMatchObject({ basis: 'transition', result: 'would-do', dryRun: true });
  });
});

describe('the alert of an action', () => {
  it('joins the Slack thread of the finding that caused it (same subject)', async () => {
    const { threadOfRecord } = await import('../../shared/core/alerts/index.ts');
    const s = withKarpenter('API_AND_CONFIG_MAP');
    const action = planNodegroupDeletion(s, { nodegroupName: 'general' }).actions[0] as RemediationAction;
    const f = actionFinding(
      s,
      { action, result: 'done', detail: 'created', dryRun: false },
      {
        trigger: 'event:DeleteNodegroup',
        triggerId: 'e1',
      },
    );
    const record = (finding: typeof f, thread?: { channel: string; ts: string }) => ({
      fingerprint: finding.fingerprint,
      cluster: finding.cluster,
      ruleId: finding.ruleId,
      origin: 'change' as const,
      status: 'open' as const,
      severity: finding.severity,
      finding,
      firstSeen: '2026-12-02T10:00:00Z',
      lastSeen: '2026-12-02T10:00:00Z',
      pending: {},
      ...(thread === undefined ? {} : { slackThread: thread }),
    });
    const cause = record(
      { ...f, ruleId: 'nodegroup/deletion-orphans-role', fingerprint: 'cause' },
      { channel: 'C1', ts: '1.2' },
    );
    const mine = record(f);
    expect(threadOfRecord(mine, [cause, mine])).toEqual({ channel: 'C1', ts: '1.2' });
  });
});
