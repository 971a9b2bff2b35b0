/** In-memory fakes of the monitor's ports, recording what they were given. */

import type { AlertRecord, Channel, PendingNotice } from '../../shared/core/alerts/lifecycle.ts';
import { type ClusterSnapshot, clusterIdKey } from '../../shared/core/model.ts';
import { ConcurrentUpdateError } from '../../shared/errors.ts';
import type {
  AlertStore,
  Clock,
  ClusterWorkItem,
  DeliveryResult,
  IdempotencyStore,
  NoticeSender,
  SnapshotStore,
  WorkQueue,
} from '../../shared/ports.ts';

const keyOf = clusterIdKey;

export interface FakeClock extends Clock {
  set(iso: string): void;
  advance(ms: number): void;
}

export function createFakeClock(start = '2026-11-29T12:00:00.000Z'): FakeClock {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    set: (iso) => {
      now = new Date(iso).getTime();
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

export interface FakeAlertStore extends AlertStore {
  /** What is stored now, per cluster key `account/region/cluster`. */
  readonly items: Map<string, { records: AlertRecord[]; version: number }>;
  saves: number;
  /** Make the next N saves lose the race (another writer saved in between). */
  loseNextSaves(n: number, meanwhile?: (records: AlertRecord[]) => AlertRecord[]): void;
}

export function createFakeAlertStore(): FakeAlertStore {
  const items = new Map<string, { records: AlertRecord[]; version: number }>();
  let losing = 0;
  let meanwhileFn: ((records: AlertRecord[]) => AlertRecord[]) | undefined;
  const store: FakeAlertStore = {
    items,
    saves: 0,
    loseNextSaves(n, meanwhile) {
      losing = n;
      meanwhileFn = meanwhile;
    },
    async load(key) {
      const item = items.get(keyOf(key));
      if (item === undefined) return { records: [] };
      return { records: structuredClone(item.records), version: String(item.version) };
    },
    async save(key, records, version) {
      const k = keyOf(key);
      if (losing > 0) {
        losing -= 1;
        const current = items.get(k) ?? { records: [], version: 0 };
        items.set(k, {
          records: meanwhileFn ? meanwhileFn(structuredClone(current.records)) : current.records,
          version: current.version + 1,
        });
      }
      const current = items.get(k);
      const expected = version === undefined ? undefined : Number(version);
      if (current?.version !== expected) {
        throw new ConcurrentUpdateError(`save ${k}: version ${version} is stale`, {
          code: 'conflict',
          service: 'dynamodb',
          operation: 'PutItem',
          resource: k,
        });
      }
      store.saves += 1;
      const next = (current?.version ?? 0) + 1;
      items.set(k, { records: structuredClone([...records]), version: next });
      return String(next);
    },
  };
  return store;
}

export interface FakeSender extends NoticeSender {
  /** Every notice delivered, in order. */
  readonly delivered: PendingNotice[];
  /** Calls to send, with the notices each carried. */
  readonly calls: PendingNotice[][];
  /** Fail every send while true (reports nothing delivered, with this error). */
  failing: string | undefined;
}

export function createFakeSender(channel: Channel): FakeSender {
  const sender: FakeSender = {
    channel,
    delivered: [],
    calls: [],
    failing: undefined,
    async send(notices): Promise<DeliveryResult> {
      sender.calls.push([...notices]);
      if (sender.failing !== undefined) return { delivered: new Set(), error: sender.failing };
      sender.delivered.push(...notices);
      return { delivered: new Set(notices) };
    },
  };
  return sender;
}

export function createFakeSnapshotStore(): SnapshotStore & { readonly items: Map<string, ClusterSnapshot> } {
  const items = new Map<string, ClusterSnapshot>();
  return {
    items,
    async latest(key) {
      const s = items.get(keyOf(key));
      return s === undefined ? undefined : structuredClone(s);
    },
    async put(snapshot) {
      items.set(
        keyOf({ accountId: snapshot.accountId, region: snapshot.region, clusterName: snapshot.clusterName }),
        structuredClone(snapshot),
      );
    },
  };
}

/** In-memory IdempotencyStore with the adapter's two states (IN_PROGRESS with its expiry, COMPLETED). */
export function createFakeIdempotencyStore(clock: Clock): IdempotencyStore & {
  readonly claims: Map<string, { status: 'IN_PROGRESS' | 'COMPLETED'; until: number }>;
} {
  const claims = new Map<string, { status: 'IN_PROGRESS' | 'COMPLETED'; until: number }>();
  return {
    claims,
    async claim(key, { inProgressUntil }) {
      const now = clock.now().getTime();
      const held = claims.get(key);
      if (held !== undefined && held.until > now) {
        return held.status === 'COMPLETED' ? 'completed' : 'in-progress';
      }
      claims.set(key, { status: 'IN_PROGRESS', until: inProgressUntil });
      return 'claimed';
    },
    async complete(key, ttlSeconds) {
      claims.set(key, { status: 'COMPLETED', until: clock.now().getTime() + ttlSeconds * 1000 });
    },
    async release(key) {
      if (claims.get(key)?.status === 'IN_PROGRESS') claims.delete(key);
    },
  };
}

export function createFakeWorkQueue(): WorkQueue & {
  readonly sent: Array<{ item: ClusterWorkItem; delaySeconds: number | undefined }>;
} {
  const sent: Array<{ item: ClusterWorkItem; delaySeconds: number | undefined }> = [];
  return {
    sent,
    async enqueue(items, delaySeconds) {
      for (const item of items) sent.push({ item: structuredClone(item), delaySeconds });
    },
  };
}
