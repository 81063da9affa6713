import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository root: children run the current source with tsx from here (never a stale dist/). */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `cli`: `node --import tsx src/cli/main.ts serve --port 0 --db PATH --log-level silent` exactly as a user runs it.
 * `compacting`: the same mock in a child that compacts after a few records (`compactAfter` has no flag), so
 * that kills also land in the middle of a compaction.
 */
export type MockEntry =
  | { readonly kind: 'cli'; readonly args?: readonly string[] }
  | { readonly kind: 'compacting'; readonly compactAfter: number };

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

/** Children still running: killed when the test process exits, so that no mock outlives its test. */
const live = new Set<ChildProcess>();
export function killAllMockProcesses(): void {
  for (const child of live) child.kill('SIGKILL');
}
process.once('exit', killAllMockProcesses);

export function startMockProcess(db: string, entry: MockEntry, readyTimeoutMs = 30_000): MockProcess {
  const script =
    entry.kind === 'cli'
      ? [
          'src/cli/main.ts',
          'serve',
          '--port',
          '0',
          '--db',
          db,
          '--log-level',
          'silent',
          ...(entry.args ?? []),
        ]
      : ['test/support/compactingMock.ts', db, String(entry.compactAfter)];
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('USER_GROUP_MOCK_')),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', ...script], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stderr = '';
  let ready = false;
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const readyPromise = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the mock did not start within ${readyTimeoutMs} ms`)),
      readyTimeoutMs,
    );
    lines.once('line', (line) => {
      clearTimeout(timer);
      const url = listening.exec(line)?.[1];
      if (url === undefined) reject(new Error(`unexpected first stdout line: ${line}`));
      else {
        ready = true;
        resolve(url);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(`the mock exited (code ${code}, signal ${signal}) before listening: ${stderr.trim()}`),
      );
    });
  });
  readyPromise.catch(() => undefined);
  return { child, ready: readyPromise, exited, stderr: () => stderr, isReady: () => ready };
}
