/**
 * The CLI's local snapshot store (`SnapshotStore` over a directory) and the atomic file write it
 * shares with `snapshot --out`.
 *
 * Layout: `<root>/<account>/<region>/<cluster>.json`, the one before it kept as
 * `<cluster>.prev.json` (so `diff --before …prev.json --after ….json` shows what changed).
 *
 * Never half-written: a file is written to a temporary name in the same directory, flushed to
 * disk, then renamed over the target (rename is atomic within a file system). `put` writes the
 * new snapshot to its temporary file first, then copies the current one to `.prev.json` (also
 * through a temporary name), then renames the new one into place: whatever fails, the current
 * file is either the old snapshot or the new one, whole, and temporary files are removed.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type ClusterId, type ClusterSnapshot, isRegionCode } from '../core/model.ts';
import { validateSnapshot } from '../core/snapshot/index.ts';
import type { SnapshotStore } from '../ports.ts';

export const DEFAULT_STORE_DIR = '.sentinel/snapshots';

/** The file-system calls the store makes; tests replace one to simulate a failing disk. */
export interface StoreFs {
  mkdir(path: string): Promise<void>;
  /** Writes and flushes a new file (fails if it exists). */
  writeNewFile(path: string, text: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  copyFile(from: string, to: string): Promise<void>;
  readFile(path: string): Promise<string>;
  unlink(path: string): Promise<void>;
}

export const nodeStoreFs: StoreFs = {
  async mkdir(path) {
    await mkdir(path, { recursive: true });
  },
  async writeNewFile(path, text) {
    const handle = await open(path, 'wx', 0o644);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  rename: (from, to) => rename(from, to),
  copyFile: (from, to) => copyFile(from, to),
  readFile: (path) => readFile(path, 'utf8'),
  unlink: (path) => unlink(path),
};

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function temporaryName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomUUID().slice(0, 8)}.tmp`);
}

async function removeQuietly(fs: StoreFs, path: string): Promise<void> {
  try {
    await fs.unlink(path);
  } catch {
    // Already gone, or the disk refuses: the temporary name never shadows a real file.
  }
}

/** Writes `text` to `path` whole or not at all (temporary file + rename); creates the directory. */
export async function writeFileAtomic(path: string, text: string, fs: StoreFs = nodeStoreFs): Promise<void> {
  await fs.mkdir(dirname(path));
  const temporary = temporaryName(path);
  try {
    await fs.writeNewFile(temporary, text);
    await fs.rename(temporary, path);
  } catch (error) {
    await removeQuietly(fs, temporary);
    throw error;
  }
}

const ACCOUNT = /^\d{12}$/;
/** EKS cluster names: letters, digits, hyphens and underscores, starting with a letter or digit. */
const CLUSTER = /^[0-9A-Za-z][0-9A-Za-z_-]{0,99}$/;

/** `<root>/<account>/<region>/<cluster>.json`; refuses a key that would leave the directory. */
export function snapshotPath(
  root: string,
  key: ClusterId,
  which: 'current' | 'previous' = 'current',
): string {
  if (!ACCOUNT.test(key.accountId)) throw new RangeError(`not an AWS account ID: ${key.accountId}`);
  if (!isRegionCode(key.region)) throw new RangeError(`not an AWS Region: ${key.region}`);
  if (!CLUSTER.test(key.clusterName)) throw new RangeError(`not an EKS cluster name: ${key.clusterName}`);
  const file = which === 'current' ? `${key.clusterName}.json` : `${key.clusterName}.prev.json`;
  return join(root, key.accountId, key.region, file);
}

export interface FileSnapshotStore extends SnapshotStore {
  readonly root: string;
  /** Where `put` writes the snapshot of `key`. */
  pathOf(key: ClusterId, which?: 'current' | 'previous'): string;
  /** The snapshot stored before the latest; undefined when there is none. */
  previous(key: ClusterId): Promise<ClusterSnapshot | undefined>;
}

export function createFileSnapshotStore(
  root: string = DEFAULT_STORE_DIR,
  fs: StoreFs = nodeStoreFs,
): FileSnapshotStore {
  async function read(path: string): Promise<ClusterSnapshot | undefined> {
    let text: string;
    try {
      text = await fs.readFile(path);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    const result = validateSnapshot(JSON.parse(text));
    if (!result.ok) {
      const first = result.errors[0];
      throw new Error(`${path}: not a valid cluster snapshot: ${first?.path ?? ''} ${first?.message ?? ''}`);
    }
    return result.snapshot;
  }

  const pathOf = (key: ClusterId, which: 'current' | 'previous' = 'current') =>
    snapshotPath(root, key, which);

  return {
    root,
    pathOf,
    latest: (key) => read(pathOf(key)),
    previous: (key) => read(pathOf(key, 'previous')),
    async put(snapshot) {
      const key = {
        accountId: snapshot.accountId,
        region: snapshot.region,
        clusterName: snapshot.clusterName,
      };
      const current = pathOf(key);
      const previous = pathOf(key, 'previous');
      await fs.mkdir(dirname(current));
      const incoming = temporaryName(current);
      const keep = temporaryName(previous);
      try {
        await fs.writeNewFile(incoming, `${JSON.stringify(snapshot, null, 2)}\n`);
        try {
          await fs.copyFile(current, keep);
          await fs.rename(keep, previous);
        } catch (error) {
          if (errorCode(error) !== 'ENOENT') throw error; // no current snapshot yet: nothing to keep
        }
        await fs.rename(incoming, current);
      } catch (error) {
        await Promise.all([removeQuietly(fs, incoming), removeQuietly(fs, keep)]);
        throw error;
      }
    },
  };
}
