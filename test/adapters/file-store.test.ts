import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createFileSnapshotStore,
  nodeStoreFs,
  type StoreFs,
  snapshotPath,
  writeFileAtomic,
} from '../../shared/adapters/file-store.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { loadScenario } from '../support/sandbox-helpers.ts';

const KEY = { accountId: '111122223333', region: 'eu-west-1', clusterName: 'prod' };

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sentinel-store-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function snapshotAt(capturedAt: string): ClusterSnapshot {
  return { ...loadScenario('a-karpenter-shares-last-nodegroup-role'), capturedAt };
}

/** A disk whose writes stop half-way with ENOSPC: half the text is on disk, then the write fails. */
const fullDisk: StoreFs = {
  ...nodeStoreFs,
  async writeNewFile(path, text) {
    const handle = await open(path, 'wx');
    try {
      await handle.writeFile(text.slice(0, Math.floor(text.length / 2)));
    } finally {
      await handle.close();
    }
    throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
  },
};

const dir = () => join(root, KEY.accountId, KEY.region);

describe('createFileSnapshotStore', () => {
  it('round-trips a snapshot and keeps the one before as <cluster>.prev.json', async () => {
    const store = createFileSnapshotStore(root);
    expect(await store.latest(KEY)).toBeUndefined();
    const first = snapshotAt('2026-11-20T10:00:00Z');
    const second = snapshotAt('2026-11-20T11:00:00Z');
    await store.put(first);
    expect(await store.latest(KEY)).toEqual(first);
    expect(await store.previous(KEY)).toBeUndefined();
    await store.put(second);
    expect(await store.latest(KEY)).toEqual(second);
    expect(await store.previous(KEY)).toEqual(first);
    expect(readdirSync(dir()).sort()).toEqual(['prod.json', 'prod.prev.json']);
    expect(store.pathOf(KEY)).toBe(join(root, '111122223333', 'eu-west-1', 'prod.json'));
  });

  it('never leaves a half-written snapshot: a failing write keeps the last one whole and no temporary file', async () => {
    const first = snapshotAt('2026-11-20T10:00:00Z');
    await createFileSnapshotStore(root).put(first);
    const before = readFileSync(join(dir(), 'prod.json'), 'utf8');

    const failing = createFileSnapshotStore(root, fullDisk);
    await expect(failing.put(snapshotAt('2026-11-20T11:00:00Z'))).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(readFileSync(join(dir(), 'prod.json'), 'utf8')).toBe(before);
    expect(readdirSync(dir())).toEqual(['prod.json']);
    expect(await createFileSnapshotStore(root).latest(KEY)).toEqual(first);
  });

  it('keeps the current snapshot whole when the final rename fails', async () => {
    const first = snapshotAt('2026-11-20T10:00:00Z');
    await createFileSnapshotStore(root).put(first);
    const failingRename: StoreFs = {
      ...nodeStoreFs,
      async rename(from, to) {
        if (to.endsWith('prod.json')) throw Object.assign(new Error('EXDEV'), { code: 'EXDEV' });
        return nodeStoreFs.rename(from, to);
      },
    };
    await expect(
      createFileSnapshotStore(root, failingRename).put(snapshotAt('2026-11-20T11:00:00Z')),
    ).rejects.toMatchObject({ code: 'EXDEV' });
    expect(await createFileSnapshotStore(root).latest(KEY)).toEqual(first);
    expect(readdirSync(dir()).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('throws on an unreadable or invalid stored file instead of answering "none stored"', async () => {
    const store = createFileSnapshotStore(root);
    await store.put(snapshotAt('2026-11-20T10:00:00Z'));
    writeFileSync(join(dir(), 'prod.json'), '{"schemaVersion": 1}');
    await expect(store.latest(KEY)).rejects.toThrow(/not a valid cluster snapshot/);
  });

  it('refuses a key that would leave the store directory', () => {
    expect(() => snapshotPath(root, { ...KEY, clusterName: '../../etc/passwd' })).toThrow(RangeError);
    expect(() => snapshotPath(root, { ...KEY, region: '..' })).toThrow(RangeError);
    expect(() => snapshotPath(root, { ...KEY, accountId: '../x' })).toThrow(RangeError);
  });
});

describe('writeFileAtomic', () => {
  it('writes the whole file, creating its directory', async () => {
    const path = join(root, 'a', 'b', 'out.json');
    await writeFileAtomic(path, '{"ok":true}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"ok":true}\n');
    expect(readdirSync(join(root, 'a', 'b'))).toEqual(['out.json']);
  });

  it('leaves the previous content and no temporary file when the write fails half-way', async () => {
    const path = join(root, 'out.json');
    writeFileSync(path, 'old\n');
    await expect(writeFileAtomic(path, 'x'.repeat(10_000), fullDisk)).rejects.toMatchObject({
      code: 'ENOSPC',
    });
    expect(readFileSync(path, 'utf8')).toBe('old\n');
    expect(readdirSync(root)).toEqual(['out.json']);
  });
});
