import { aside, type FileSystem, isMissing, readIfPresent, removeAside, writeNew } from './fileSystem.js';
import { isStillRunning, ownIdentity, type ProcessIdentity, pidIsAlive } from './processIdentity.js';

/** The lock files this process holds: a second store on one of them is refused without reading the file. */
const held = new Set<string>();

/**
 * Takes `<db>.lock` for this process, so two servers never write one database. The file names its holder by pid,
 * start time and boot id, and appears whole (written aside, then hard-linked into place). A lock whose holder is
 * gone is taken over: killed with -9, still a zombie, or replaced by another process with the same pid (a restarted
 * container is pid 1 again).
 */
export async function acquireLock(files: FileSystem, path: string): Promise<() => Promise<void>> {
  // Claimed in this process before the first await, so that two stores opened at once here cannot both win.
  if (held.has(path)) throw busy(process.pid, path);
  held.add(path);
  try {
    const self = await ownIdentity(files);
    const text = `${JSON.stringify(self)}\n`;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await create(files, path, text)) {
        // The files of lock takers killed half way (or of this process).
        await removeAside(files, path, ['new', 'stale'], (pid) => pid === process.pid || !pidIsAlive(pid));
        return async () => {
          if ((await readLock(files, path))?.text === text) await files.unlink(path).catch(() => undefined);
          held.delete(path);
        };
      }
      const found = await readLock(files, path);
      if (found === undefined) continue;
      if (found.holder !== undefined && (await isStillRunning(files, found.holder, self)))
        throw busy(found.holder.pid, path);
      await removeStale(files, path, found.text);
    }
    throw new Error(`user-group-mock: could not take the lock ${path}; remove it if no server is running.`);
  } catch (error) {
    held.delete(path);
    throw error;
  }
}

const busy = (pid: number, path: string): Error =>
  new Error(
    `user-group-mock: another server (pid ${pid}) is using this database (lock ${path}). Stop it, or give this one another --db path or --in-memory.`,
  );

/**
 * Creates the lock with its whole text at once; false when a lock is already there. On a file system without hard
 * links it is written in place, and a reader may see it empty for a moment (see `readLock`).
 */
async function create(files: FileSystem, path: string, text: string): Promise<boolean> {
  const temp = aside(path, 'new');
  try {
    // Not fsynced: after a power cut the machine has another boot id, so the lock is stale whatever it holds.
    await writeNew(files, temp, text);
    await files.link(temp, path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPERM' && error.code !== 'ENOTSUP' && error.code !== 'ENOSYS') throw error;
      return writeNew(files, path, text);
    });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await files.unlink(temp).catch(() => undefined);
  }
}

/**
 * The lock's text and holder (undefined when the text names nobody: a lock cut short by a crash); undefined once
 * the lock is gone. An empty lock is re-read for a while (being written).
 */
async function readLock(files: FileSystem, path: string) {
  let text = '';
  for (let read = 0; read < 10; read++) {
    const bytes = await readIfPresent(files, path);
    if (bytes === undefined) return undefined;
    text = bytes.toString('utf8');
    if (text !== '') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { text, holder: parseHolder(text) };
}

/** `{"pid":…,"startTime":…,"bootId":…}`, or a bare pid (the lock of earlier versions). */
function parseHolder(text: string): ProcessIdentity | undefined {
  if (/^\s*\d+\s*$/.test(text)) return { pid: Number.parseInt(text, 10) };
  try {
    const value = JSON.parse(text) as Partial<Record<keyof ProcessIdentity, unknown>>;
    if (!Number.isSafeInteger(value.pid) || (value.pid as number) <= 0) return undefined;
    return {
      pid: value.pid as number,
      ...(typeof value.startTime === 'string' ? { startTime: value.startTime } : {}),
      ...(typeof value.bootId === 'string' ? { bootId: value.bootId } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Removes a stale lock unless another server took it over meanwhile: the lock is read again, then moved aside, and
 * when the lock moved is not the stale one after all (taken over in between), it is put back.
 */
async function removeStale(files: FileSystem, path: string, staleText: string): Promise<void> {
  if ((await readLock(files, path))?.text !== staleText) return;
  const moved = aside(path, 'stale');
  try {
    await files.rename(path, moved);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  const text = await files.readFile(moved).then(
    (bytes) => bytes.toString('utf8'),
    () => staleText,
  );
  if (text !== staleText) await files.link(moved, path).catch(() => undefined);
  await files.unlink(moved).catch(() => undefined);
}
