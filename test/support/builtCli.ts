import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('package.json', `file://${packageRoot}`), 'utf8')) as {
  bin: Record<string, string>;
};
/** The built command line as installed users run it: the bundle `npm run build` writes (never the sources). */
export const builtBin = pkg.bin['user-group-mock'] as string;

export interface BuiltCli {
  readonly child: ChildProcess;
  /** The first stdout line; rejects when the process exits before writing one. */
  readonly firstLine: Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything written to stderr so far. */
  stderr(): string;
}

/** Children still running: killed when the test process exits, so that none outlives its test. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Runs `node dist/bin/main.js ARGS` from the package root, without the USER_GROUP_MOCK_* variables of this
 * process; `wrapper` (e.g. `['unshare', '--pid', '--fork', '--mount-proc']`) runs it inside another command.
 */
export function runBuiltCli(args: readonly string[], wrapper: readonly string[] = []): BuiltCli {
  const [command = process.execPath, ...rest] = [...wrapper, process.execPath, builtBin, ...args];
  const child = spawn(command, rest, {
    cwd: packageRoot,
    env: Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('USER_GROUP_MOCK_')),
    ),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  const firstLine = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    void exited.then(({ code, signal }) =>
      reject(
        new Error(`the built CLI exited (code ${code}, signal ${signal}) before its first line: ${stderr}`),
      ),
    );
  });
  firstLine.catch(() => undefined);
  return { child, firstLine, exited, stderr: () => stderr };
}
