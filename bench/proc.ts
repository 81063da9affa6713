import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { getOrCreate } from './client.js';
import { ROOT } from './config.js';

/** A server child process that has answered 200 to a GET get-or-create. */
export interface ServerProcess {
  name: string;
  url: string;
  pid: number;
  /** Launch to first 200, in ms. */
  startupMs: number;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  /** Must match the first stdout line; group 1 is the base URL. Without it, `port` is polled. */
  readyLine?: RegExp;
  port?: number;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * `env` without NODE_EXTRA_CA_CERTS: Node 20 reads and parses every certificate of that file when any Node process
 * launches, before its first line of code (Node 24 waits for the first TLS connection). On a machine that sets it
 * for its own reasons, a start-up time would measure that file; the start-up rows also show ours with it set.
 */
export function withoutExtraCerts(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'NODE_EXTRA_CA_CERTS'));
}

const live = new Set<ChildProcess>();

/** Spawns a server and waits until it answers a GET get-or-create with 200. */
export async function spawnServer(options: SpawnOptions): Promise<ServerProcess> {
  const started = performance.now();
  const deadline = started + (options.timeoutMs ?? 30_000);
  const child = spawn(options.command, options.args, {
    cwd: ROOT,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let tail = '';
  const remember = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-2_000);
  };
  child.stderr?.on('data', remember);
  const failed = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      reject(new Error(`${options.name} exited (${signal ?? code}): ${tail.trim().slice(-300)}`)),
    );
  });
  failed.catch(() => {}); // Also rejects at the normal stop; only relevant while racing below.
  try {
    const url = await Promise.race([announcedUrl(child, options, deadline), failed]);
    child.stdout?.on('data', remember);
    await Promise.race([untilOk(url, deadline, options.name), failed]);
    const startupMs = performance.now() - started;
    return { name: options.name, url, pid: child.pid ?? 0, startupMs, stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

function announcedUrl(child: ChildProcess, options: SpawnOptions, deadline: number): Promise<string> {
  const { readyLine, port, name } = options;
  if (!readyLine) {
    child.stdout?.resume();
    return Promise.resolve(`http://127.0.0.1:${port}`);
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.stdout?.off('data', onData);
      reject(new Error(`${name} printed no first line in time`));
    }, deadline - performance.now());
    timer.unref();
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      const first = text.slice(0, end).replace(/\r$/, '');
      const match = readyLine.exec(first);
      if (match?.[1]) resolve(match[1]);
      else reject(new Error(`${name}: unexpected first stdout line ${JSON.stringify(first)}`));
    };
    child.stdout?.on('data', onData);
  });
}

async function untilOk(url: string, deadline: number, name: string): Promise<void> {
  let last = 'no answer';
  while (performance.now() < deadline) {
    try {
      const reply = await getOrCreate(url);
      if (reply.status === 200) return;
      last = `status ${reply.status}: ${reply.body.slice(0, 200)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(5);
  }
  throw new Error(`${name} did not answer 200 in time (${last})`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }
  live.delete(child);
}

/** Stops every child still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map(stopChild));
}

/** Kills children on exit and on SIGINT / SIGTERM, so none outlives the run. */
export function installCleanup(): void {
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void stopAll().finally(() => process.exit(130));
    });
  }
}

/** A port that was free a moment ago, for CLIs that cannot report the one they bound. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const TICK_MS = 1_000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim() || 100);

/**
 * From /proc/PID/stat (Linux): the parent, the process's CPU time (user and system, every thread) and that of its
 * reaped children, in ms; undefined when the process is gone or there is no /proc.
 */
export function procTimes(pid: number): { parent: number; own: number; reaped: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: the fields after it are counted from there.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const field = (n: number) => Number(fields[n - 3]);
  return {
    parent: field(4),
    own: (field(14) + field(15)) * TICK_MS,
    reaped: (field(16) + field(17)) * TICK_MS,
  };
}

/** CPU time (user and system) of these processes so far, in ms (NaN without /proc). */
export function cpuMs(...pids: number[]): number {
  return pids.reduce((sum, pid) => sum + (procTimes(pid)?.own ?? Number.NaN), 0);
}
