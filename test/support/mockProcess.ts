import type { ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type BuiltCli, builtBin, packageRoot, runBuiltCli } from './builtCli.js';

/** The repository root. */
export const repoRoot = packageRoot;

/** `serve --db PATH` of the built command line, with extra flags after the defaults. */
export interface MockEntry {
  readonly args?: readonly string[];
}

export interface MockProcess {
  readonly child: ChildProcess;
  /** Resolves with the URL from the first stdout line; rejects when the process exits before it. */
  readonly ready: Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything written to stderr so far. */
  stderr(): string;
  isReady(): boolean;
}

const listening = /^user-group-mock listening on (http:\/\/\S+)$/;

/** Children still running, for tests to kill in `afterAll`. */
const live = new Set<ChildProcess>();
export function killAllMockProcesses(): void {
  for (const child of live) child.kill('SIGKILL');
}

let checkedBuild = false;
/**
 * Refuses to test a stale build: the built command line must be newer than every file of `src/` and `openapi/`
 * (`npm test` builds first; a single test file run after an edit needs `npm run build`).
 */
function assertBuildIsCurrent(): void {
  if (checkedBuild) return;
  const bin = join(packageRoot, builtBin);
  let built: number;
  try {
    built = statSync(bin).mtimeMs;
  } catch {
    throw new Error(`user-group-mock: ${bin} is missing; run \`npm run build\` before this test.`);
  }
  for (const folder of ['src', 'openapi']) {
    for (const name of readdirSync(join(packageRoot, folder), { recursive: true, encoding: 'utf8' })) {
      const path = join(packageRoot, folder, name);
      if (statSync(path).mtimeMs > built)
        throw new Error(
          `user-group-mock: ${path} is newer than the build ${bin}; run \`npm run build\` before this test.`,
        );
    }
  }
  checkedBuild = true;
}

/** The built command line with `args`, once the build is known current; killed by `killAllMockProcesses` until it exits. */
function runTracked(args: readonly string[]): BuiltCli {
  assertBuildIsCurrent();
  const cli = runBuiltCli(args);
  live.add(cli.child);
  void cli.exited.then(() => live.delete(cli.child));
  return cli;
}

/**
 * Starts `node dist/bin/main.js serve --port 0 --db PATH --log-level silent`: the built command exactly as a user
 * runs it, with none of the developer's USER_GROUP_MOCK_* variables.
 */
export function startMockProcess(db: string, entry: MockEntry = {}, readyTimeoutMs = 30_000): MockProcess {
  const cli = runTracked([
    'serve',
    '--port',
    '0',
    '--db',
    db,
    '--log-level',
    'silent',
    ...(entry.args ?? []),
  ]);
  let ready = false;
  const readyPromise = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the mock did not start within ${readyTimeoutMs} ms`)),
      readyTimeoutMs,
    );
    cli.firstLine.then(
      (line) => {
        clearTimeout(timer);
        const url = listening.exec(line)?.[1];
        if (url === undefined) reject(new Error(`unexpected first stdout line: ${line}`));
        else {
          ready = true;
          resolve(url);
        }
      },
      (error: Error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
  readyPromise.catch(() => undefined);
  return {
    child: cli.child,
    ready: readyPromise,
    exited: cli.exited,
    stderr: cli.stderr,
    isReady: () => ready,
  };
}

export interface ProxyProcess {
  readonly child: ChildProcess;
  /** The proxy's URL, from its first stdout line. */
  readonly url: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

const proxyListening = /^user-group-mock proxy listening on (http:\/\/[^,\s]+), forwarding to /;

/** Starts `node dist/bin/main.js proxy --port 0 --log-level silent ARGS` and resolves once it listens. */
export async function startProxyProcess(args: readonly string[]): Promise<ProxyProcess> {
  const cli = runTracked(['proxy', '--port', '0', '--log-level', 'silent', ...args]);
  const line = await cli.firstLine;
  const url = proxyListening.exec(line)?.[1];
  if (url === undefined) throw new Error(`unexpected first stdout line of the proxy: ${line}`);
  return { child: cli.child, url, exited: cli.exited, stderr: cli.stderr };
}
