import type { FileSystem } from './fileSystem.js';

/**
 * Who holds a database lock: the pid, and where Linux's /proc can tell them, the process's start time (clock ticks
 * after boot) and the kernel's boot id. A pid alone is not an identity: a later process can get the same one (always
 * pid 1 in a container), and a killed process keeps its pid as a zombie until its parent reaps it.
 */
export interface ProcessIdentity {
  readonly pid: number;
  readonly startTime?: string;
  readonly bootId?: string;
}

/** This process as others will see it. Without /proc (macOS), or with a /proc of another PID namespace, the pid only. */
export async function ownIdentity(files: FileSystem): Promise<ProcessIdentity> {
  const stat = await readStat(files, 'self');
  if (stat === undefined || stat.pid !== process.pid) return { pid: process.pid };
  const bootId = await readText(files, '/proc/sys/kernel/random/boot_id');
  return { pid: process.pid, startTime: stat.startTime, ...(bootId === undefined ? {} : { bootId }) };
}

/**
 * Whether the process a lock names still runs. `self` is this process's identity: when it has a start time, /proc
 * shows this PID namespace and is trusted; otherwise only the pid's liveness can be checked.
 */
export async function isStillRunning(
  files: FileSystem,
  holder: ProcessIdentity,
  self: ProcessIdentity,
): Promise<boolean> {
  // A lock naming this process's pid was written by an earlier process (a container restarts as pid 1 again);
  // the locks this process holds itself are known without reading the file.
  if (holder.pid === self.pid) return false;
  if (holder.bootId !== undefined && self.bootId !== undefined && holder.bootId !== self.bootId) return false;
  if (!pidIsAlive(holder.pid)) return false;
  if (self.startTime === undefined) return true;
  const stat = await readStat(files, String(holder.pid));
  // Hidden from this user (/proc mounted with hidepid): its identity cannot be checked, so it counts as running.
  if (stat === undefined) return true;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return holder.startTime === undefined || holder.startTime === stat.startTime;
}

interface Stat {
  readonly pid: number;
  /** R, S, D, … ; Z for a zombie (exited, not yet reaped), X when dead. */
  readonly state: string;
  readonly startTime: string;
}

/** `/proc/<pid>/stat`: "pid (comm) state ppid …", the start time being field 22. comm may hold spaces and ')'. */
async function readStat(files: FileSystem, pid: string): Promise<Stat | undefined> {
  const text = await readText(files, `/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[22 - 3];
  if (state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
  return { pid: Number.parseInt(text, 10), state, startTime };
}

/** A file of /proc, or undefined where there is none (macOS) or it cannot be read. */
const readText = (files: FileSystem, path: string): Promise<string | undefined> =>
  files.readFile(path).then(
    (bytes) => bytes.toString('utf8').trim(),
    () => undefined,
  );

/** Whether a process with this pid exists (in this PID namespace), whoever it is. */
export function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
