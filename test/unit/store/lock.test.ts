import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type FileSystem, nodeFileSystem } from '../../../src/store/fileSystem.js';
import { acquireLock } from '../../../src/store/lock.js';
import { type BuiltCli, builtBin, packageRoot, runBuiltCli } from '../../support/builtCli.js';
import { useTempDir } from '../../support/tempDir.js';

const tempDir = useTempDir();
const processes = new Set<ChildProcess>();
const clis = new Set<BuiltCli>();
afterEach(() => {
  for (const child of processes) child.kill('SIGKILL');
  for (const cli of clis) cli.child.kill('SIGKILL');
  processes.clear();
  clis.clear();
});

const hasProc = existsSync('/proc/self/stat');
const bootId = (): string => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

/** Fields of /proc/<pid>/stat, read here independently of src/store: the state (3) and the start time (22). */
function procStat(pid: number): { state: string; startTime: string } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] as string, startTime: fields[19] as string };
}

/** A running process that has nothing to do with the mock. */
function unrelatedProcess(): number {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  processes.add(child);
  return child.pid as number;
}

/** The lock text as a server left it, with another pid in it (the pid reused by another process). */
function namingPid(text: string, pid: number): string {
  return /^\s*\d+\s*$/.test(text) ? String(pid) : JSON.stringify({ ...JSON.parse(text), pid });
}

const lockPath = (): string => join(tempDir(), 'db.json.lock');
/** The pid a lock names (a JSON identity, or a bare pid as earlier versions wrote). */
function holderOf(path: string): { pid: number } {
  const text = readFileSync(path, 'utf8');
  return /^\s*\d+\s*$/.test(text) ? { pid: Number(text) } : JSON.parse(text);
}
const busy = (pid: number): RegExp =>
  new RegExp(`another server \\(pid ${pid}\\) is using this database \\(lock `);

describe('acquireLock', () => {
  it('takes the lock in place on a file system without hard links, and refuses a live holder there too', async () => {
    const path = lockPath();
    const noLinks: FileSystem = {
      ...nodeFileSystem,
      link: async () => {
        throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
      },
    };
    const release = await acquireLock(noLinks, path);
    expect(holderOf(path)).toMatchObject({ pid: process.pid });
    expect(readdirSync(join(path, '..'))).toEqual(['db.json.lock']);
    await release();
    expect(existsSync(path)).toBe(false);
    const holder = unrelatedProcess();
    writeFileSync(path, String(holder));
    await expect(acquireLock(noLinks, path)).rejects.toThrow(busy(holder));
    expect(holderOf(path)).toEqual({ pid: holder });
  });

  it('takes a free lock, names this process in it, and removes it on release', async () => {
    const path = lockPath();
    const release = await acquireLock(nodeFileSystem, path);
    expect(holderOf(path)).toMatchObject({ pid: process.pid });
    expect(readdirSync(join(path, '..'))).toEqual(['db.json.lock']);
    await release();
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a second holder in this process, even asked at the same moment', async () => {
    const path = lockPath();
    const results = await Promise.allSettled([
      acquireLock(nodeFileSystem, path),
      acquireLock(nodeFileSystem, path),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason)).toMatch(busy(process.pid));
    for (const r of results) if (r.status === 'fulfilled') await r.value();
  });

  it.each([
    ['as a start time and boot id of an earlier process', () => ({ pid: process.pid, startTime: '1' })],
    ['as a bare pid (the lock of earlier versions)', () => process.pid],
  ])('takes over a lock naming its own pid %s (a restarted container is pid 1 again)', async (_, holder) => {
    const path = lockPath();
    writeFileSync(path, JSON.stringify(holder()));
    const release = await acquireLock(nodeFileSystem, path);
    expect(holderOf(path)).toMatchObject({ pid: process.pid });
    await release();
  });

  it('removes what a lock taker killed half way left beside the lock, and keeps a live one’s', async () => {
    const path = lockPath();
    const dir = join(path, '..');
    const dead = `.db.json.lock.${spawnSync('true').pid}.0badf00d.new`;
    const live = `.db.json.lock.${unrelatedProcess()}.0badf00d.new`;
    const otherDatabase = `.other.json.lock.${spawnSync('true').pid}.0badf00d.stale`;
    for (const name of [dead, live, otherDatabase]) writeFileSync(join(dir, name), '');
    const release = await acquireLock(nodeFileSystem, path);
    expect(readdirSync(dir).sort()).toEqual([live, otherDatabase, 'db.json.lock'].sort());
    await release();
  });

  it('takes over a lock naming a pid that no process has', async () => {
    const path = lockPath();
    const gone = spawnSync('true').pid as number;
    writeFileSync(path, String(gone));
    const release = await acquireLock(nodeFileSystem, path);
    expect(holderOf(path).pid).toBe(process.pid);
    await release();
  });
});

describe.skipIf(!hasProc)('acquireLock where /proc tells who holds the lock', () => {
  it('takes over the lock of a server killed with -9 whose pid an unrelated live process now has', async () => {
    const db = join(tempDir(), 'db.json');
    const killed = runBuiltCli(['serve', '--port', '0', '--db', db, '--log-level', 'silent']);
    clis.add(killed);
    await killed.firstLine;
    killed.child.kill('SIGKILL');
    await killed.exited;
    // The pid is reused: the lock, as the server left it, now names a process that has nothing to do with it.
    const reused = unrelatedProcess();
    writeFileSync(`${db}.lock`, namingPid(readFileSync(`${db}.lock`, 'utf8'), reused));
    const release = await acquireLock(nodeFileSystem, `${db}.lock`);
    expect(holderOf(`${db}.lock`).pid).toBe(process.pid);
    await release();
  });

  it('takes over the lock of a server killed with -9 that is still a zombie (its parent has not reaped it)', async () => {
    const db = join(tempDir(), 'db.json');
    const server = `"${process.execPath}" "${builtBin}" serve --port 0 --db "${db}" --log-level silent`;
    // The server's parent execs into `sleep`, which never waits for it.
    const parent = spawn('sh', ['-c', `${server} & echo $!; exec sleep 30`], {
      cwd: packageRoot,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    processes.add(parent);
    const lines = createInterface({ input: parent.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
    const pid = Number((await lines.next()).value);
    expect((await lines.next()).value).toMatch(/^user-group-mock listening on /);
    expect(holderOf(`${db}.lock`).pid).toBe(pid);
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(() => expect(procStat(pid).state).toBe('Z'), { timeout: 5_000 });
    const release = await acquireLock(nodeFileSystem, `${db}.lock`);
    expect(holderOf(`${db}.lock`).pid).toBe(process.pid);
    await release();
  });

  it('takes over a lock written before the machine rebooted', async () => {
    const path = lockPath();
    const pid = unrelatedProcess();
    const otherBoot = '00000000-0000-0000-0000-000000000000';
    writeFileSync(path, JSON.stringify({ pid, startTime: procStat(pid).startTime, bootId: otherBoot }));
    const release = await acquireLock(nodeFileSystem, path);
    expect(holderOf(path).pid).toBe(process.pid);
    await release();
  });

  it('refuses a lock whose holder still runs (same pid, start time and boot), and leaves it in place', async () => {
    const path = lockPath();
    const pid = unrelatedProcess();
    const lock = JSON.stringify({ pid, startTime: procStat(pid).startTime, bootId: bootId() });
    writeFileSync(path, lock);
    await expect(acquireLock(nodeFileSystem, path)).rejects.toThrow(busy(pid));
    expect(readFileSync(path, 'utf8')).toBe(lock);
  });

  it('refuses the lock of a live server started from the built command line', async () => {
    const db = join(tempDir(), 'db.json');
    const cli = runBuiltCli(['serve', '--port', '0', '--db', db, '--log-level', 'silent']);
    clis.add(cli);
    expect(await cli.firstLine).toMatch(/^user-group-mock listening on /);
    await expect(acquireLock(nodeFileSystem, `${db}.lock`)).rejects.toThrow(busy(cli.child.pid as number));
    const second = runBuiltCli(['serve', '--port', '0', '--db', db, '--log-level', 'silent']);
    clis.add(second);
    expect((await second.exited).code).toBe(1);
    expect(second.stderr()).toMatch(busy(cli.child.pid as number));
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
    expect(existsSync(`${db}.lock`)).toBe(false);
  });

  it('lets exactly one of several servers started at once take over a stale lock', async () => {
    const db = join(tempDir(), 'db.json');
    writeFileSync(`${db}.lock`, JSON.stringify({ pid: process.pid, startTime: '1', bootId: bootId() }));
    const started = Array.from({ length: 6 }, () => {
      const cli = runBuiltCli(['serve', '--port', '0', '--db', db, '--log-level', 'silent']);
      clis.add(cli);
      return cli;
    });
    const firstLines = await Promise.allSettled(started.map((cli) => cli.firstLine));
    const listening = started.filter((_, i) => firstLines[i]?.status === 'fulfilled');
    expect(listening).toHaveLength(1);
    for (const cli of started.filter((c) => !listening.includes(c))) {
      expect((await cli.exited).code).toBe(1);
      expect(cli.stderr()).toMatch(busy((listening[0] as BuiltCli).child.pid as number));
    }
    (listening[0] as BuiltCli).child.kill('SIGTERM');
    expect((await (listening[0] as BuiltCli).exited).code).toBe(0);
  });
});

describe('acquireLock without /proc (macOS): the pid alone', () => {
  const noProc: FileSystem = {
    ...nodeFileSystem,
    readFile: (path) =>
      path.startsWith('/proc/')
        ? Promise.reject(Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' }))
        : nodeFileSystem.readFile(path),
  };

  it('refuses a lock whose pid is running and takes over one whose pid is not, or is its own', async () => {
    const path = lockPath();
    const live = unrelatedProcess();
    writeFileSync(path, String(live));
    await expect(acquireLock(noProc, path)).rejects.toThrow(busy(live));
    writeFileSync(path, String(spawnSync('true').pid));
    await (await acquireLock(noProc, path))();
    writeFileSync(path, JSON.stringify({ pid: process.pid }));
    const release = await acquireLock(noProc, path);
    expect(holderOf(path)).toEqual({ pid: process.pid });
    await release();
  });
});

/** Why the PID-namespace test cannot run here, or undefined when it can. */
function unshareUnavailable(): string | undefined {
  if (!hasProc) return 'there is no /proc (not Linux)';
  const probe = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { encoding: 'utf8' });
  if (probe.error !== undefined) return `unshare cannot be run (${probe.error.message})`;
  if (probe.status !== 0)
    return `unshare --pid --fork --mount-proc is not allowed here (${probe.stderr.trim()})`;
  return undefined;
}

/** The pids whose parent is `parent` (read from /proc: the machine may lack /proc/<pid>/task/<tid>/children). */
function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const text = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

const cannotUnshare = unshareUnavailable();
if (cannotUnshare !== undefined) {
  console.warn(`test/unit/store/lock.test.ts: the PID-namespace restart test is skipped: ${cannotUnshare}`);
}

describe.skipIf(cannotUnshare !== undefined)('the built mock in a PID namespace (a container)', () => {
  it('starts again as pid 1 after being killed with -9 as pid 1', async () => {
    const db = join(tempDir(), 'db.json');
    const inContainer = (): BuiltCli => {
      const cli = runBuiltCli(
        ['serve', '--port', '0', '--db', db, '--log-level', 'silent'],
        ['unshare', '--pid', '--fork', '--mount-proc'],
      );
      clis.add(cli);
      return cli;
    };
    const first = inContainer();
    expect(await first.firstLine).toMatch(/^user-group-mock listening on /);
    expect(holderOf(`${db}.lock`).pid).toBe(1);
    const [mock] = childrenOf(first.child.pid as number);
    process.kill(mock as number, 'SIGKILL');
    await first.exited;
    expect(holderOf(`${db}.lock`).pid).toBe(1);

    const second = inContainer();
    expect(await second.firstLine).toMatch(/^user-group-mock listening on /);
    const [restarted] = childrenOf(second.child.pid as number);
    process.kill(restarted as number, 'SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(existsSync(`${db}.lock`)).toBe(false);
  });
});
