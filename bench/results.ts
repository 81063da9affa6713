import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT, type Settings } from './config.js';
import type { Row } from './table.js';

/** The machine a run measured: every figure depends on it. */
export interface Machine {
  cores: number;
  cpu: string;
  /** Total memory, GiB. */
  memoryGiB: number;
  /** One-minute load average when the run began: other work on the machine skews every figure. */
  loadAverage: number;
}

/** `bench/results.json`: what `npm run bench` measured, and where; the README's table is made from it. */
export interface BenchResults {
  /** When the run ended (ISO 8601). */
  date: string;
  /** `process.version` of the run. */
  node: string;
  machine: Machine;
  /** How long the run took, seconds. */
  seconds?: number;
  settings: Settings;
  rows: Row[];
}

/** A full run's results are committed; a quick run's are written beside them and ignored by git. */
export const resultsFile = (quick: boolean): string =>
  join(ROOT, quick ? 'bench/results-quick.json' : 'bench/results.json');

export function thisMachine(): Machine {
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model.trim() ?? 'unknown CPU',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

export function readResults(file = resultsFile(false)): BenchResults {
  return JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
}

/** `2 cores (AMD EPYC), 23.5 GiB, Node v20.20.2, load average 2.11 at start`. */
export function describeMachine({ machine, node }: Pick<BenchResults, 'machine' | 'node'>): string {
  return (
    `${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB.toFixed(1)} GiB, Node ${node}, ` +
    `load average ${machine.loadAverage.toFixed(2)} at start`
  );
}
