import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { lock } from 'proper-lockfile';
import { type BuiltImage, buildImage, type Engine, findEngine } from '../../scripts/containerImage.js';
import { call } from './http.js';

const exec = promisify(execFile);

/**
 * The engine the container tests use (podman, or docker when its engine answers). podman is given the committed
 * deploy/podman/containers.conf unless CONTAINERS_CONF names another: the settings root podman needs on a host
 * without systemd or a unified cgroup hierarchy, harmless elsewhere.
 */
export const engine: Engine | undefined = findEngine();
process.env.CONTAINERS_CONF ??= new URL('../../deploy/podman/containers.conf', import.meta.url).pathname;

/** On CI the container tests must run; elsewhere they are skipped when neither podman nor docker is here. */
export const containersRequired = process.env.CI === 'true';

export const engineMissing =
  'user-group-mock: neither podman nor a docker engine is here (apt-get install -y podman runc): the container tests are skipped';

const cache = new URL('../../node_modules/.cache/user-group-mock/', import.meta.url).pathname;

/**
 * The image of this checkout, built by one test file at a time: vitest runs the container test files in parallel
 * processes, and the first build (and, where docker.io is out of reach, the making of the base) must happen once,
 * the other files then finding every layer in the engine's cache. The build blocks its process, so the lock is
 * declared stale only after 30 minutes.
 */
export async function builtImage(): Promise<BuiltImage> {
  mkdirSync(cache, { recursive: true });
  const release = await lock(cache, {
    lockfilePath: `${cache}image.lock`,
    stale: 1_800_000,
    retries: { retries: 1_800, minTimeout: 1_000, maxTimeout: 1_000 },
  });
  try {
    return buildImage(engine, true);
  } finally {
    await release();
  }
}

/** Runs the engine with `args`; resolves with its stdout (trimmed), rejects naming the command and its stderr. */
export async function container(args: readonly string[], timeoutMs = 60_000): Promise<string> {
  if (engine === undefined) throw new Error(engineMissing);
  try {
    const { stdout } = await exec(engine, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(`${engine} ${args.join(' ')} failed: ${stderr?.trim() || message}`);
  }
}

/**
 * Waits (bounded) until `GET /__admin/health/live` at `url` answers 200; resolves with the milliseconds waited.
 * Rejects after `withinMs` with the container's logs, so that a mock that refused to start says why.
 */
export async function waitLive(url: string, name: string, withinMs = 30_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    const answer = await call(url, 'GET', '/__admin/health/live', { headers: {} }).catch(() => undefined);
    if (answer?.status === 200) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const logs = await logsOf(name).catch((error: Error) => error.message);
  throw new Error(
    `user-group-mock: ${name} did not answer ${url}/__admin/health/live within ${withinMs} ms:\n${logs}`,
  );
}

/** What the container wrote, stdout and stderr together (the engine replays its stderr on its own stderr). */
export async function logsOf(name: string): Promise<string> {
  if (engine === undefined) throw new Error(engineMissing);
  const { stdout, stderr } = await exec(engine, ['logs', name], { timeout: 30_000 });
  return `${stdout}${stderr}`;
}

/** The container's state: `running`, `exited`, ..., and its exit code. */
export async function stateOf(name: string): Promise<{ status: string; exitCode: number }> {
  const [status, exitCode] = (
    await container(['inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', name])
  ).split(' ');
  return { status: status as string, exitCode: Number(exitCode) };
}

/** Waits (bounded) until the container has exited and the engine has cleaned up after it; resolves with its state. */
export async function waitExited(
  name: string,
  withinMs = 30_000,
): Promise<{ status: string; exitCode: number }> {
  const started = Date.now();
  for (;;) {
    const state = await stateOf(name);
    if (state.status === 'exited' || Date.now() - started > withinMs) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The Docker API Testcontainers talks to, as the environment to give it: with podman, the one `podman system service`
 * serves on a socket of its own for the caller (`stop` ends it). Its reaper container (Ryuk) is an image of
 * docker.io, so it is turned off: the callers stop their containers themselves.
 */
export async function dockerApi(): Promise<{ env: Record<string, string>; stop: () => void }> {
  if (engine !== 'podman') return { env: {}, stop: () => undefined };
  const socket = join(tmpdir(), `ugm-podman-${process.pid}-${Date.now()}.sock`);
  const service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !existsSync(socket); i++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  if (!existsSync(socket)) {
    service.kill();
    throw new Error(`user-group-mock: podman system service did not open ${socket} in 10 s`);
  }
  return {
    env: { DOCKER_HOST: `unix://${socket}`, TESTCONTAINERS_RYUK_DISABLED: 'true' },
    stop: () => service.kill(),
  };
}
