import { fileURLToPath } from 'node:url';

/** Repository root (the folder holding package.json). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export const PATH = '/api/user';
export const API_KEY = 'dev-customer-key';
export const HEADERS: Record<string, string> = {
  Authorization: `Token ${API_KEY}`,
  'Content-Type': 'application/json',
};
export const GET_BODY = JSON.stringify({ name: 'Customer A', user_group_id: 'customer-a' });

/** How long and how often everything runs; `--quick` trades precision for a run under 60 s. */
export interface Settings {
  quick: boolean;
  connections: number;
  /** Rounds of ceiling / ours / Prism. */
  rounds: number;
  /** Within a round, the slices that ceiling and ours each run in turn (ABBA order). */
  slices: number;
  warmupSeconds: number;
  /** Per round and target, GET get-or-create. */
  getSeconds: number;
  /** Per round, each of ours' create / update / rotate. */
  opSeconds: number;
  /** Per store size and operation (durable store). */
  durableSeconds: number;
  durableSizes: number[];
  startupRuns: number;
  /** Per server; start-up stops early (after at least one run) once this is spent. */
  startupBudgetMs: number;
  /** Whether to seed and start with 1M stored groups. */
  million: boolean;
  validationCalls: number;
}

export function settings(quick: boolean): Settings {
  return quick
    ? {
        quick,
        connections: 10,
        rounds: 1,
        slices: 2,
        warmupSeconds: 0.5,
        getSeconds: 1.5,
        opSeconds: 1,
        durableSeconds: 1,
        durableSizes: [1_000, 10_000, 100_000],
        startupRuns: 3,
        startupBudgetMs: 8_000,
        million: false,
        validationCalls: 200_000,
      }
    : {
        quick,
        connections: 10,
        rounds: 5,
        slices: 4,
        warmupSeconds: 2,
        getSeconds: 5,
        opSeconds: 3,
        durableSeconds: 6,
        durableSizes: [1_000, 10_000, 100_000],
        startupRuns: 10,
        startupBudgetMs: 60_000,
        million: true,
        validationCalls: 500_000,
      };
}
