import autocannon from 'autocannon';
import { HEADERS } from './config.js';

export interface LoadResult {
  /** Completed requests per second. */
  rps: number;
  /** Latency percentiles in ms; infinite when no request completed. */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  requests: number;
}

export interface LoadOptions {
  url: string;
  requests: autocannon.Request[];
  connections?: number;
  /** Stops after `seconds`, or after `maxRequests` if that comes first. */
  seconds: number;
  maxRequests?: number;
}

/** One bounded autocannon run against `url`. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  // autocannon's histogram has 1 ms resolution and its duration runs to the next sample tick, so keep every
  // latency (sub-millisecond percentiles) and time the run from start to its last response.
  const latencies: number[] = [];
  const started = performance.now();
  let lastResponse = started;
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 10,
    duration: options.seconds,
    maxOverallRequests: options.maxRequests,
    sampleInt: 100, // autocannon notices the end of `duration` only at a sample tick
    timeout: 10,
    headers: HEADERS,
    requests: options.requests,
  }).on('response', (_client, _status, _bytes, ms) => {
    latencies.push(ms);
    lastResponse = performance.now();
  });
  return loadResult(latencies, (lastResponse - started) / 1_000, result.non2xx, result.errors);
}

/** The figures of one run from its latencies (ms) over `seconds`; the latencies are kept for `combine`. */
export function loadResult(latencies: number[], seconds: number, non2xx: number, errors: number): LoadResult {
  const sorted = Float64Array.from(latencies).sort();
  const load = {
    rps: sorted.length / Math.max(seconds, 0.001),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    non2xx,
    errors,
    requests: sorted.length,
  };
  samples.set(load, sorted);
  return load;
}

/** Each run's latencies, sorted, so that rounds can be pooled (kept out of the result, which is written as JSON). */
const samples = new WeakMap<LoadResult, Float64Array>();

const percentile = (sorted: Float64Array, p: number): number =>
  sorted[Math.ceil((p / 100) * sorted.length) - 1] ?? Number.POSITIVE_INFINITY;

/**
 * The order in which `a` and `b` run `slices` slices each in one round: ABBA..., starting with `b` in odd rounds, so
 * that each runs first in as many pairs as the other and neither gains from going first or second.
 */
export function inTurn<T>(a: T, b: T, slices: number, round = 0): T[] {
  return Array.from({ length: slices }, (_, slice) => ((round + slice) % 2 === 0 ? [a, b] : [b, a])).flat();
}

/**
 * One round of `a` against `b`: `slices` runs of each, `seconds / slices` long, in the order `inTurn` gives, combined
 * per side; undefined for a side of which a run failed (`measure` resolved undefined).
 */
export async function pairedRound<T>(
  a: T,
  b: T,
  slices: number,
  round: number,
  seconds: number,
  measure: (side: T, seconds: number) => Promise<LoadResult | undefined>,
): Promise<[LoadResult | undefined, LoadResult | undefined]> {
  const runs = new Map<T, LoadResult[]>([
    [a, []],
    [b, []],
  ]);
  const failed = new Set<T>();
  for (const side of inTurn(a, b, slices, round)) {
    const result = await measure(side, seconds / slices);
    if (result === undefined) failed.add(side);
    else runs.get(side)?.push(result);
  }
  const of = (side: T) => (failed.has(side) ? undefined : combine(runs.get(side) ?? []));
  return [of(a), of(b)];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Rounds of one target as one figure: mean req/s, p50 and p99 over every request of every round, summed failures. */
export function combine(rounds: LoadResult[]): LoadResult {
  const sum = (pick: (r: LoadResult) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  const pooled = new Float64Array(sum((r) => samples.get(r)?.length ?? 0));
  let filled = 0;
  for (const round of rounds) {
    const latencies = samples.get(round) ?? new Float64Array();
    pooled.set(latencies, filled);
    filled += latencies.length;
  }
  pooled.sort();
  const combined = {
    rps: sum((r) => r.rps) / rounds.length,
    p50: percentile(pooled, 50),
    p99: percentile(pooled, 99),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    requests: sum((r) => r.requests),
  };
  samples.set(combined, pooled); // so that combined runs (the slices of a round) can be pooled again
  return combined;
}
