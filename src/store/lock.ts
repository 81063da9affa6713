import { type FileSystem, isMissing } from './fileSystem.js';

/** Whether a process with this pid is running (a lock held by a dead process is stale). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<db>.lock` for this process, so two servers never write one database. A lock left by a process that
 * is gone (killed with -9) is taken over.
 */
export async function acquireLock(files: FileSystem, path: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await files.open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.sync();
      await handle.close();
      return () => files.unlink(path).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder = Number.NaN;
    try {
      holder = Number.parseInt((await files.readFile(path)).toString('utf8'), 10);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    if (Number.isInteger(holder) && isRunning(holder)) {
      throw new Error(
        `user-group-mock: another server (pid ${holder}) is using this database (lock ${path}). Stop it, or give this one another --db path or --in-memory.`,
      );
    }
    await files.unlink(path).catch(() => undefined);
  }
  throw new Error(`user-group-mock: could not take the lock ${path}; remove it if no server is running.`);
}
