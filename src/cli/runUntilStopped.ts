import { once } from 'node:events';
import { product } from '../errors.js';
import { pidIsAlive } from '../store/processIdentity.js';
import { commandLine, type Env } from './flags.js';

/** A command that serves until SIGINT or SIGTERM (serve, proxy): the parts in which they differ. */
export interface ServingCommand<
  Args extends { readonly help: boolean },
  Server extends { close(): Promise<void> },
> {
  /** argv and env to the command's options; throws an Error whose message names the bad flag and the fix. */
  parse(argv: readonly string[], env: Env): Args;
  help(): string;
  start(args: Args): Promise<Server>;
  exitCodeOf(error: unknown): number;
  /** What stdout says once it serves (ending with a newline): printed lines mean "ready and stoppable". */
  readyLines(server: Server, args: Args): string;
  /** What the shutdown waits for, ending the stop line: "SIGTERM received; finishing in-flight requests". */
  readonly stopping: string;
  /** The whole line that says why the shutdown failed, when the command knows better than the error's message. */
  shutdownFailure?(error: unknown): string | undefined;
}

/**
 * Runs a serving command: its options (exit 2 when wrong), its help, then the server until a signal, then a clean
 * shutdown (exit 0; 1 when it fails). Signals are handled before anything is opened: a stop asked for during
 * start-up waits for the start to finish and then shuts down cleanly.
 */
export async function runUntilStopped<
  Args extends { readonly help: boolean },
  Server extends { close(): Promise<void> },
>(command: ServingCommand<Args, Server>, argv: readonly string[], env: Env): Promise<number> {
  const args = commandLine(() => command.parse(argv, env), command.help);
  if (typeof args === 'number') return args;
  const { stopped, dispose } = stopSignal(env.npm_command === undefined ? undefined : process.ppid);
  let server: Server;
  try {
    server = await command.start(args);
  } catch (error) {
    dispose();
    process.stderr.write(`${(error as Error).message}\n`);
    return command.exitCodeOf(error);
  }
  if (!stopped.aborted) {
    process.stdout.write(command.readyLines(server, args));
    await once(stopped, 'abort');
  }
  process.stderr.write(`${product}: ${stopped.reason}; ${command.stopping}\n`);
  try {
    await server.close();
    return 0;
  } catch (error) {
    const line =
      command.shutdownFailure?.(error) ??
      `${product}: could not shut down cleanly: ${(error as Error).message}`;
    process.stderr.write(`${line}\n`);
    return 1;
  } finally {
    dispose();
  }
}

/** How often the process that started this one is looked for. */
const parentPollMs = 500;

/**
 * SIGINT and SIGTERM, from now on, and the end of the process that started this one: `stopped` aborts on the
 * first, its reason said in words ("SIGTERM received"). The handlers stay until `dispose`, so that a second signal during
 * the shutdown does not kill the process half way (the shutdown is bounded).
 *
 * The launcher (`parent`) is watched when npm started this process (`npx`, `npm exec`, `npm start`, `npm run`: npm
 * sets `npm_command`), because npm runs the command through `sh -c`: told to stop, npm passes the signal to that
 * shell alone, which ends without passing it on, and the server would run on, holding its port and its lock.
 * Started otherwise (`user-group-mock serve &` in a CI step, a supervisor), it outlives its parent as any server
 * does. A parent that is PID 1 (an init, a container's entry point) or none (this process is PID 1 itself) is not
 * watched: it never goes away while this process runs.
 */
function stopSignal(parent: number | undefined): { readonly stopped: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  // Only the first reason counts: aborting an aborted signal changes nothing.
  const stop = (reason: string): void => controller.abort(reason);
  const offSignals = onStopSignals((name) => stop(`${name} received`));
  const watch =
    parent !== undefined && parent > 1
      ? setInterval(() => {
          if (parentGone(parent)) stop(`the process that started it (pid ${parent}) has gone`);
        }, parentPollMs).unref()
      : undefined;
  return {
    stopped: controller.signal,
    dispose: () => {
      offSignals();
      clearInterval(watch);
    },
  };
}

/**
 * Whether the parent has ended: this process was handed to another (an init or a subreaper), or no process has
 * its id any more (where the parent id is not updated, as on Windows).
 */
const parentGone = (parent: number): boolean => process.ppid !== parent || !pidIsAlive(parent);

/** Calls `handler` on SIGINT and SIGTERM until the function it returns is called. */
export function onStopSignals(handler: (signal: NodeJS.Signals) => void): () => void {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
