/**
 * Use case of `watch` (docs/design.md#command-line): follow one cluster for an on-call engineer during a
 * risky change, with the monitor's own evaluation.
 *
 *   capture (as `snapshot` does; exit 2 when the cluster cannot be read) → `ready` with every
 *   state finding → then, until the duration or a signal:
 *     aws-auth: the Kubernetes watch (`AwsAuthWatcher`) → each write through
 *       `assessAwsAuthChange` (the functions' path) against the state in memory → `change`
 *     the EKS side, every interval: DescribeCluster (mode), node groups, Fargate profiles, access
 *       entries → a node group or Fargate profile newly `DELETING` is the prediction its
 *       CloudTrail record makes (`predictEvent`) → `prediction`; each source that changed is
 *       evaluated against the state before it (`evaluateSnapshot`, the worker's) → `change`
 *
 * No DynamoDB here: the state, the claims and the alert records are in memory, and the alert
 * lifecycle is the real one (`deliverAlerts`), so an event lists what the monitor would alert —
 * the findings opened, escalated, confirmed or resolved by it — and not the whole state again.
 * Evaluations run one at a time (the aws-auth watch and the poll share the state).
 *
 * Remediation (`--remediate dry-run|on`) is the `remediate` port's; without it the watch says
 * once that it is not available and reports no action — it never pretends to act.
 */
import type { AlertRecord, PendingNotice } from '../../core/alerts/index.ts';
import type { AccessEntry, ClusterSnapshot, Finding, Nodegroup, Source, Trigger } from '../../core/model.ts';
import { clusterRefOf } from '../../core/model.ts';
import { type Change, dedupeFindings, predictEvent } from '../../core/predict/index.ts';
import {
  type ExitIntent,
  targetLabel,
  unreadableLine,
  type WatchAction,
  type WatchFinding,
  type WatchSource,
} from '../../core/render/index.ts';
import { safeErrorMessage } from '../../errors.ts';
import type {
  AlertStore,
  AwsAuthWatchEvent,
  IdempotencyStore,
  KubeClusterRef,
  NoticeSender,
  SnapshotStore,
} from '../../ports.ts';
import { type AssessAwsAuthChangeDeps, assessAwsAuthChange } from '../assess-aws-auth-change.ts';
import { captureSnapshot } from '../capture-snapshot.ts';
import { deliverAlerts } from '../deliver-alerts.ts';
import { CommandInputError } from '../errors.ts';
import {
  awaitRead,
  kubeClusterRef,
  readAccessEntries,
  sourceOfLookup,
  sourceOfValue,
} from '../read-sources.ts';
import { evaluateSnapshot } from '../run-snapshot.ts';
import { liveOf, type WatchPorts } from './command-inputs.ts';

export type RemediateMode = 'off' | 'dry-run' | 'on';

export interface WatchCommandInput {
  clusterName: string;
  region: string;
  /** Stop after this long; undefined: until `signal`. */
  durationSeconds: number | undefined;
  /** The EKS side is read this often. */
  intervalSeconds: number;
  remediate: RemediateMode;
  /** SIGINT/SIGTERM: stop. */
  signal: AbortSignal;
}

export interface WatchOutcome {
  /** Changes and predictions reported. */
  changes: number;
  exit: ExitIntent;
}

/** `'a' → 'b'`, one line per changed item of a list source, in the order of the later read. */
function listDiff<T>(
  before: Source<T[]>,
  after: Source<T[]>,
  nameOf: (t: T) => string,
  stateOf: (t: T) => string,
): string[] {
  if (before.status !== 'ok' || after.status !== 'ok') return [];
  const was = new Map(before.data.map((t) => [nameOf(t), t]));
  const now = new Map(after.data.map((t) => [nameOf(t), t]));
  const out: string[] = [];
  for (const [name, t] of now) {
    const old = was.get(name);
    if (old === undefined) out.push(`${name} added (${stateOf(t)})`);
    else if (stateOf(old) !== stateOf(t)) out.push(`${name} ${stateOf(old)} → ${stateOf(t)}`);
  }
  for (const name of was.keys()) if (!now.has(name)) out.push(`${name} gone`);
  return out;
}

const entryState = (e: AccessEntry) =>
  `${e.type} ${e.username ?? ''} [${e.kubernetesGroups.join(',')}] ${e.accessPolicies.map((p) => p.policyArn).join(',')}`;

/** In-memory alert records (one cluster), with the store's optimistic version. */
function memoryAlerts(): AlertStore {
  let records: AlertRecord[] = [];
  let version = 0;
  return {
    async load() {
      return { records: structuredClone(records), version: String(version) };
    },
    async save(_key, next, expected) {
      if (expected !== undefined && expected !== String(version)) throw new Error('stale alert records');
      records = structuredClone([...next]);
      version += 1;
      return String(version);
    },
  };
}

function memoryClaims(): IdempotencyStore {
  const claims = new Map<string, 'IN_PROGRESS' | 'COMPLETED'>();
  return {
    async claim(key) {
      const held = claims.get(key);
      if (held !== undefined) return held === 'COMPLETED' ? 'completed' : 'in-progress';
      claims.set(key, 'IN_PROGRESS');
      return 'claimed';
    },
    async complete(key) {
      claims.set(key, 'COMPLETED');
    },
    async release(key) {
      claims.delete(key);
    },
  };
}

export async function watchCommand(ports: WatchPorts, input: WatchCommandInput): Promise<WatchOutcome> {
  const live = liveOf(ports);
  if (live.awsAuthWatcher === undefined) {
    throw new CommandInputError('watching aws-auth is not available in this build');
  }
  const target = { region: input.region, clusterName: input.clusterName };
  const deps = await live.captureDeps();
  const eks = deps.eks(input.region);
  let first: ClusterSnapshot;
  let ref: KubeClusterRef;
  try {
    first = await captureSnapshot(deps, target);
    ref = kubeClusterRef(await eks.describeCluster(input.clusterName), first);
  } catch (error) {
    throw new CommandInputError(unreadableLine({ ...target, error: safeErrorMessage(error) }), {
      cause: error,
    });
  }
  if (first.awsAuth.status === 'error') {
    throw new CommandInputError(unreadableLine({ ...target, error: `aws-auth: ${first.awsAuth.error}` }), {
      where: targetLabel(target),
    });
  }
  const watcher = await live.awsAuthWatcher();
  const now = () => ports.clock.now().toISOString();
  // Stops both loops: the duration, a signal, or a failure of one of them.
  const halt = new AbortController();
  const stop = AbortSignal.any([
    input.signal,
    halt.signal,
    ...(input.durationSeconds === undefined ? [] : [AbortSignal.timeout(input.durationSeconds * 1000)]),
  ]);

  // The monitor's state, in memory: the last state, the claims, the alert records.
  let current = first;
  const snapshots: SnapshotStore = {
    latest: async () => current,
    put: async (s) => {
      current = s;
    },
  };
  let notices: PendingNotice[] = [];
  const collect: NoticeSender = {
    channel: 'sns',
    async send(batch) {
      notices.push(...batch);
      return { delivered: new Set(batch) };
    },
  };
  const alerts = memoryAlerts();
  const deliver: AssessAwsAuthChangeDeps['deliver'] = (key, findings, scope) =>
    deliverAlerts({ alerts, senders: [collect], clock: ports.clock }, key, findings, scope, {
      sns: { minSeverity: 'info' },
    });
  const takeNotices = (): WatchFinding[] => {
    const out = notices.map((n) => ({ notice: n.kind, finding: n.finding }));
    notices = [];
    return out;
  };

  const remediation = input.remediate === 'off' ? undefined : ports.remediate;
  const mode = input.remediate === 'off' ? undefined : input.remediate;
  const assessDeps: AssessAwsAuthChangeDeps = {
    snapshots,
    deliver,
    clock: ports.clock,
    monitorPrincipalArn: '',
    idempotency: memoryClaims(),
    idempotencyTtlSeconds: 86_400,
    ...(remediation === undefined || mode === undefined
      ? {}
      : {
          afterAssess: async (assessment) => ({
            actions: await remediation({ kind: 'aws-auth', mode, assessment }),
          }),
        }),
  };

  // Evaluations one at a time: the watch and the poll share `current` and the alert records.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn);
    queue = next.catch(() => undefined);
    return next;
  };

  let changes = 0;
  let broken = false;
  const ready = evaluateSnapshot(first, undefined, { trigger: 'manual', monitorPrincipalArn: '' });
  await deliver(first, ready, { kind: 'state' });
  takeNotices();
  ports.emit({
    type: 'ready',
    at: now(),
    cluster: clusterRefOf(first),
    authenticationMode: first.cluster.authenticationMode,
    ...(first.awsAuth.status === 'ok' && first.awsAuth.data.resourceVersion !== undefined
      ? { resourceVersion: first.awsAuth.data.resourceVersion }
      : {}),
    remediate: input.remediate,
    findings: ready,
  });
  if (input.remediate !== 'off' && ports.remediate === undefined) {
    ports.emit({
      type: 'note',
      at: now(),
      text: `--remediate ${input.remediate}: remediation is not available in this build; changes are reported, nothing is acted on`,
    });
  }

  const onAwsAuth = async (event: AwsAuthWatchEvent): Promise<void> => {
    const result = await assessAwsAuthChange(assessDeps, {
      cluster: ref,
      awsAuth: event.awsAuth,
      resourceVersion: event.resourceVersion,
      source: 'cli',
    });
    const actor = result.actor;
    if (result.outcome === 'unreadable') {
      ports.emit({ type: 'unreadable', at: now(), source: 'aws-auth', error: result.error ?? 'unreadable' });
      return;
    }
    if (result.outcome !== 'evaluated') return;
    changes += 1;
    const how = event.via === 'relist' ? ' (found by a re-list after 410 Gone)' : '';
    ports.emit({
      type: 'change',
      at: now(),
      source: 'aws-auth',
      summary: `${event.type === 'DELETED' ? 'aws-auth deleted' : `aws-auth ${event.type === 'ADDED' ? 'created' : 'written'}`} at resourceVersion ${event.resourceVersion}${how}`,
      resourceVersion: event.resourceVersion,
      ...(actor === undefined ? {} : { actor }),
      removed: result.removed.map((e) => e.arn),
      added: result.added.map((e) => e.arn),
      findings: takeNotices(),
      actions: result.actions ?? [],
    });
  };

  const followAwsAuth = async (): Promise<void> => {
    const rv = first.awsAuth.status === 'ok' ? first.awsAuth.data.resourceVersion : undefined;
    let assessing = false;
    try {
      for await (const event of watcher.watch(ref, {
        signal: stop,
        ...(rv === undefined ? { present: false } : { from: rv }),
      })) {
        assessing = true;
        await serial(() => onAwsAuth(event));
        assessing = false;
      }
    } catch (error) {
      // An assessment that failed is the command's failure; a watch that cannot go on is blindness.
      if (assessing) throw error;
      if (stop.aborted) return;
      broken = true;
      ports.emit({ type: 'unreadable', at: now(), source: 'aws-auth', error: safeErrorMessage(error) });
    }
  };

  /** A predicted change: the prediction its CloudTrail record makes, then what a remediation does. */
  const predict = async (source: WatchSource, summary: string, change: Change): Promise<void> => {
    const trigger: Trigger = `event:${change.kind === 'delete-nodegroup' ? 'DeleteNodegroup' : 'DeleteFargateProfile'}`;
    const prediction = predictEvent(current, current, change, { trigger });
    const findings = dedupeFindings([...prediction.findings]);
    const actions: readonly WatchAction[] =
      remediation === undefined || mode === undefined
        ? []
        : await remediation({ kind: 'prediction', mode, cluster: ref, change, snapshot: current, findings });
    await deliver(current, findings, { kind: 'change' });
    changes += 1;
    ports.emit({ type: 'prediction', at: now(), source, summary, findings: takeNotices(), actions });
  };

  /** One changed source of the EKS side: the state with it, evaluated against the state before. */
  const apply = async (source: WatchSource, summary: string, next: ClusterSnapshot): Promise<void> => {
    const findings: Finding[] = evaluateSnapshot(next, current, {
      trigger: 'manual',
      monitorPrincipalArn: '',
    });
    await deliver(next, findings, { kind: 'state' });
    current = next;
    changes += 1;
    ports.emit({ type: 'change', at: now(), source, summary, findings: takeNotices(), actions: [] });
  };

  /** The EKS-side sources not read at the last poll: each is said once per failure streak. */
  const blind = new Set<WatchSource>();
  const readable = (source: WatchSource, read: Source<unknown> | { status: 'error'; error: string }) => {
    if (read.status !== 'error') {
      blind.delete(source);
      return true;
    }
    if (!blind.has(source)) ports.emit({ type: 'unreadable', at: now(), source, error: read.error });
    blind.add(source);
    return false;
  };
  const pollEks = async (): Promise<void> => {
    const [described, nodegroups, fargate] = await Promise.all([
      awaitRead(eks.describeCluster(input.clusterName)),
      awaitRead(eks.nodegroups(input.clusterName)),
      awaitRead(eks.fargateProfiles(input.clusterName)),
    ]);
    const ngs = sourceOfValue(nodegroups);
    const fps = sourceOfValue(fargate);
    readable('nodegroups', ngs);
    readable('fargate-profiles', fps);
    if (!described.ok) {
      readable('auth-mode', { status: 'error', error: safeErrorMessage(described.error) });
      return;
    }
    readable('auth-mode', { status: 'ok', data: undefined });
    const cluster = described.value;
    const entries = sourceOfLookup(await awaitRead(readAccessEntries(eks, cluster)));
    readable('access-entries', entries);

    // Deletions in progress first: what EKS is about to do to aws-auth, before it does.
    if (ngs.status === 'ok' && current.nodegroups.status === 'ok') {
      const was = new Map(current.nodegroups.data.map((n) => [n.name, n]));
      for (const ng of ngs.data) {
        if (ng.status !== 'DELETING' || was.get(ng.name)?.status === 'DELETING') continue;
        await predict('nodegroups', `node group ${ng.name} DELETING`, {
          kind: 'delete-nodegroup',
          nodegroupName: ng.name,
          nodeRole: ng.nodeRole,
        });
      }
    }
    if (fps.status === 'ok' && current.fargateProfiles.status === 'ok') {
      const was = new Map(current.fargateProfiles.data.map((p) => [p.name, p]));
      for (const fp of fps.data) {
        if (fp.status !== 'DELETING' || was.get(fp.name)?.status === 'DELETING') continue;
        await predict('fargate-profiles', `Fargate profile ${fp.name} DELETING`, {
          kind: 'delete-fargate-profile',
          fargateProfileName: fp.name,
          podExecutionRoleArn: fp.podExecutionRoleArn,
        });
      }
    }

    // Then each source that changed, one evaluation each, so that an event names its source.
    if (cluster.authenticationMode !== current.cluster.authenticationMode) {
      await apply('auth-mode', `${current.cluster.authenticationMode} → ${cluster.authenticationMode}`, {
        ...current,
        capturedAt: now(),
        cluster: {
          ...current.cluster,
          status: cluster.status,
          authenticationMode: cluster.authenticationMode,
        },
      });
    }
    const entriesDiff = listDiff(current.accessEntries, entries, (e) => e.principalArn, entryState);
    if (entries.status !== 'error' && JSON.stringify(entries) !== JSON.stringify(current.accessEntries)) {
      await apply('access-entries', entriesDiff.join('; ') || 'access entries changed', {
        ...current,
        capturedAt: now(),
        accessEntries: entries,
      });
    }
    if (ngs.status === 'ok' && JSON.stringify(ngs) !== JSON.stringify(current.nodegroups)) {
      const diff = listDiff(
        current.nodegroups,
        ngs,
        (n: Nodegroup) => n.name,
        (n) => n.status,
      );
      const gone = new Set(
        current.nodegroups.status === 'ok'
          ? current.nodegroups.data.filter((n) => !ngs.data.some((m) => m.name === n.name)).map((n) => n.name)
          : [],
      );
      // The nodes of a node group that is gone are gone too (compute is not read again here).
      const compute: ClusterSnapshot['compute'] =
        current.compute.status === 'ok'
          ? {
              status: 'ok',
              data: current.compute.data.filter((c) => c.nodegroup === undefined || !gone.has(c.nodegroup)),
            }
          : current.compute;
      await apply('nodegroups', diff.join('; ') || 'node groups changed', {
        ...current,
        capturedAt: now(),
        nodegroups: ngs,
        compute,
      });
    }
    if (fps.status === 'ok' && JSON.stringify(fps) !== JSON.stringify(current.fargateProfiles)) {
      const diff = listDiff(
        current.fargateProfiles,
        fps,
        (p) => p.name,
        (p) => p.status,
      );
      await apply('fargate-profiles', diff.join('; ') || 'Fargate profiles changed', {
        ...current,
        capturedAt: now(),
        fargateProfiles: fps,
      });
    }
  };

  const pollLoop = async (): Promise<void> => {
    while (!stop.aborted) {
      await ports.wait(input.intervalSeconds * 1000, stop);
      if (stop.aborted) return;
      await serial(pollEks);
    }
  };

  let failure: unknown;
  const fail = (error: unknown) => {
    failure ??= error;
    halt.abort();
  };
  await Promise.all([followAwsAuth().catch(fail), pollLoop().catch(fail)]);
  await queue;
  const reason = input.signal.aborted ? 'signal' : failure === undefined ? 'duration' : 'error';
  ports.emit({ type: 'end', at: now(), reason, changes });
  if (failure !== undefined) throw failure;
  return {
    changes,
    exit: { severities: [], failOnDefault: 'none', ...(broken ? { incomplete: 'after' as const } : {}) },
  };
}
