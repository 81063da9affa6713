import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { builtBin, packageRoot, runBuiltCli } from '../../support/builtCli.js';
import { call } from '../../support/http.js';
import { useTempDir } from '../../support/tempDir.js';

const tempDir = useTempDir('launcher');
const started = new Set<ChildProcess>();
/** Mocks signalled by process id (inside a PID namespace), in case a test ends before stopping one. */
const inner = new Set<number>();
afterEach(() => {
  for (const child of started) child.kill('SIGKILL');
  started.clear();
  for (const pid of inner) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  inner.clear();
});

/** Whether something accepts connections on the port (the mock still holding it). */
const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * A scratch project with the built package installed as npm installs it (a link in node_modules and its bin in
 * node_modules/.bin), for `npx user-group-mock` to find.
 */
function scratchProject(): string {
  const project = tempDir();
  writeFileSync(join(project, 'package.json'), '{"name":"scratch","version":"1.0.0","private":true}');
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(packageRoot, join(project, 'node_modules', 'user-group-mock'), 'dir');
  symlinkSync(
    join('..', 'user-group-mock', builtBin),
    join(project, 'node_modules', '.bin', 'user-group-mock'),
  );
  return project;
}

/** The mock's address, from its "listening on" line among npm's own. */
function listeningLine(child: ChildProcess): Promise<URL> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const url = /^user-group-mock listening on (http:\/\/\S+)$/.exec(line)?.[1];
      if (url !== undefined) resolve(new URL(url));
    });
    child.once('exit', (code) =>
      reject(new Error(`the launcher exited (${code}) before the mock listened: ${stderr}`)),
    );
  });
}

const launchers = [
  {
    name: 'npx user-group-mock serve, in a project that installed the package',
    launch: (db: string) =>
      spawn('npx', ['--no', 'user-group-mock', 'serve', '--port', '0', '--db', db, '--log-level', 'silent'], {
        cwd: scratchProject(),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
  },
  {
    name: 'npm start, in the package',
    launch: (db: string) =>
      spawn('npm', ['start', '--', 'serve', '--port', '0', '--db', db, '--log-level', 'silent'], {
        cwd: packageRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
  },
];

describe('a mock started through npm', () => {
  it.each(launchers)(
    'frees its port and its lock within 5 s of SIGTERM to the launcher: $name',
    async ({ launch }) => {
      const db = join(tempDir(), 'db.json');
      const launcher = launch(db);
      started.add(launcher);
      const url = await listeningLine(launcher);
      const port = Number(url.port);
      expect((await call(url.origin, 'GET', '/__admin/health')).status).toBe(200);
      expect(existsSync(`${db}.lock`)).toBe(true);
      launcher.kill('SIGTERM');
      const deadline = Date.now() + 5_000;
      while ((existsSync(`${db}.lock`) || (await listening(port))) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect({ lock: existsSync(`${db}.lock`), listening: await listening(port) }).toEqual({
        lock: false,
        listening: false,
      });
    },
    30_000,
  );
});

const cannotUnshare =
  spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0
    ? undefined
    : 'unshare --pid --fork is not available here';

describe.skipIf(cannotUnshare !== undefined)('a mock that is PID 1 (a container entry point)', () => {
  it('keeps serving with no parent to watch, and stops on SIGTERM', async () => {
    const cli = runBuiltCli(
      ['serve', '--port', '0', '--in-memory', '--log-level', 'silent'],
      ['unshare', '--pid', '--fork', '--mount-proc'],
    );
    started.add(cli.child);
    const url = /listening on (http:\/\/\S+)$/.exec(await cli.firstLine)?.[1] as string;
    // Several rounds of the launcher check: a process with no parent (ppid 0) must not take that as its end.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await call(url, 'GET', '/__admin/health')).status).toBe(200);
    // unshare passes no signal on: the mock, its child, is signalled itself.
    const unshare = cli.child.pid as number;
    const mock = Number(readFileSync(`/proc/${unshare}/task/${unshare}/children`, 'utf8').trim());
    inner.add(mock);
    process.kill(mock, 'SIGTERM');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(cli.stderr()).toContain('SIGTERM received');
  }, 30_000);
});

describe('a mock started without npm', () => {
  it('outlives the shell that started it in the background, as a server does, and stops on its own SIGTERM', async () => {
    const dir = tempDir();
    const db = join(dir, 'db.json');
    const out = join(dir, 'out.log');
    // npm's own variables (vitest may run under npm test) would make the mock take its parent for npm.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
    const shell = spawnSync(
      'sh',
      [
        '-c',
        `"${process.execPath}" "${join(packageRoot, builtBin)}" serve --port 0 --db "${db}" --log-level silent >"${out}" 2>&1 & echo $!`,
      ],
      { env, encoding: 'utf8' },
    );
    const pid = Number(shell.stdout.trim());
    inner.add(pid);
    let url: string | undefined;
    for (const deadline = Date.now() + 15_000; url === undefined && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      url = /listening on (http:\/\/\S+)/.exec(existsSync(out) ? readFileSync(out, 'utf8') : '')?.[1];
    }
    expect(url).toBeDefined();
    // The shell has ended: several rounds of the launcher check must not take that as a reason to stop.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await call(url as string, 'GET', '/__admin/health')).status).toBe(200);
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 5_000;
    while (existsSync(`${db}.lock`) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(`${db}.lock`)).toBe(false);
    expect(readFileSync(out, 'utf8')).toContain('SIGTERM received');
  }, 30_000);
});
