/**
 * assessAwsAuthChange against the sandbox's Kubernetes API (aws-auth read with the event path's
 * node:https reader) and the real DynamoDB claims (dynalite): the stored snapshot is a full
 * capture of the sandbox cluster, the alert lifecycle is the real one over in-memory channels.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createDynamoDbIdempotencyStore } from '../../shared/adapters/dynamodb-idempotency.ts';
import { createEksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createAwsAuthReader } from '../../shared/adapters/kubernetes-aws-auth.ts';
import {
  type AssessAwsAuthChangeDeps,
  type AwsAuthAssessment,
  type AwsAuthChangeSource,
  assessAwsAuthChange,
} from '../../shared/app/assess-aws-auth-change.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import { awaitRead, kubeClusterRef } from '../../shared/app/read-sources.ts';
import type { KubeClusterRef } from '../../shared/ports.ts';
import { createStateTable, startDynalite } from '../support/dynamodb-helpers.ts';
import { createFakeAlertStore, createFakeSender, createFakeSnapshotStore } from '../support/monitor.ts';
import { sandboxDeps } from '../support/sandbox-helpers.ts';
import { ACCOUNT, baseSnapshot, MAP_ROLES, REGION, SOLO_ROLE } from '../support/sandbox-seed.ts';

/** A table per test: every sandbox numbers its resourceVersions alike, and claims outlive a test. */
let tables = 0;
const MONITOR = `arn:aws:iam::${ACCOUNT}:role/eks-auth-sentinel`;
let db: Awaited<ReturnType<typeof startDynalite>>;
let sandbox: Sandbox | undefined;

beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db?.close();
});
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** mapRoles without the solo node role's entry (in CONFIG_MAP mode its nodes' only mapping). */
const WITHOUT_SOLO = MAP_ROLES.split(/\n(?=- )/)
  .filter((entry) => !entry.includes(SOLO_ROLE))
  .join('\n');

async function setUp(
  options: {
    baseline?: boolean;
    mode?: 'CONFIG_MAP' | 'API_AND_CONFIG_MAP';
    freshEks?: boolean;
    /** Changes the world before the baseline capture. */
    seed?: (s: Sandbox) => void;
  } = {},
) {
  const s = await startSandbox({ clusters: [{ snapshot: baseSnapshot(options.mode ?? 'CONFIG_MAP') }] });
  options.seed?.(s);
  sandbox = s;
  tables += 1;
  const table = `sentinel-aws-auth-claims-${tables}`;
  await createStateTable(db.dynamodb, table);
  const capture = sandboxDeps(s);
  const snapshots = createFakeSnapshotStore();
  if (options.baseline !== false) {
    await snapshots.put(await captureSnapshot(capture, { region: REGION, clusterName: 'prod' }));
  }
  const described = await capture.eks(REGION).describeCluster('prod');
  const ref: KubeClusterRef = kubeClusterRef(described, { accountId: ACCOUNT, region: REGION });
  const reader = createAwsAuthReader({
    tokens: createEksTokenProvider({ credentials: s.credentials }),
    maxAttempts: 1,
  });
  const sns = createFakeSender('sns');
  const alerts = createFakeAlertStore();
  const clock = { now: () => new Date() };
  const hooked: AwsAuthAssessment[] = [];
  const deps: AssessAwsAuthChangeDeps = {
    snapshots,
    deliver: (key, findings, scope) =>
      deliverAlerts({ alerts, senders: [sns], clock }, key, findings, scope, {
        sns: { minSeverity: 'low' },
      }),
    clock,
    monitorPrincipalArn: MONITOR,
    idempotency: createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName: table }),
    idempotencyTtlSeconds: 3_600,
    async afterAssess(assessment) {
      hooked.push(assessment);
      return undefined;
    },
    ...(options.freshEks === true ? { eks: capture.eks } : {}),
  };
  const observe = async (source: AwsAuthChangeSource = 'poll') =>
    assessAwsAuthChange(deps, { cluster: ref, awsAuth: await awaitRead(reader.awsAuth(ref)), source });
  const opened = () => sns.delivered.filter((n) => n.kind === 'opened').map((n) => n.finding.ruleId);
  return { s, deps, ref, reader, snapshots, sns, hooked, observe, opened };
}

describe('assessAwsAuthChange', () => {
  it('judges a removal with the access entries as they are now: an EC2_LINUX entry created since the capture keeps the nodes authorized', async () => {
    for (const freshEks of [true, false]) {
      // The baseline: the solo node role is mapped in aws-auth only.
      const t = await setUp({
        mode: 'API_AND_CONFIG_MAP',
        freshEks,
        seed: (s) => {
          const c = s.cluster('prod');
          c.accessEntries = c.accessEntries.filter((e) => e.principalArn !== SOLO_ROLE);
        },
      });
      const cluster = t.s.cluster('prod');
      // What onEksEvent's remediation (or a person) does before EKS edits aws-auth.
      cluster.accessEntries.push({
        principalArn: SOLO_ROLE,
        type: 'EC2_LINUX',
        username: 'system:node:{{EC2PrivateDNSName}}',
        kubernetesGroups: [],
        accessEntryArn: `arn:aws:eks:${REGION}:${ACCOUNT}:access-entry/prod/role/${ACCOUNT}/solo/x`,
        createdAt: new Date().toISOString(),
        modifiedAt: new Date().toISOString(),
        tags: {},
        accessPolicies: [],
      });
      cluster.putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'eks' });
      const result = await t.observe('poll');
      expect(result.outcome).toBe('evaluated');
      expect(result.removed.map((r) => r.arn)).toEqual([SOLO_ROLE]);
      const unauthorized = result.findings.filter(
        (f) => f.ruleId === 'nodes/role-unauthorized' && f.subject === SOLO_ROLE,
      );
      // Stored entries only (no EKS port): the stale state says the nodes lost access.
      expect(unauthorized.length > 0, `freshEks=${freshEks}`).toBe(!freshEks);
      if (freshEks) {
        expect(
          result.after?.accessEntries.status === 'ok' &&
            result.after.accessEntries.data.some((e) => e.principalArn === SOLO_ROLE),
        ).toBe(true);
      }
      await t.s.close();
      sandbox = undefined;
    }
  });

  it('is unchanged while aws-auth keeps the stored resourceVersion, and claims nothing', async () => {
    const t = await setUp();
    const result = await t.observe();
    expect(result.outcome).toBe('unchanged');
    expect(result.previousResourceVersion).toBe(t.s.cluster('prod').awsAuth?.resourceVersion);
    expect(t.sns.delivered).toEqual([]);
    expect(t.hooked).toEqual([]);
  });

  it('reports a removed node-role entry once, with the entry exactly as it was, and stores the new state', async () => {
    const t = await setUp();
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO }, { manager: 'kubectl-edit' });
    const result = await t.observe('watch');
    expect(result.outcome).toBe('evaluated');
    expect(result.resourceVersion).toBe(t.s.cluster('prod').awsAuth?.resourceVersion);
    expect(result.changesKnown).toBe(true);
    expect(result.removed).toEqual([
      {
        dataKey: 'mapRoles',
        arn: SOLO_ROLE,
        role: {
          rolearn: SOLO_ROLE,
          username: 'system:node:{{EC2PrivateDNSName}}',
          groups: ['system:bootstrappers', 'system:nodes'],
        },
      },
    ]);
    expect(result.added).toEqual([]);
    const removedFinding = result.findings.find((f) => f.ruleId === 'aws-auth/entry-removed');
    expect(removedFinding?.subject).toBe(SOLO_ROLE);
    expect(removedFinding?.trigger).toBe('event:aws-auth-watch');
    expect(removedFinding?.actor).toMatchObject({ source: 'managedFields', manager: 'kubectl-edit' });
    // Without an actor from the source, the ConfigMap's last field manager names the writer.
    expect(result.actor).toMatchObject({ source: 'managedFields', manager: 'kubectl-edit' });
    const unauthorized = result.findings.find((f) => f.ruleId === 'nodes/role-unauthorized');
    expect(unauthorized?.actor).toMatchObject({ manager: 'kubectl-edit' });
    expect(t.opened()).toContain('aws-auth/entry-removed');
    expect(result.delivery.sent).toBeGreaterThan(0);
    // The hook saw the same write, before delivery.
    expect(t.hooked).toHaveLength(1);
    expect(t.hooked[0]?.changes?.removed.map((e) => e.arn)).toEqual([SOLO_ROLE]);
    expect(t.hooked[0]?.before.awsAuth).not.toEqual(t.hooked[0]?.after.awsAuth);

    // Stored: the next look is unchanged, and nothing is sent again.
    const sent = t.sns.delivered.length;
    expect((await t.observe()).outcome).toBe('unchanged');
    expect(t.sns.delivered.length).toBe(sent);
  });

  it('alerts a write once when a watcher, a poller and an audit event see it at the same time', async () => {
    const t = await setUp();
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO });
    const read = await awaitRead(t.reader.awsAuth(t.ref));
    const results = await Promise.all(
      (['watch', 'poll', 'audit'] as const).map((source) =>
        assessAwsAuthChange(t.deps, { cluster: t.ref, awsAuth: read, source }),
      ),
    );
    const outcomes = results.map((r) => r.outcome);
    expect(outcomes.filter((o) => o === 'evaluated')).toHaveLength(1);
    // The others found the claim held or done, or (the first already stored) nothing new.
    for (const o of outcomes) expect(['evaluated', 'duplicate', 'unchanged']).toContain(o);
    expect(t.opened().filter((r) => r === 'aws-auth/entry-removed')).toHaveLength(1);
    expect(t.hooked).toHaveLength(1);
  });

  it('resolves what a re-add fixes, as the next scheduled run would', async () => {
    const t = await setUp();
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO });
    await t.observe();
    expect(t.opened()).toContain('nodes/role-unauthorized');
    t.s.cluster('prod').putAwsAuth({ mapRoles: MAP_ROLES });
    const back = await t.observe();
    expect(back.outcome).toBe('evaluated');
    expect(back.added.map((e) => e.arn)).toEqual([SOLO_ROLE]);
    expect(t.sns.delivered.filter((n) => n.kind === 'resolved').map((n) => n.finding.ruleId)).toContain(
      'nodes/role-unauthorized',
    );
  });

  it('reports a deletion as every entry removed, claimed under the deletion resourceVersion the watch gave', async () => {
    const t = await setUp();
    t.s.cluster('prod').deleteAwsAuth();
    const deletedAt = t.s.kube('prod').resourceVersion;
    const read = await awaitRead(t.reader.awsAuth(t.ref));
    expect(read.ok && !read.value.found).toBe(true);
    const observation = {
      cluster: t.ref,
      awsAuth: read,
      resourceVersion: deletedAt,
      source: 'watch' as const,
    };
    const result = await assessAwsAuthChange(t.deps, observation);
    expect(result.outcome).toBe('evaluated');
    expect(result.resourceVersion).toBe(deletedAt);
    expect(result.removed.map((e) => e.arn).sort()).toHaveLength(4);
    expect(result.findings.some((f) => f.title.includes('aws-auth was deleted'))).toBe(true);
    expect((await assessAwsAuthChange(t.deps, observation)).outcome).toBe('unchanged');
  });

  it('says there is no baseline without a stored snapshot, and reports nothing removed', async () => {
    const t = await setUp({ baseline: false });
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO });
    const result = await t.observe();
    expect(result).toMatchObject({ outcome: 'no-baseline', removed: [], findings: [], changesKnown: false });
    expect(t.sns.delivered).toEqual([]);
    expect(t.snapshots.items.size).toBe(0);
  });

  it('is unreadable, naming why, when aws-auth cannot be read — never "everything removed"', async () => {
    const t = await setUp();
    t.s.faults.inject({ service: 'kube', operation: 'GetConfigMap', status: 403 });
    const result = await t.observe();
    expect(result.outcome).toBe('unreadable');
    expect(result.error).toMatch(/forbidden \(403\)/);
    expect(result.removed).toEqual([]);
    expect(t.sns.delivered).toEqual([]);
    expect(t.hooked).toEqual([]);
  });

  it('releases its claim when delivery fails, so the next look alerts', async () => {
    const t = await setUp();
    t.s.cluster('prod').putAwsAuth({ mapRoles: WITHOUT_SOLO });
    const deliver = t.deps.deliver;
    t.deps.deliver = () => Promise.reject(new Error('state table unavailable'));
    await expect(t.observe()).rejects.toThrow('state table unavailable');
    t.deps.deliver = deliver;
    t.hooked.length = 0;
    expect((await t.observe()).outcome).toBe('evaluated');
    expect(t.opened()).toContain('aws-auth/entry-removed');
  });
});
