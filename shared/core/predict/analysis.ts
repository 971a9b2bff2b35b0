/**
 * One snapshot, analysed once: parsed aws-auth, the access index, the consumer inventory and the
 * IAM roles. Every rule reads from this; nothing here is recomputed per rule.
 */

import { buildConsumers, type ConsumerInventory } from '../access/consumers.ts';
import { principalKey, withPrincipalKeyMemo } from '../access/principal.ts';
import {
  type AccessIndex,
  type AwsAuthIndex,
  assembleAccessIndex,
  indexAccessEntries,
  indexAwsAuth,
  type Resolution,
  resolveAccess,
} from '../access/resolve.ts';
import { type ParsedAwsAuth, parseAwsAuthShared, withAwsAuthMemo } from '../aws-auth/index.ts';
import {
  type AccessEntry,
  type AuthenticationMode,
  type ClusterRef,
  type ClusterSnapshot,
  clusterRefOf,
  type IamRole,
} from '../model.ts';

export interface DeadEntry {
  entry: AccessEntry;
  reason: 'role-missing' | 'role-recreated';
  role: IamRole;
}

export interface Analysis {
  snapshot: ClusterSnapshot;
  cluster: ClusterRef;
  mode: AuthenticationMode;
  /** Parsed aws-auth when it was read (`ok`); undefined when absent or unreadable. */
  awsAuth?: ParsedAwsAuth;
  accessEntries?: AccessEntry[];
  index: AccessIndex;
  consumers: ConsumerInventory;
  /** IAM roles by principalKey, when `iamRoles` was read. */
  roles?: Map<string, IamRole>;
  /** Access entries bound to a role that no longer exists or was re-created after the entry. */
  deadEntries: Map<string, DeadEntry>;
  resolve(arn: string): Resolution;
}

function findDeadEntries(entries: AccessEntry[] | undefined, roles: Map<string, IamRole> | undefined) {
  const dead = new Map<string, DeadEntry>();
  if (!entries || !roles || roles.size === 0) return dead;
  for (const entry of entries) {
    const key = principalKey(entry.principalArn);
    const role = roles.get(key);
    if (!role) continue;
    if (role.state === 'missing') {
      dead.set(key, { entry, reason: 'role-missing', role });
      continue;
    }
    const created = entry.createdAt ? Date.parse(entry.createdAt) : Number.NaN;
    const roleCreated = role.createDate ? Date.parse(role.createDate) : Number.NaN;
    if (Number.isFinite(created) && Number.isFinite(roleCreated) && roleCreated > created) {
      dead.set(key, { entry, reason: 'role-recreated', role });
    }
  }
  return dead;
}

/** Analyses made inside `withEvaluationMemo`, by snapshot object (states are not edited once made). */
let analysed: WeakMap<ClusterSnapshot, Analysis> | undefined;

/**
 * Consumer inventories made inside `withEvaluationMemo`, by the four lists they are built from: a
 * plan's states share them (a simulated change replaces only the lists it changes), so a state
 * whose compute did not change does not re-key its 5,000 nodes.
 */
interface ConsumerSource {
  nodegroups: ClusterSnapshot['nodegroups'];
  fargateProfiles: ClusterSnapshot['fargateProfiles'];
  karpenterNodeClasses: ClusterSnapshot['karpenterNodeClasses'] | undefined;
  autoModeNodeClasses: ClusterSnapshot['autoModeNodeClasses'] | undefined;
  compute: ClusterSnapshot['compute'];
}
let inventories: Array<{ from: ConsumerSource; consumers: ConsumerInventory }> | undefined;

function consumersOf(snapshot: ClusterSnapshot): ConsumerInventory {
  if (inventories === undefined) return buildConsumers(snapshot);
  const known = inventories.find(
    ({ from }) =>
      from.nodegroups === snapshot.nodegroups &&
      from.fargateProfiles === snapshot.fargateProfiles &&
      from.karpenterNodeClasses === snapshot.karpenterNodeClasses &&
      from.autoModeNodeClasses === snapshot.autoModeNodeClasses &&
      from.compute === snapshot.compute,
  );
  if (known !== undefined) return known.consumers;
  const consumers = buildConsumers(snapshot);
  const { nodegroups, fargateProfiles, karpenterNodeClasses, autoModeNodeClasses, compute } = snapshot;
  inventories.unshift({
    from: { nodegroups, fargateProfiles, karpenterNodeClasses, autoModeNodeClasses, compute },
    consumers,
  });
  if (inventories.length > 4) inventories.pop();
  return consumers;
}

/**
 * Runs one evaluation (a plan's steps) with its analyses, aws-auth parses, consumer inventories
 * and principal keys remembered: the state before is analysed once, a state an unchanged aws-auth
 * passes through is not re-parsed. The snapshots handed to it and made inside it must not be
 * edited in place while it runs.
 */
export function withEvaluationMemo<T>(fn: () => T): T {
  if (analysed !== undefined) return fn();
  analysed = new WeakMap();
  inventories = [];
  indexHalves = { awsAuth: new WeakMap(), entries: new WeakMap() };
  try {
    return withPrincipalKeyMemo(() => withAwsAuthMemo(fn));
  } finally {
    analysed = undefined;
    inventories = undefined;
    indexHalves = undefined;
  }
}

/** The two halves of the access index made inside `withEvaluationMemo`, by parse and by entry list. */
let indexHalves:
  | {
      awsAuth: WeakMap<ParsedAwsAuth, AwsAuthIndex>;
      entries: WeakMap<readonly AccessEntry[], ReadonlyMap<string, AccessEntry>>;
    }
  | undefined;

function remembered<K extends object, V>(
  memo: WeakMap<K, V> | undefined,
  key: K | undefined,
  make: () => V,
): V {
  if (memo === undefined || key === undefined) return make();
  const known = memo.get(key);
  if (known !== undefined) return known;
  const made = make();
  memo.set(key, made);
  return made;
}

/**
 * The analysis of `snapshot`. `awsAuth`, when given, is the parse of its aws-auth (an ok source)
 * the caller already has — the state before a change, or what a simulation wrote
 * (`Simulation.awsAuth`) — so that the text is not parsed again.
 */
export function analyzeSnapshot(snapshot: ClusterSnapshot, awsAuth?: ParsedAwsAuth): Analysis {
  const known = analysed?.get(snapshot);
  if (known !== undefined) return known;
  const a = analyze(snapshot, awsAuth);
  analysed?.set(snapshot, a);
  return a;
}

/**
 * The analysis of `snapshot` with `awsAuth` standing for the parse of its aws-auth (an ok source),
 * for a state whose aws-auth text is not written yet (simulate.ts `draftMappings`: mappings
 * without lines). Not remembered.
 */
export function analyzeWithAwsAuth(snapshot: ClusterSnapshot, awsAuth: ParsedAwsAuth): Analysis {
  return analyze(snapshot, awsAuth);
}

function analyze(snapshot: ClusterSnapshot, parsed?: ParsedAwsAuth): Analysis {
  const mode = snapshot.cluster.authenticationMode;
  const awsAuth =
    snapshot.awsAuth.status === 'ok' ? (parsed ?? parseAwsAuthShared(snapshot.awsAuth.data.data)) : undefined;
  const accessEntries = snapshot.accessEntries.status === 'ok' ? snapshot.accessEntries.data : undefined;
  const roles =
    snapshot.iamRoles.status === 'ok'
      ? new Map(snapshot.iamRoles.data.map((r) => [principalKey(r.arn), r] as const))
      : undefined;
  const deadEntries = findDeadEntries(accessEntries, roles);
  const halves = indexHalves;
  const awsAuthHalf = remembered(halves?.awsAuth, awsAuth, () => indexAwsAuth(awsAuth));
  const entriesHalf = remembered(halves?.entries, accessEntries, () => indexAccessEntries(accessEntries));
  const index = assembleAccessIndex(mode, awsAuthHalf, entriesHalf, {
    awsAuthUnknown: snapshot.awsAuth.status === 'error',
    accessEntriesUnknown: snapshot.accessEntries.status === 'error',
    deadEntryKeys: new Set(deadEntries.keys()),
  });
  return {
    snapshot,
    cluster: clusterRefOf(snapshot),
    mode,
    ...(awsAuth ? { awsAuth } : {}),
    ...(accessEntries ? { accessEntries } : {}),
    index,
    consumers: consumersOf(snapshot),
    ...(roles ? { roles } : {}),
    deadEntries,
    resolve: (arn: string) => resolveAccess(index, arn),
  };
}
