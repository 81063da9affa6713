import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import type { Env } from './flags.js';
import { onStopSignals } from './runUntilStopped.js';

/** Set in the child that `colourless` starts, so that it runs the command itself. */
const childMark = 'USER_GROUP_MOCK_COLOURLESS_CHILD';

/**
 * Whether a command's output may carry colour: only on a terminal, and not when `NO_COLOR` is set to anything
 * (https://no-color.org). The child that `colourless` started writes into a pipe that is stripped, so it may.
 */
export function colourWanted(env: Env, isTty: boolean | undefined): boolean {
  if (env[childMark] === '1') return true;
  return isTty === true && (env.NO_COLOR ?? '') === '';
}

/**
 * Runs this command line again in a child process and copies its stdout and stderr here without ANSI escape
 * sequences, line by line; resolves with its exit code. For output this process cannot colour or not: Pact's native
 * verifier writes its report straight to the file descriptor, always in colour, and ignores NO_COLOR. The child has
 * a process group of its own and SIGINT and SIGTERM are passed to it once, so that it stops the way it would alone
 * (removing its tenant first); a child that a signal ended ends this process with the same signal.
 */
export async function colourless(argv: readonly string[], env: Env): Promise<number> {
  // Loaded here, for `verify` alone: the other commands start without readline.
  const { createInterface } = await import('node:readline');
  const copyStripped = (from: NodeJS.ReadableStream, to: NodeJS.WritableStream) =>
    createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) =>
      to.write(`${stripVTControlCharacters(line)}\n`),
    );
  const script = process.argv[1] as string;
  const child = spawn(process.execPath, [...process.execArgv, script, ...argv], {
    env: { ...env, [childMark]: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  copyStripped(child.stdout, process.stdout);
  copyStripped(child.stderr, process.stderr);
  const offSignals = onStopSignals((signal) => child.kill(signal));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      offSignals();
      if (signal !== null) process.kill(process.pid, signal);
      resolve(code ?? 1);
    });
  });
}
