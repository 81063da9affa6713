import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const mainPath = new URL('../../src/cli/main.ts', import.meta.url).pathname;

export interface CliProcess {
  readonly child: ChildProcess;
  /** The stdout lines so far. */
  readonly lines: string[];
  readonly stderr: () => string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

/** Runs the CLI from source (so tests always run the current code). */
export function runCli(args: readonly string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', mainPath, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => lines.push(line));
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, lines, stderr: () => stderr, exited };
}

/** Starts `serve` and resolves with the URL from its first stdout line. */
export async function startCli(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliProcess & { url: string }> {
  const cli = runCli(['serve', ...args], env);
  const deadline = Date.now() + 15_000;
  while (cli.lines.length === 0) {
    if (cli.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`the CLI did not start: ${cli.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const match = /^user-group-mock listening on (http:\/\/\S+)$/.exec(cli.lines[0] ?? '');
  if (match?.[1] === undefined) throw new Error(`unexpected first line: ${cli.lines[0]}`);
  return { ...cli, url: match[1] };
}

export async function stopCli(cli: CliProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill(signal);
  return cli.exited;
}
