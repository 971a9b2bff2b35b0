/**
 * Opt-in prevention against the sandbox, over real HTTP: the EKS and Kubernetes writes, RBAC, 409s
 * and the node readiness simulation (a node whose role loses access goes Ready=Unknown after
 * `notReadyDelayMs` unless access comes back first). onEksEvent's use case runs with the real
 * adapters: EKS SDK client, the node:https aws-auth reader and writer, DynamoDB (dynalite).
 */
import { DeleteNodegroupCommand, EKSClient } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rbacFromManifests, type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createDynamoDbIdempotencyStore } from '../../shared/adapters/dynamodb-idempotency.ts';
import { createDynamoDbRemediationLedger } from '../../shared/adapters/dynamodb-remediation-ledger.ts';
import { createEksClient, createEksReader } from '../../shared/adapters/eks.ts';
import { createEksAccessEntryWriter } from '../../shared/adapters/eks-access-entry-writer.ts';
import { createEksTokenProvider } from '../../shared/adapters/kube-token.ts';
import { createAwsAuthReader, createAwsAuthWriter } from '../../shared/adapters/kubernetes-aws-auth.ts';
import { assessAwsAuthChange } from '../../shared/app/assess-aws-auth-change.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import { type HandleEksEventDeps, handleEksEvent } from '../../shared/app/handle-eks-event.ts';
import { awaitRead } from '../../shared/app/read-sources.ts';
import { createRemediationHook, type RemediateDeps, remediate } from '../../shared/app/remediate.ts';
import type { PendingNotice } from '../../shared/core/alerts/index.ts';
import type { ClusterId, ClusterSnapshot } from '../../shared/core/model.ts';
import { planAwsAuthRemoval } from '../../shared/core/remediation/index.ts';
import type { KubeClusterRef } from '../../shared/ports.ts';
import { createStateTable, startDynalite } from '../support/dynamodb-helpers.ts';
import {
  createFakeAlertStore,
  createFakeSender,
  createFakeSnapshotStore,
  createFakeWorkQueue,
} from '../support/monitor.ts';
import { clientOptions, loadScenario, sandboxDeps } from '../support/sandbox-helpers.ts';

const KEY: ClusterId = { accountId: '111122223333', region: 'eu-west-1', clusterName: 'prod' };
const NODE_ROLE = 'arn:aws:iam::111122223333:role/prod-node-role';
const MONITOR = 'arn:aws:iam::111122223333:role/eks-auth-sentinel';
const SIDE_EFFECT_MS = 1_500;
const NOT_READY_MS = 2_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let db: Awaited<ReturnType<typeof startDynalite>>;
let tables = 0;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db.close();
});

interface World {
  sandbox: Sandbox;
  deps: HandleEksEventDeps;
  prevention: RemediateDeps & { guardIntervalMs: number; guardMaxMs: number };
  slack: ReturnType<typeof createFakeSender>;
  ref: KubeClusterRef;
  stored: ClusterSnapshot;
  close(): Promise<void>;
}

async function world(
  snapshot: ClusterSnapshot,
  mode: 'dry-run' | 'on',
  options: { asOutsider?: boolean } = {},
): Promise<World> {
  const sandbox = await startSandbox({
    clusters: [{ snapshot }],
    sideEffectDelayMs: SIDE_EFFECT_MS,
    notReadyDelayMs: NOT_READY_MS,
  });
  const tableName = `state-${++tables}`;
  await createStateTable(db.dynamodb, tableName);
  const clock = { now: () => new Date() };
  const slack = createFakeSender('slack');
  const alerts = createFakeAlertStore();
  const deliver: HandleEksEventDeps['deliver'] = (key, findings, scope) =>
    deliverAlerts({ alerts, senders: [slack], clock }, key, findings, scope, {
      slack: { minSeverity: 'info' },
    });
  const credentials = options.asOutsider === true ? sandbox.outsiderCredentials : sandbox.credentials;
  const tokens = createEksTokenProvider({ credentials });
  const fast = { baseDelayMs: 10, budgetMs: 3_000, requestTimeoutMs: 3_000 };
  const kube = createAwsAuthReader({ tokens, ...fast });
  const eksClient = createEksClient('eu-west-1', { ...clientOptions(sandbox), credentials });
  const prevention = {
    mode,
    maxActionsPerHour: 10,
    accessEntries: createEksAccessEntryWriter(eksClient),
    awsAuthWriter: createAwsAuthWriter({ tokens, ...fast }),
    awsAuth: kube,
    ledger: createDynamoDbRemediationLedger({ dynamodb: db.dynamodb, tableName, clock }),
    deliver,
    clock,
    guardIntervalMs: 100,
    guardMaxMs: 10_000,
  };
  const snapshots = createFakeSnapshotStore();
  const stored = await captureSnapshot(sandboxDeps(sandbox), KEY);
  await snapshots.put(stored);
  const deps: HandleEksEventDeps = {
    eks: () => createEksReader(createEksClient('eu-west-1', clientOptions(sandbox))),
    kube: createAwsAuthReader({
      tokens: createEksTokenProvider({ credentials: sandbox.credentials }),
      ...fast,
    }),
    snapshots,
    idempotency: createDynamoDbIdempotencyStore({ dynamodb: db.dynamodb, tableName, clock }),
    deliver,
    queue: createFakeWorkQueue(),
    clock,
    monitorPrincipalArn: MONITOR,
    followUpDelaySeconds: 60,
    idempotencyTtlSeconds: 3600,
    kubeRefs: new Map(),
    remediation: prevention,
  };
  const described = await deps.eks('eu-west-1').describeCluster('prod');
  const ref: KubeClusterRef = {
    ...KEY,
    endpoint: described.endpoint ?? '',
    certificateAuthorityData: described.certificateAuthorityData ?? '',
  };
  sandbox.calls.length = 0;
  return { sandbox, deps, prevention, slack, ref, stored, close: () => sandbox.close() };
}

async function deleteNodegroup(w: World): Promise<unknown> {
  const eks = new EKSClient({
    region: 'eu-west-1',
    endpoint: w.sandbox.env.AWS_ENDPOINT_URL_EKS,
    credentials: w.sandbox.credentials,
  });
  await eks.send(new DeleteNodegroupCommand({ clusterName: 'prod', nodegroupName: 'general' }));
  eks.destroy();
  return w.sandbox.cloudTrail.at(-1);
}

const notReady = (s: Sandbox) => s.timeline.filter((t) => /Ready=Unknown/.test(t.what));
const actionNotices = (slack: { delivered: PendingNotice[] }) =>
  slack.delivered.filter((n) => n.finding.ruleId === 'remediation/action');
const writes = (s: Sandbox) =>
  s.calls.filter(
    (c) =>
      (c.service === 'kube' && /^(Create|Replace|Patch|Delete)ConfigMap$/.test(c.operation)) ||
      (c.service === 'eks' && /^(Create|Update|Delete|Associate|Disassociate)/.test(c.operation)),
  );

describe('remediation=on, incident (a): DeleteNodegroup of the last node group whose role Karpenter shares', () => {
  it('API_AND_CONFIG_MAP: the EC2_LINUX entry exists before EKS edits aws-auth; no node goes NotReady', async () => {
    const w = await world(loadScenario('a-karpenter-shares-role-api-and-config-map-no-entry'), 'on');
    try {
      const record = await deleteNodegroup(w);
      const result = await handleEksEvent(w.deps, record);
      expect(result).toMatchObject({
        outcome: 'alerted',
        remediation: { mode: 'on', results: ['create-access-entry done'] },
      });
      const created = w.sandbox.timeline.findIndex((t) =>
        /access entry .*prod-node-role.*\(EC2_LINUX\) created/.test(t.what),
      );
      await sleep(SIDE_EFFECT_MS + NOT_READY_MS + 1_000);
      const edited = w.sandbox.timeline.findIndex((t) => /EKS removed .* aws-auth entr/.test(t.what));
      expect(created).toBeGreaterThanOrEqual(0);
      expect(edited).toBeGreaterThan(created);
      expect(notReady(w.sandbox)).toEqual([]);
      const [action] = actionNotices(w.slack);
      expect(action?.finding.title).toMatch(/^Remediation done: create the EC2_LINUX access entry/);
      expect(action?.finding.remediation?.awsCli).toContain(
        'aws eks create-access-entry --cluster-name prod',
      );
      // in the thread of the finding that caused it: the same subject
      const cause = w.slack.delivered.find((n) => n.finding.ruleId === 'nodegroup/deletion-orphans-role');
      expect(cause?.finding.subject.toLowerCase()).toBe(action?.finding.subject.toLowerCase());
    } finally {
      await w.close();
    }
  });

  it('CONFIG_MAP: aws-auth is guarded and the entries EKS removed come back before any node goes NotReady', async () => {
    const w = await world(loadScenario('a-karpenter-shares-last-nodegroup-role'), 'on');
    try {
      const before = w.sandbox.cluster('prod').awsAuth?.data.mapRoles ?? '';
      const record = await deleteNodegroup(w);
      const result = await handleEksEvent(w.deps, record);
      expect(result).toMatchObject({
        outcome: 'alerted',
        remediation: { results: ['restore-aws-auth-entries done'] },
      });
      await sleep(NOT_READY_MS + 1_000);
      expect(notReady(w.sandbox)).toEqual([]);
      const after = w.sandbox.cluster('prod').awsAuth?.data.mapRoles ?? '';
      const entriesOf = (text: string) => text.split(/\n(?=- )/).filter((e) => e.includes('prod-node-role'));
      expect(entriesOf(after).length).toBe(entriesOf(before).length);
      expect(w.sandbox.calls.filter((c) => c.operation === 'PatchConfigMap')).toHaveLength(1);
      // a redelivery of the record acts no more
      const again = await handleEksEvent(w.deps, structuredClone(record));
      expect(again.outcome).toBe('duplicate');
      expect(w.sandbox.calls.filter((c) => c.operation === 'PatchConfigMap')).toHaveLength(1);
    } finally {
      await w.close();
    }
  });
});

describe('remediation=on, a late CloudTrail record', () => {
  it('CONFIG_MAP: EKS edited aws-auth before the record was handled; the stored aws-auth is "before" and the entries come back', async () => {
    const w = await world(loadScenario('a-karpenter-shares-last-nodegroup-role'), 'on');
    try {
      const record = await deleteNodegroup(w);
      await sleep(SIDE_EFFECT_MS + 200);
      expect(w.sandbox.timeline.some((t) => /EKS removed .* aws-auth entr/.test(t.what))).toBe(true);
      const result = await handleEksEvent(w.deps, record);
      expect(result).toMatchObject({
        outcome: 'alerted',
        remediation: { results: ['restore-aws-auth-entries done'] },
      });
      await sleep(NOT_READY_MS + 500);
      expect(notReady(w.sandbox)).toEqual([]);
    } finally {
      await w.close();
    }
  });
});

describe('remediation=dry-run', () => {
  it('makes no write at all and alerts what it would do, in both modes', async () => {
    for (const scenario of [
      'a-karpenter-shares-role-api-and-config-map-no-entry',
      'a-karpenter-shares-last-nodegroup-role',
    ]) {
      const w = await world(loadScenario(scenario), 'dry-run');
      try {
        const record = await deleteNodegroup(w);
        w.sandbox.calls.length = 0; // the test's own DeleteNodegroup is not the monitor's
        const result = await handleEksEvent(w.deps, record);
        expect(result.outcome).toBe('alerted');
        expect(writes(w.sandbox)).toEqual([]);
        const titles = actionNotices(w.slack).map((n) => n.finding.title);
        expect(titles).toHaveLength(1);
        expect(titles[0]).toMatch(/^Remediation would do \(dry run\)/);
      } finally {
        await w.close();
      }
    }
  });
});

describe('remediation=on, incident (b): Terraform drops the entry EKS added for a Fargate profile', () => {
  it('the aws-auth change assessment restores the exact entry, says Terraform removed it and gives the IaC change; no Fargate node goes NotReady', async () => {
    const seed = loadScenario('b-fargate-entry-removed-by-terraform');
    const fargateRole =
      seed.fargateProfiles.status === 'ok' ? (seed.fargateProfiles.data[0]?.podExecutionRoleArn ?? '') : '';
    const entry = `- rolearn: ${fargateRole}\n  username: system:node:{{SessionName}}\n  groups:\n  - system:bootstrappers\n  - system:nodes\n  - system:node-proxier\n`;
    if (seed.awsAuth.status === 'ok')
      seed.awsAuth.data.data.mapRoles = `${seed.awsAuth.data.data.mapRoles ?? ''}${entry}`;
    const w = await world(seed, 'on');
    try {
      const cluster = w.sandbox.cluster('prod');
      const data = cluster.awsAuth?.data ?? {};
      cluster.putAwsAuth(
        { ...data, mapRoles: (data.mapRoles ?? '').replace(entry, '') },
        { manager: 'Terraform', operation: 'Apply' },
      );
      // the aws-auth change assessment (poll, watch, audit) sees the write; remediation is its hook
      const assess = {
        snapshots: w.deps.snapshots,
        deliver: w.prevention.deliver,
        clock: w.prevention.clock,
        monitorPrincipalArn: MONITOR,
        idempotency: w.deps.idempotency,
        idempotencyTtlSeconds: 3600,
        afterAssess: createRemediationHook(w.prevention),
      };
      const observe = async () =>
        assessAwsAuthChange(assess, {
          cluster: w.ref,
          awsAuth: await awaitRead(w.deps.kube.awsAuth(w.ref)),
          source: 'poll',
        });
      const result = await observe();
      expect(result.outcome).toBe('evaluated');
      expect(result.removed.map((r) => r.arn)).toEqual([fargateRole]);
      expect(result.actions?.map((a) => `${a.kind} ${a.result}`)).toEqual(['restore-aws-auth-entries done']);
      // the restore is a write of its own: seen next, it removes nothing and acts no more
      const next = await observe();
      expect(next.outcome).toBe('evaluated');
      expect(next.removed).toEqual([]);
      expect(next.actions).toBeUndefined();
      await sleep(NOT_READY_MS + 500);
      expect(notReady(w.sandbox)).toEqual([]);
      expect(cluster.awsAuth?.data.mapRoles).toContain(fargateRole);
      const [action] = actionNotices(w.slack);
      expect(action?.finding.detail).toMatch(/Terraform: it will remove them again at its next apply/);
      expect(action?.finding.remediation?.terraform).toContain('aws_eks_access_entry');
    } finally {
      await w.close();
    }
  });
});

describe('remediation races and refusals', () => {
  it('a newer aws-auth edit wins the race (409): re-read, its edit kept, no duplicate', async () => {
    const w = await world(loadScenario('a-karpenter-shares-last-nodegroup-role'), 'on');
    try {
      const cluster = w.sandbox.cluster('prod');
      const original = cluster.awsAuth?.data.mapRoles ?? '';
      const nodeEntries = original.split(/\n(?=- )/).filter((e) => e.includes('prod-node-role'));
      const without = original
        .split(/\n(?=- )/)
        .filter((e) => !e.includes('prod-node-role'))
        .join('\n');
      cluster.putAwsAuth({ mapRoles: without }, { manager: 'kubectl-edit' });
      const seen = await w.deps.kube.awsAuth(w.ref);
      if (!seen.found) throw new Error('aws-auth');
      // a newer edit lands between the read and the write: someone adds a role
      const newer = `${without}${without.endsWith('\n') ? '' : '\n'}- rolearn: arn:aws:iam::111122223333:role/newer\n  username: newer\n  groups:\n  - dev\n`;
      cluster.putAwsAuth({ mapRoles: newer }, { manager: 'kubectl-edit' });
      const t = {
        cluster: KEY,
        ref: w.ref,
        before: w.stored,
        trigger: 'schedule' as const,
        triggerId: `aws-auth@${seen.value.resourceVersion}`,
      };
      const report = await remediate(w.prevention, t, planAwsAuthRemoval(w.stored, seen.value), seen.value);
      expect(report.outcomes.map((o) => o.result)).toEqual(['done']);
      expect(report.outcomes[0]?.detail).toMatch(/after 1 conflict/);
      const patches = w.sandbox.calls.filter((c) => c.operation === 'PatchConfigMap').map((c) => c.status);
      expect(patches).toEqual([409, 200]);
      const now = cluster.awsAuth?.data.mapRoles ?? '';
      expect(now.startsWith(newer)).toBe(true);
      expect(now.split(/\n(?=- )/).filter((e) => e.includes('prod-node-role'))).toHaveLength(
        nodeEntries.length,
      );

      // the race lost to an edit that put the entries back: nothing is written, nothing duplicated
      cluster.putAwsAuth({ mapRoles: without }, { manager: 'kubectl-edit' });
      const seen2 = await w.deps.kube.awsAuth(w.ref);
      if (!seen2.found) throw new Error('aws-auth');
      cluster.putAwsAuth({ mapRoles: original }, { manager: 'kubectl-edit' });
      w.sandbox.calls.length = 0;
      const t2 = { ...t, triggerId: `aws-auth@${seen2.value.resourceVersion}` };
      const report2 = await remediate(
        w.prevention,
        t2,
        planAwsAuthRemoval(w.stored, seen2.value),
        seen2.value,
      );
      expect(report2.outcomes.map((o) => o.result)).toEqual(['already-present']);
      expect(cluster.awsAuth?.data.mapRoles).toBe(original);
      expect(w.sandbox.calls.filter((c) => c.operation === 'PatchConfigMap').map((c) => c.status)).toEqual([
        409,
      ]);
    } finally {
      await w.close();
    }
  });

  it('a denied CreateAccessEntry is an alert naming the IAM permissions, not a crash', async () => {
    const w = await world(loadScenario('a-karpenter-shares-role-api-and-config-map-no-entry'), 'on');
    try {
      w.sandbox.faults.inject({
        service: 'eks',
        operation: 'CreateAccessEntry',
        status: 403,
        code: 'AccessDeniedException',
        message: 'not authorized to perform: eks:CreateAccessEntry',
      });
      const record = await deleteNodegroup(w);
      const result = await handleEksEvent(w.deps, record);
      expect(result).toMatchObject({
        outcome: 'alerted',
        remediation: { results: ['create-access-entry forbidden'] },
      });
      const [action] = actionNotices(w.slack);
      expect(action?.finding.severity).toBe('critical');
      expect(action?.finding.detail).toMatch(/eks:CreateAccessEntry on cluster prod and iam:PassRole on/);
    } finally {
      await w.close();
    }
  });

  it('missing RBAC is an alert naming the verb and resource, not a crash; the opt-in Role grants exactly it', async () => {
    const seed = loadScenario('a-karpenter-shares-last-nodegroup-role');
    // the writer is the outsider, mapped as a reader only
    if (seed.awsAuth.status === 'ok')
      seed.awsAuth.data.data.mapRoles = `${seed.awsAuth.data.data.mapRoles ?? ''}- rolearn: arn:aws:iam::111122223333:role/sandbox-outsider\n  username: sentinel\n  groups:\n  - eks-auth-sentinel:readers\n  - eks-auth-sentinel:remediators\n`;
    const w = await world(seed, 'on', { asOutsider: true });
    try {
      const cluster = w.sandbox.cluster('prod');
      const original = cluster.awsAuth?.data.mapRoles ?? '';
      const without = original
        .split(/\n(?=- )/)
        .filter((e) => !e.includes('prod-node-role'))
        .join('\n');
      cluster.putAwsAuth({ mapRoles: without }, { manager: 'kubectl-edit' });
      const seen = await w.prevention.awsAuth.awsAuth(w.ref);
      if (!seen.found) throw new Error('aws-auth');
      const t = {
        cluster: KEY,
        ref: w.ref,
        before: w.stored,
        trigger: 'schedule' as const,
        triggerId: `aws-auth@${seen.value.resourceVersion}`,
      };
      const report = await remediate(w.prevention, t, planAwsAuthRemoval(w.stored, seen.value), seen.value);
      expect(report.outcomes.map((o) => o.result)).toEqual(['forbidden']);
      expect(report.outcomes[0]?.detail).toMatch(
        /RBAC 'patch' on 'configmaps' \(resourceNames: aws-auth\) in namespace kube-system/,
      );
      const [action] = actionNotices(w.slack);
      expect(action?.finding.severity).toBe('critical');
      expect(action?.finding.title).toMatch(/^Remediation forbidden/);

      // the Role + RoleBinding teams apply when they opt in
      const { readFileSync } = await import('node:fs');
      const yaml = readFileSync(
        new URL('../../infra/kubernetes/remediation-role.yaml', import.meta.url),
        'utf8',
      );
      cluster.rbac.push(...rbacFromManifests(yaml));
      const retry = await remediate(
        w.prevention,
        { ...t, triggerId: `${t.triggerId}-after-rbac` },
        planAwsAuthRemoval(w.stored, seen.value),
        seen.value,
      );
      expect(retry.outcomes.map((o) => o.result)).toEqual(['done']);
    } finally {
      await w.close();
    }
  });
});
