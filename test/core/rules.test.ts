import { describe, expect, it } from 'vitest';
import type { AccessEntry, ClusterSnapshot, Finding } from '../../shared/core/model.ts';
import type { Change } from '../../shared/core/predict/change.ts';
import { assessSnapshot, diffSnapshots, whatIf } from '../../shared/core/predict/engine.ts';
import { attributeWrite } from '../../shared/core/rules/index.ts';
import { RULES } from '../../shared/core/rules/registry.ts';
import {
  ACCOUNT,
  ADMIN_ROLE,
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
import { PARITY_CASES, WORKLOAD_IDENTITY_CASES } from '../support/workload-identity-builder.ts';

type Scenario = () => Finding[];
interface RuleCases {
  fires: Scenario;
  silent: Scenario;
}

const assess = (s: ClusterSnapshot) => assessSnapshot(s);
const diff = (b: ClusterSnapshot, a: ClusterSnapshot) => diffSnapshots(b, a);
const predict = (s: ClusterSnapshot, c: Change) => whatIf(s, c).findings;

const withKarpenter = (o: Parameters<typeof buildSnapshot>[0] = {}) =>
  buildSnapshot({ compute: [...managedNodes(2), ...karpenterNodes(3)], ...o });

const DEVELOPERS = `arn:aws:iam::${ACCOUNT}:role/developers`;
const developersMapping = () =>
  `- rolearn: ${DEVELOPERS}\n  username: "developer:{{SessionName}}"\n  groups:\n    - dev-team\n`;
const developersEntry = () =>
  ec2Entry(DEVELOPERS, {
    type: 'STANDARD',
    username: 'developer',
    kubernetesGroups: ['dev-team'],
    accessPolicies: [
      {
        policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy',
        accessScope: { type: 'namespace', namespaces: ['dev'] },
      },
    ],
  });
const INSIGHTS = `arn:aws:iam::${ACCOUNT}:role/cluster-insights`;
const insightsEntry = (over: Partial<AccessEntry> = {}) =>
  ec2Entry(INSIGHTS, { type: 'STANDARD', username: 'eks:cluster-insights', ...over });
/** A cluster in API mode whose aws-auth still maps `developers`, with the given access entries. */
const apiModeWithDevelopers = (entries = [ec2Entry()]) =>
  buildSnapshot({ mode: 'API', mapRoles: nodeMapping() + developersMapping(), entries });

/** Each rule: a situation where it must fire and a near-identical one where it must not. */
const CASES: Record<string, RuleCases> = {
  'nodes/role-unauthorized': {
    fires: () => assess(withKarpenter({ mapRoles: adminMapping() })),
    silent: () => assess(withKarpenter()),
  },
  'fargate/pod-execution-role-unauthorized': {
    fires: () => assess(buildSnapshot({ fargateProfiles: [fargateProfile()] })),
    silent: () =>
      assess(
        buildSnapshot({ fargateProfiles: [fargateProfile()], mapRoles: nodeMapping() + fargateMapping() }),
      ),
  },
  'aws-auth/parse-failure': {
    fires: () => assess(buildSnapshot({ mapRoles: `${nodeMapping()}- rolearn: [unclosed\n` })),
    silent: () => assess(buildSnapshot()),
  },
  'nodegroup/deletion-orphans-role': {
    fires: () => predict(withKarpenter(), { kind: 'delete-nodegroup', nodegroupName: 'general' }),
    silent: () =>
      predict(withKarpenter({ nodegroups: [nodegroup('general'), nodegroup('spare')] }), {
        kind: 'delete-nodegroup',
        nodegroupName: 'general',
      }),
  },
  'access-entry/deletion-unauthorizes': {
    fires: () =>
      predict(buildSnapshot({ mode: 'API', entries: [ec2Entry()] }), {
        kind: 'delete-access-entry',
        principalArn: NODE_ROLE,
      }),
    silent: () =>
      predict(buildSnapshot({ mode: 'API_AND_CONFIG_MAP', entries: [ec2Entry()] }), {
        kind: 'delete-access-entry',
        principalArn: NODE_ROLE,
      }),
  },
  'access-entry/deletion-locks-out': {
    fires: () =>
      predict(buildSnapshot({ mode: 'API', entries: [ec2Entry(), developersEntry()] }), {
        kind: 'delete-access-entry',
        principalArn: DEVELOPERS,
      }),
    // aws-auth still maps the role, and the mode still reads it: nobody is locked out.
    silent: () =>
      predict(
        buildSnapshot({
          mode: 'API_AND_CONFIG_MAP',
          mapRoles: nodeMapping() + developersMapping(),
          entries: [ec2Entry(), developersEntry()],
        }),
        { kind: 'delete-access-entry', principalArn: DEVELOPERS },
      ),
  },
  'access-entry/eks-owned-removed': {
    fires: () =>
      predict(buildSnapshot({ mode: 'API', entries: [ec2Entry(), insightsEntry()] }), {
        kind: 'delete-access-entry',
        principalArn: INSIGHTS,
      }),
    // the same entry with a username a caller may set is nobody's but the customer's
    silent: () =>
      predict(
        buildSnapshot({ mode: 'API', entries: [ec2Entry(), insightsEntry({ username: 'insights' })] }),
        { kind: 'delete-access-entry', principalArn: INSIGHTS },
      ),
  },
  'cluster/auth-mode-drops-principals': {
    fires: () =>
      predict(
        buildSnapshot({
          mode: 'API_AND_CONFIG_MAP',
          mapRoles: nodeMapping() + adminMapping(),
          entries: [ec2Entry()],
        }),
        {
          kind: 'set-auth-mode',
          mode: 'API',
        },
      ),
    silent: () =>
      predict(buildSnapshot({ mode: 'API_AND_CONFIG_MAP', entries: [ec2Entry()] }), {
        kind: 'set-auth-mode',
        mode: 'API',
      }),
  },
  'cluster/api-mode-ignores-aws-auth': {
    fires: () => assess(apiModeWithDevelopers()),
    silent: () =>
      assess(
        apiModeWithDevelopers([
          ec2Entry(),
          ec2Entry(DEVELOPERS, { type: 'STANDARD', kubernetesGroups: ['dev-team'] }),
        ]),
      ),
  },
  'access-entry/stale-principal': {
    fires: () => {
      const s = buildSnapshot({ mode: 'API', entries: [ec2Entry()] });
      s.iamRoles = {
        status: 'ok',
        data: [{ arn: NODE_ROLE, state: 'exists', createDate: '2026-01-01T00:00:00Z' }],
      };
      return assess(s);
    },
    silent: () => {
      const s = buildSnapshot({ mode: 'API', entries: [ec2Entry()] });
      s.iamRoles = {
        status: 'ok',
        data: [{ arn: NODE_ROLE, state: 'exists', createDate: '2024-01-01T00:00:00Z' }],
      };
      return assess(s);
    },
  },
  'fargate/entry-not-in-iac': {
    fires: () =>
      predict(
        buildSnapshot({
          managedFields: [
            {
              manager: 'Terraform',
              operation: 'Update',
              time: '2026-01-01T00:00:00Z',
              dataKeys: ['mapRoles'],
            },
          ],
        }),
        { kind: 'create-fargate-profile', fargateProfileName: 'fp-new', podExecutionRoleArn: FARGATE_ROLE },
      ),
    silent: () =>
      predict(
        buildSnapshot({
          managedFields: [
            {
              manager: 'vpcLambda',
              operation: 'Update',
              time: '2026-01-01T00:00:00Z',
              dataKeys: ['mapRoles'],
            },
          ],
        }),
        { kind: 'create-fargate-profile', fargateProfileName: 'fp-new', podExecutionRoleArn: FARGATE_ROLE },
      ),
  },
  'aws-auth/entry-removed': {
    fires: () => diff(buildSnapshot({ mapRoles: nodeMapping() + adminMapping() }), buildSnapshot()),
    silent: () => diff(buildSnapshot(), buildSnapshot()),
  },
  'aws-auth/role-arn-has-path': {
    fires: () =>
      assess(
        buildSnapshot({ mapRoles: nodeMapping() + adminMapping(`arn:aws:iam::${ACCOUNT}:role/team/admin`) }),
      ),
    silent: () => assess(buildSnapshot({ mapRoles: nodeMapping() + adminMapping() })),
  },
  'aws-auth/node-role-missing-groups': {
    fires: () =>
      assess(
        buildSnapshot({
          mapRoles: `- rolearn: ${NODE_ROLE}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:nodes\n`,
        }),
      ),
    silent: () => assess(buildSnapshot()),
  },
  'aws-auth/group-looks-malformed': {
    fires: () =>
      assess(
        buildSnapshot({
          mapRoles: `${nodeMapping()}- rolearn: ${ADMIN_ROLE}\n  username: admin\n  groups:\n    - system:masters - dev\n`,
        }),
      ),
    silent: () => assess(buildSnapshot({ mapRoles: nodeMapping() + adminMapping() })),
  },
  'cluster-admin/granted': {
    fires: () => diff(buildSnapshot(), buildSnapshot({ mapRoles: nodeMapping() + adminMapping() })),
    silent: () =>
      diff(
        buildSnapshot({ mapRoles: nodeMapping() + adminMapping() }),
        buildSnapshot({ mapRoles: nodeMapping() + adminMapping() }),
      ),
  },
  'aws-auth/shadowed-duplicate': {
    fires: () =>
      assess(
        buildSnapshot({
          mapRoles:
            nodeMapping() + adminMapping() + adminMapping().replace('username: admin', 'username: viewer'),
        }),
      ),
    silent: () => assess(buildSnapshot({ mapRoles: nodeMapping() + adminMapping() })),
  },
  'access-entry/orphaned': {
    fires: () =>
      assess(
        buildSnapshot({
          mode: 'API',
          entries: [ec2Entry(), ec2Entry(`arn:aws:iam::${ACCOUNT}:role/old-node-role`)],
        }),
      ),
    silent: () => assess(buildSnapshot({ mode: 'API', entries: [ec2Entry()] })),
  },
  'cluster/configmap-only-mode': {
    fires: () => assess(buildSnapshot()),
    silent: () => assess(buildSnapshot({ mode: 'API_AND_CONFIG_MAP', entries: [ec2Entry()] })),
  },
  'cluster/mode-switch-node-entries': {
    fires: () => predict(buildSnapshot(), { kind: 'set-auth-mode', mode: 'API_AND_CONFIG_MAP' }),
    silent: () =>
      predict(
        (() => {
          const s = buildSnapshot();
          s.accessEntries = { status: 'ok', data: [ec2Entry()] };
          return s;
        })(),
        { kind: 'set-auth-mode', mode: 'API_AND_CONFIG_MAP' },
      ),
  },
  'cluster/ca-rotation-unmanaged-nodes': {
    fires: () => {
      const s = buildSnapshot({ compute: [...managedNodes(2), ...karpenterNodes(1)] });
      s.certificateAuthorities = {
        status: 'ok',
        data: [
          { id: 'ca-old', signingStatus: 'IN_USE' },
          { id: 'ca-new', signingStatus: 'NOT_USED', distributionStatus: 'COMPLETE' },
        ],
      };
      return assess(s);
    },
    silent: () => {
      const s = buildSnapshot({ compute: managedNodes(2) });
      s.certificateAuthorities = {
        status: 'ok',
        data: [
          { id: 'ca-old', signingStatus: 'IN_USE' },
          { id: 'ca-new', signingStatus: 'NOT_USED', distributionStatus: 'COMPLETE' },
        ],
      };
      return assess(s);
    },
  },
  'monitor/source-unavailable': {
    fires: () => {
      const s = buildSnapshot();
      s.awsAuth = { status: 'error', error: 'kubernetes: 403 Forbidden get configmaps/aws-auth' };
      return assess(s);
    },
    silent: () => assess(buildSnapshot()),
  },
  'monitor/realtime-unavailable': {
    fires: () => {
      const s = buildSnapshot();
      s.cluster.auditLogging = false;
      return assess(s);
    },
    silent: () => {
      const s = buildSnapshot();
      s.cluster.auditLogging = true;
      return assess(s);
    },
  },
  'aws-auth/write-attributed': {
    // Made from the alert records, not by the engine: the alert a poll opened on a write gets the
    // audit log's writer; an alert opened before the write was assessed is not that write's.
    fires: () => attributeWrite([alertOf(removedByPoll(), '2026-03-02T10:15:05.000Z')], ATTRIBUTED),
    silent: () => attributeWrite([alertOf(removedByPoll(), '2026-03-02T10:10:00.000Z')], ATTRIBUTED),
  },
  ...WORKLOAD_IDENTITY_CASES,
  ...PARITY_CASES,
};

function removedByPoll(): Finding {
  const f = diff(buildSnapshot({ mapRoles: nodeMapping() + adminMapping() }), buildSnapshot()).find(
    (x) => x.ruleId === 'aws-auth/entry-removed',
  );
  if (f === undefined) throw new Error('the fixture removes no mapping');
  return { ...f, trigger: 'event:aws-auth-poll' };
}

function alertOf(finding: Finding, firstSeen: string) {
  return {
    fingerprint: finding.fingerprint,
    status: 'open' as const,
    severity: finding.severity,
    firstSeen,
    finding,
  };
}

const ATTRIBUTED = {
  cluster: { accountId: ACCOUNT, region: 'eu-west-1', clusterName: 'prod' },
  resourceVersion: '1234',
  assessedAt: '2026-03-02T10:15:04.000Z',
  actor: { source: 'audit' as const, sessionName: 'jane.doe', roleName: 'Admin' },
};

describe('rule catalog', () => {
  it('has a fire and a silent case for every rule in the registry', () => {
    expect(Object.keys(CASES).sort()).toEqual(RULES.map((r) => r.id).sort());
  });

  it('uses stable, namespaced kebab-case IDs and documents each rule', () => {
    for (const r of RULES) {
      expect(r.id).toMatch(/^[a-z0-9-]+\/[a-z0-9-]+$/);
      expect(r.meaning.length).toBeGreaterThan(40);
      expect(r.fix.length).toBeGreaterThan(20);
    }
  });

  for (const [id, cases] of Object.entries(CASES)) {
    describe(id, () => {
      it('fires on the situation it exists for', () => {
        const hits = cases.fires().filter((f) => f.ruleId === id);
        expect(hits.length).toBeGreaterThan(0);
        for (const f of hits) {
          expect(f.fingerprint).toMatch(/^[0-9a-f]{16}$/);
          expect(f.cluster).toEqual({ accountId: ACCOUNT, region: 'eu-west-1', name: 'prod' });
          expect(f.title.length).toBeGreaterThan(10);
        }
      });
      it('stays silent on the near-identical healthy situation', () => {
        expect(cases.silent().filter((f) => f.ruleId === id)).toEqual([]);
      });
    });
  }
});

describe('nodes/role-unauthorized', () => {
  it('names every node that loses access, with count and the fix for CONFIG_MAP mode', () => {
    const [f] = assess(withKarpenter({ mapRoles: adminMapping() })).filter(
      (x) => x.ruleId === 'nodes/role-unauthorized',
    );
    expect(f?.severity).toBe('critical');
    expect(f?.blastRadius?.nodeCount).toBe(5);
    expect(f?.blastRadius?.nodegroups).toEqual(['general']);
    expect(f?.remediation?.awsAuthYaml).toContain(`rolearn: ${NODE_ROLE}`);
    expect(f?.remediation?.notes?.join(' ')).toMatch(/access entries need the authentication mode switched/);
  });

  it('treats a mapping without system:nodes as unauthorized (the space-out-of-place slip)', () => {
    const slip = `- rolearn: ${NODE_ROLE}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers - system:nodes\n`;
    const ids = assess(buildSnapshot({ mapRoles: slip })).map((f) => f.ruleId);
    expect(ids).toContain('nodes/role-unauthorized');
    expect(ids).toContain('aws-auth/group-looks-malformed');
  });

  it('does not match an aws-auth rolearn that carries an IAM path', () => {
    const pathed = nodeMapping(`arn:aws:iam::${ACCOUNT}:role/nodes/prod-node-role`);
    const ids = assess(buildSnapshot({ mapRoles: pathed })).map((f) => f.ruleId);
    expect(ids).toContain('nodes/role-unauthorized');
    expect(ids).toContain('aws-auth/role-arn-has-path');
  });

  it('matches role ARNs case-insensitively and a node role given with a path by EKS', () => {
    const s = buildSnapshot({
      mapRoles: nodeMapping(NODE_ROLE.toUpperCase().replace('ARN:AWS:IAM', 'arn:aws:iam')),
    });
    s.nodegroups = {
      status: 'ok',
      data: [nodegroup('general', `arn:aws:iam::${ACCOUNT}:role/eks/prod-node-role`)],
    };
    expect(assess(s).map((f) => f.ruleId)).not.toContain('nodes/role-unauthorized');
  });

  it('lets the access entry win over a broken aws-auth mapping in API_AND_CONFIG_MAP', () => {
    const broken = `- rolearn: ${NODE_ROLE}\n  username: someone\n  groups: []\n`;
    const s = buildSnapshot({ mode: 'API_AND_CONFIG_MAP', mapRoles: broken, entries: [ec2Entry()] });
    expect(assess(s).map((f) => f.ruleId)).not.toContain('nodes/role-unauthorized');
  });

  it('ignores aws-auth entirely in API mode', () => {
    const s = buildSnapshot({ mode: 'API', entries: [] });
    const ids = assess(s).map((f) => f.ruleId);
    expect(ids).toContain('nodes/role-unauthorized');
  });

  it('takes the last duplicate mapping as effective', () => {
    const dead = `- rolearn: ${NODE_ROLE}\n  username: nobody\n  groups: []\n`;
    expect(assess(buildSnapshot({ mapRoles: nodeMapping() + dead })).map((f) => f.ruleId)).toContain(
      'nodes/role-unauthorized',
    );
    expect(assess(buildSnapshot({ mapRoles: dead + nodeMapping() })).map((f) => f.ruleId)).not.toContain(
      'nodes/role-unauthorized',
    );
  });

  it('never works through mapAccounts alone', () => {
    const s = buildSnapshot({ data: { mapAccounts: `- "${ACCOUNT}"\n` } });
    expect(assess(s).map((f) => f.ruleId)).toContain('nodes/role-unauthorized');
  });

  it('treats a deleted aws-auth (absent) in CONFIG_MAP mode as no mappings at all', () => {
    const s = buildSnapshot();
    s.awsAuth = { status: 'absent', reason: 'not found' };
    expect(assess(s).map((f) => f.ruleId)).toContain('nodes/role-unauthorized');
  });

  it('treats an access entry bound to a re-created role as not authorizing', () => {
    const s = buildSnapshot({ mode: 'API', entries: [ec2Entry()] });
    s.iamRoles = {
      status: 'ok',
      data: [{ arn: NODE_ROLE, state: 'exists', createDate: '2026-01-01T00:00:00Z' }],
    };
    expect(assess(s).map((f) => f.ruleId)).toEqual(
      expect.arrayContaining(['nodes/role-unauthorized', 'access-entry/stale-principal']),
    );
  });
});

describe('could not read is not empty', () => {
  it('never reports entry-removed or role-unauthorized when aws-auth failed to read', () => {
    const before = withKarpenter();
    const after = withKarpenter();
    after.awsAuth = { status: 'error', error: 'kubernetes: connect ETIMEDOUT' };
    const ids = [...diff(before, after), ...assess(after)].map((f) => f.ruleId);
    expect(ids).not.toContain('aws-auth/entry-removed');
    expect(ids).not.toContain('nodes/role-unauthorized');
    expect(ids).toContain('monitor/source-unavailable');
  });

  it('never reports orphaned entries when compute could not be read', () => {
    const s = buildSnapshot({
      mode: 'API',
      entries: [ec2Entry(), ec2Entry(`arn:aws:iam::${ACCOUNT}:role/other`)],
    });
    s.compute = { status: 'error', error: 'ec2: throttled' };
    expect(assess(s).map((f) => f.ruleId)).not.toContain('access-entry/orphaned');
  });

  it('never reports unauthorized nodes in API mode when access entries failed to read', () => {
    const s = buildSnapshot({ mode: 'API' });
    s.accessEntries = { status: 'error', error: 'eks: AccessDenied eks:ListAccessEntries' };
    const ids = assess(s).map((f) => f.ruleId);
    expect(ids).not.toContain('nodes/role-unauthorized');
    expect(ids).toContain('monitor/source-unavailable');
  });

  it('never diffs an aws-auth read that failed before', () => {
    const before = buildSnapshot({ mapRoles: nodeMapping() + adminMapping() });
    before.awsAuth = { status: 'error', error: 'x' };
    expect(diff(before, buildSnapshot()).map((f) => f.ruleId)).not.toContain('aws-auth/entry-removed');
  });
});

describe('findings', () => {
  it('keep the same fingerprint across triggers and captures', () => {
    const s = withKarpenter({ mapRoles: adminMapping() });
    const a = assessSnapshot(s, { trigger: 'schedule' }).map((f) => f.fingerprint);
    const t = structuredClone(s);
    t.capturedAt = '2026-11-21T00:00:00Z';
    const b = assessSnapshot(t, { trigger: 'event:DeleteNodegroup' }).map((f) => f.fingerprint);
    expect(b).toEqual(a);
  });

  it('are sorted most severe first', () => {
    const fs = assess(withKarpenter({ mapRoles: adminMapping() }));
    const ranks = fs.map((f) => ['critical', 'high', 'medium', 'low', 'info'].indexOf(f.severity));
    expect(ranks).toEqual([...ranks].sort((x, y) => x - y));
  });
});

describe('fargate/entry-not-in-iac on a snapshot', () => {
  it('fires when a profile was created after the IaC tool last wrote mapRoles and its entry is present', () => {
    const s = buildSnapshot({
      mapRoles: nodeMapping() + fargateMapping(),
      fargateProfiles: [fargateProfile('fp-default', FARGATE_ROLE, { createdAt: '2026-06-01T00:00:00Z' })],
      managedFields: [
        { manager: 'Terraform', operation: 'Update', time: '2026-01-01T00:00:00Z', dataKeys: ['mapRoles'] },
        { manager: 'vpcLambda', operation: 'Update', time: '2026-06-01T00:00:05Z', dataKeys: ['mapRoles'] },
      ],
    });
    const f = assess(s).find((x) => x.ruleId === 'fargate/entry-not-in-iac');
    expect(f?.severity).toBe('high');
    expect(f?.title).toContain('Terraform');
  });
});

describe('fargate/entry-not-in-iac between snapshots', () => {
  it('fires when EKS added a Fargate entry while Terraform owned mapRoles before (ownership moved to EKS)', () => {
    const before = buildSnapshot({
      managedFields: [
        { manager: 'Terraform', operation: 'Apply', time: '2026-01-01T00:00:00Z', dataKeys: ['mapRoles'] },
      ],
    });
    const after = buildSnapshot({
      mapRoles: nodeMapping() + fargateMapping(),
      fargateProfiles: [fargateProfile()],
      managedFields: [
        { manager: 'eks', operation: 'Update', time: '2026-06-01T00:00:00Z', dataKeys: ['mapRoles'] },
      ],
    });
    const f = diffSnapshots(before, after).find((x) => x.ruleId === 'fargate/entry-not-in-iac');
    expect(f?.subject).toBe(FARGATE_ROLE);
    expect(f?.title).toContain('Terraform');
  });

  it('stays silent when EKS itself owned mapRoles before', () => {
    const before = buildSnapshot({
      managedFields: [
        { manager: 'eks', operation: 'Update', time: '2026-01-01T00:00:00Z', dataKeys: ['mapRoles'] },
      ],
    });
    const after = buildSnapshot({
      mapRoles: nodeMapping() + fargateMapping(),
      fargateProfiles: [fargateProfile()],
    });
    expect(diffSnapshots(before, after).map((f) => f.ruleId)).not.toContain('fargate/entry-not-in-iac');
  });
});

describe('cluster/api-mode-ignores-aws-auth', () => {
  const of = (findings: Finding[]) =>
    findings.filter((f) => f.ruleId === 'cluster/api-mode-ignores-aws-auth');

  it('names who lost access and gives the access entry with the username aws-auth had', () => {
    const [f] = of(assess(apiModeWithDevelopers()));
    // Critical for people alone too: the mode cannot be switched back.
    expect(f?.severity).toBe('critical');
    expect(f?.subject).toBe(`arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/prod`);
    expect(f?.title).toBe(
      'prod runs in API mode: 1 principal(s) mapped only in aws-auth have lost access (role developers)',
    );
    expect(f?.remediation?.awsCli).toContain(
      `--principal-arn ${DEVELOPERS} --username 'developer:{{SessionName}}' --kubernetes-groups dev-team`,
    );
    expect(f?.remediation?.terraform).toContain('user_name         = "developer:{{SessionName}}"');
  });

  it('counts the nodes when node roles are among them', () => {
    const [f] = of(assess(apiModeWithDevelopers([])));
    expect(f?.severity).toBe('critical');
    expect(f?.title).toContain('2 principal(s)');
    expect(f?.title).toContain('node/Fargate roles of 2 node(s) among them');
    expect(f?.remediation?.awsCli).toContain(`--principal-arn ${NODE_ROLE} --type EC2_LINUX`);
  });

  it('says nothing while the access entries could not be read (could not read is not empty)', () => {
    const s = apiModeWithDevelopers();
    s.accessEntries = { status: 'error', error: 'eks: AccessDenied ListAccessEntries' };
    expect(of(assess(s))).toEqual([]);
  });

  it('stays silent in API_AND_CONFIG_MAP, where aws-auth still counts', () => {
    const s = apiModeWithDevelopers();
    s.cluster.authenticationMode = 'API_AND_CONFIG_MAP';
    expect(of(assess(s))).toEqual([]);
  });
});
