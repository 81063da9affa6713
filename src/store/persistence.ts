import { basename, dirname, resolve } from 'node:path';
import { Low } from 'lowdb';
import { applyChanges, type Change } from '../domain/changes.js';
import { emptyWorld, type World } from '../domain/model.js';
import { ChangeLog, readChangeLog } from './changeLog.js';
import { DurableJsonFile } from './durableJsonFile.js';
import { type FileSystem, nodeFileSystem, removeAside } from './fileSystem.js';
import { acquireLock } from './lock.js';
import { fromSnapshot, type SnapshotFile, toSnapshot } from './snapshot.js';
import type { OnWarning, OpenedStoreOptions } from './storeOptions.js';

/** Where the store keeps what it acknowledged. `append` resolves only once the changes are durable. */
export interface Persistence {
  readonly world: World;
  append(changes: readonly Change[]): Promise<void>;
  /**
   * Called between appends, when memory equals what is durable. May take a snapshot of the world now and write it
   * in the background; appends made meanwhile go to a fresh log.
   */
  maybeCompact(): Promise<void>;
  close(): Promise<void>;
}

/** `--in-memory`: nothing outlives the process. */
export const memoryPersistence = (): Persistence => ({
  world: emptyWorld(),
  append: async () => undefined,
  maybeCompact: async () => undefined,
  close: async () => undefined,
});

export type { OnWarning } from './storeOptions.js';

/** The default: a process warning, printed on stderr (`(node:PID) Warning: user-group-mock: ...`). */
export const processWarning: OnWarning = (message) => process.emitWarning(message);

/**
 * A lowdb JSON snapshot (`db.json`, written crash-safely) plus an append-only, fdatasynced change log
 * (`db.json.log.<generation>`) replayed on start. Compaction writes a new snapshot in the background.
 */
export async function openFilePersistence(
  path: string,
  { files = nodeFileSystem, compactAfter = 20_000, onWarning }: OpenedStoreOptions,
): Promise<Persistence> {
  const dbPath = resolve(path);
  const directory = dirname(dbPath);
  await files.mkdir(directory, { recursive: true });
  const release = await acquireLock(files, `${dbPath}.lock`);
  try {
    const snapshotFile = new DurableJsonFile<SnapshotFile | null>(dbPath, files);
    // The temp files of snapshot writes a killed process left (any process's: the lock is held).
    await removeAside(files, dbPath, ['tmp']);
    const db = new Low<SnapshotFile | null>(snapshotFile, null);
    await db.read();
    const world = db.data === null ? emptyWorld() : fromSnapshot(db.data, dbPath);
    const firstGeneration = db.data?.logGeneration ?? 1;
    const logs = await listLogs(files, dbPath);
    for (const stale of logs.filter((g) => g < firstGeneration)) await files.unlink(logPath(dbPath, stale));
    let generation = firstGeneration;
    let replayed = { bytes: 0, records: 0 };
    for (const g of logs.filter((g) => g >= firstGeneration)) {
      const log = await readChangeLog(files, logPath(dbPath, g));
      applyChanges(world, log.changes);
      if (log.torn > 0)
        onWarning(
          `user-group-mock: dropped the last ${log.torn} bytes of ${logPath(dbPath, g)}: a change whose write was cut off (by a crash or a kill), never acknowledged to a client`,
        );
      generation = g;
      replayed = log;
    }
    let log = await ChangeLog.open(files, logPath(dbPath, generation), replayed);
    let compaction: Promise<void> | undefined;

    const maybeCompact = async (): Promise<void> => {
      const groups = [...world.tenants.values()].reduce((n, t) => n + t.groups.size, 0);
      if (compaction !== undefined || log.records < Math.max(compactAfter, groups)) return;
      const next = generation + 1;
      const snapshot = toSnapshot(world, next);
      const fresh = await ChangeLog.open(files, logPath(dbPath, next), { bytes: 0, records: 0 });
      const previous = log;
      log = fresh;
      generation = next;
      compaction = (async () => {
        try {
          db.data = snapshot;
          await db.write();
          for (const old of (await listLogs(files, dbPath)).filter((g) => g < next))
            await files.unlink(logPath(dbPath, old));
        } catch (error) {
          onWarning(
            `user-group-mock: compaction of ${dbPath} failed (${(error as Error).message}); the change logs still hold everything and compaction will be retried.`,
          );
        } finally {
          await previous.close().catch(() => undefined);
          compaction = undefined;
        }
      })();
    };

    return {
      world,
      append: (changes) => log.append(changes),
      maybeCompact,
      close: async () => {
        await compaction;
        await log.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

const logPath = (dbPath: string, generation: number): string => `${dbPath}.log.${generation}`;

async function listLogs(files: FileSystem, dbPath: string): Promise<number[]> {
  const prefix = `${basename(dbPath)}.log.`;
  return (await files.readdir(dirname(dbPath)))
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => Number(name.slice(prefix.length)))
    .sort((a, b) => a - b);
}
