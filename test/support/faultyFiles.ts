import type { FileHandle } from 'node:fs/promises';
import { type FileSystem, nodeFileSystem } from '../../src/store/fileSystem.js';

/** Where a planned disk fault strikes. */
export type FaultSite =
  | 'log-write'
  | 'log-sync'
  | 'log-truncate'
  | 'log-open'
  | 'snapshot-write'
  | 'snapshot-sync'
  | 'rename'
  | 'dir-sync';

export type Errno = 'ENOSPC' | 'EIO' | 'EMFILE' | 'EXDEV' | 'EROFS';

interface Plan {
  readonly site: FaultSite;
  /** Calls at the site still to let through before the fault. */
  skip: number;
  readonly code: Errno;
  /** For writes: write half the bytes first, as a disk that fills up mid-write does. */
  readonly partial: boolean;
}

const handleSites: Readonly<Record<string, Readonly<Record<string, FaultSite>>>> = {
  log: { write: 'log-write', datasync: 'log-sync', sync: 'log-sync', truncate: 'log-truncate' },
  snapshot: {
    writeFile: 'snapshot-write',
    write: 'snapshot-write',
    sync: 'snapshot-sync',
    datasync: 'snapshot-sync',
  },
  directory: { sync: 'dir-sync' },
};

const kindOf = (path: string, flags: string): string =>
  /\.log\.\d+$/.test(path)
    ? 'log'
    : path.endsWith('.tmp')
      ? 'snapshot'
      : flags === 'r'
        ? 'directory'
        : 'other';

export const errnoError = (code: Errno, syscall: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: injected fault, ${syscall}`), { code, syscall, errno: -1 });

/**
 * The store's FileSystem seam with planned faults: `fail('log-write', { code: 'ENOSPC' })` makes the next write
 * to a change log fail (or the Nth, with `nth`). Everything else goes to the real disk.
 */
export class FaultyFileSystem implements FileSystem {
  readonly #plans: Plan[] = [];
  /** Faults that struck so far (a test checks its fault did strike). */
  struck = 0;
  /** File handles opened and not yet closed (0 once a server has closed: nothing leaks). */
  openHandles = 0;
  readonly calls = new Map<FaultSite, number>();

  fail(site: FaultSite, options: { code: Errno; nth?: number; partial?: boolean }): void {
    this.#plans.push({
      site,
      skip: (options.nth ?? 1) - 1,
      code: options.code,
      partial: options.partial ?? false,
    });
  }

  /** Whether a planned fault is still waiting to strike. */
  get armed(): boolean {
    return this.#plans.length > 0;
  }

  /** Counts a call at a site; returns the fault to raise now, if any. */
  take(site: FaultSite): Plan | undefined {
    this.calls.set(site, (this.calls.get(site) ?? 0) + 1);
    const index = this.#plans.findIndex((p) => p.site === site);
    const plan = this.#plans[index];
    if (plan === undefined) return undefined;
    if (plan.skip > 0) {
      plan.skip--;
      return undefined;
    }
    this.#plans.splice(index, 1);
    this.struck++;
    return plan;
  }

  async open(path: string, flags: string): Promise<FileHandle> {
    const kind = kindOf(path, flags);
    if (kind === 'log') {
      const fault = this.take('log-open');
      if (fault !== undefined) throw errnoError(fault.code, 'open');
    }
    return this.#wrap(await nodeFileSystem.open(path, flags), kind);
  }

  readFile(path: string): Promise<Buffer> {
    return nodeFileSystem.readFile(path);
  }

  async rename(from: string, to: string): Promise<void> {
    const fault = this.take('rename');
    if (fault !== undefined) throw errnoError(fault.code, 'rename');
    return nodeFileSystem.rename(from, to);
  }

  link(from: string, to: string): Promise<void> {
    return nodeFileSystem.link(from, to);
  }

  unlink(path: string): Promise<void> {
    return nodeFileSystem.unlink(path);
  }

  readdir(path: string): Promise<string[]> {
    return nodeFileSystem.readdir(path);
  }

  mkdir(path: string, options: { recursive: true }): Promise<unknown> {
    return nodeFileSystem.mkdir(path, options);
  }

  #wrap(handle: FileHandle, kind: string): FileHandle {
    const sites = handleSites[kind] ?? {};
    this.openHandles++;
    let closed = false;
    return new Proxy(handle, {
      get: (target, property, _receiver) => {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== 'function') return value;
        const method = value as (...args: unknown[]) => Promise<unknown>;
        if (property === 'close')
          return async () => {
            await method.apply(target);
            if (!closed) this.openHandles--;
            closed = true;
          };
        const site = typeof property === 'string' ? sites[property] : undefined;
        if (site === undefined) return method.bind(target);
        return async (...args: unknown[]) => {
          const fault = this.take(site);
          if (fault === undefined) return method.apply(target, args);
          if (fault.partial && property === 'write') {
            const [buffer, offset, length, position] = args as [Buffer, number, number, number];
            await target.write(buffer, offset, Math.floor(length / 2), position);
          }
          throw errnoError(fault.code, String(property));
        };
      },
    });
  }
}
