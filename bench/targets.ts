import type { Row } from './table.js';

export interface Target {
  text: string;
  /** true met, false missed, undefined when the row lacks a figure it needs. */
  check: (row: Row) => boolean | undefined;
}

/** All of `checks`: missed if one misses, otherwise not judged if one cannot be judged. */
const all = (...checks: (boolean | undefined)[]): boolean | undefined =>
  checks.includes(false) ? false : checks.includes(undefined) ? undefined : true;

const atMost = (limit: number, figure?: number) => (figure === undefined ? undefined : figure <= limit);
const atLeast = (limit: number, figure?: number) => (figure === undefined ? undefined : figure >= limit);

export const TARGETS = {
  getOrCreate: {
    text: '≥0.85× ceiling, ≥6× Prism, p99 ≤ 5 ms',
    check: (row) => all(atLeast(0.85, row.vsCeiling), atLeast(6, row.vsPrism), atMost(5, row.load?.p99)),
  },
  startup: { text: '≤ 150 ms', check: (row) => atMost(150, row.value) },
  durableCreates10k: { text: '≥ 1,000 req/s', check: (row) => atLeast(1_000, row.load?.rps) },
  durableP99At100k: { text: 'p99 ≤ 100 ms', check: (row) => atMost(100, row.load?.p99) },
  startup100k: { text: '< 1 s', check: (row) => (row.value === undefined ? undefined : row.value < 1_000) },
  idleRss: { text: '≤ 80 MB', check: (row) => atMost(80, row.value) },
  millionRss: { text: '< 1 GB', check: (row) => (row.value === undefined ? undefined : row.value < 1_024) },
  validation: { text: '< 5 µs', check: (row) => (row.value === undefined ? undefined : row.value < 5) },
  proxyCost: { text: '≤ 0.5 ms', check: (row) => atMost(0.5, row.value) },
  unknownKeys: { text: 'p99 ≤ 2× alone', check: (row) => atMost(2, row.value) },
} satisfies Record<string, Target>;

/** The row with its target and verdict filled in (unchanged without a target). */
export function judge(row: Row, target?: Target): Row {
  return target === undefined ? row : { ...row, target: target.text, met: target.check(row) };
}
