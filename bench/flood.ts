/**
 * A paced load run in a process of its own, on request: fork this file with `floodProcess`. The process that times
 * the valid requests then does not also read the flood's answers, which would delay its reading of the answers it
 * times and count that against the server.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { combine, type LoadResult } from './load.js';
import { type PacedOptions, runPaced } from './paced.js';

/** One paced run; request n carries `Authorization: Token ${keyPrefix}-${n}`. */
export type FloodRun = Omit<PacedOptions, 'authorization'> & { keyPrefix: string };

type Reply = { load: LoadResult } | { error: string };

export interface FloodProcess {
  run(options: FloodRun): Promise<LoadResult>;
  /** The runs since the last call, pooled (the latencies stay in the child). */
  pooled(): Promise<LoadResult>;
  stop(): void;
}

export function floodProcess(): FloodProcess {
  // `fork` passes this process's execArgv on: the child loads TypeScript the way this one does.
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = (message: FloodRun | 'pooled') =>
    new Promise<LoadResult>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the flood process exited (${code})`));
      child.once('exit', exited);
      child.once('message', (reply: Reply) => {
        child.off('exit', exited);
        if ('error' in reply) reject(new Error(reply.error));
        else resolve(reply.load);
      });
      child.send(message);
    });
  return { run: ask, pooled: () => ask('pooled'), stop: () => void child.kill() };
}

if (process.argv.includes('--child')) {
  const runs: LoadResult[] = [];
  const reply = (message: Reply) => process.send?.(message);
  process.on('message', (message: FloodRun | 'pooled') => {
    if (message === 'pooled') return reply({ load: combine(runs.splice(0)) });
    const { keyPrefix, ...options } = message;
    runPaced({ ...options, authorization: (n) => `Token ${keyPrefix}-${n}` }).then(
      (load) => {
        runs.push(load);
        reply({ load });
      },
      (error: Error) => reply({ error: error.message }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
