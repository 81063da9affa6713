import { median } from './load.js';
import type { ServerProcess } from './proc.js';

export interface Startup {
  medianMs: number;
  samplesMs: number[];
}

/** Launch-to-first-200 of `start`, one process at a time: `runs` times, fewer once `budgetMs` is spent. */
export async function measureStartup(
  start: () => Promise<ServerProcess>,
  runs: number,
  budgetMs: number,
): Promise<Startup> {
  const began = performance.now();
  const samplesMs: number[] = [];
  while (samplesMs.length < runs && (samplesMs.length === 0 || performance.now() - began < budgetMs)) {
    const server = await start();
    samplesMs.push(server.startupMs);
    await server.stop();
  }
  return { medianMs: median(samplesMs), samplesMs };
}
