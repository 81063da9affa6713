import type { Environment } from '../domain/model.js';
import type { DivergenceCode } from '../model/divergences.js';
import type { JudgedCall } from './targets.js';

/** How a run ended: the service behaves as described, it does not, or the run could not be made. */
export type ConformOutcome = 'conforms' | 'diverges' | 'could-not-run';

export interface ConformResult {
  readonly outcome: ConformOutcome;
  /** Why the run could not be made. */
  readonly reason?: string;
  readonly targets: readonly string[];
  /** Each key's environment, given or learnt (the keys themselves are not kept). */
  readonly environments: readonly Environment[];
  readonly prefix: string;
  readonly seed: number;
  readonly runs: number;
  /** Calls made in all, probes and shrinking included. */
  readonly calls: number;
  /** The rules checked, by code. */
  readonly rules: readonly DivergenceCode[];
  /** The shortest sequence found that shows a divergence: its calls, the last one diverging. */
  readonly counterexample?: {
    readonly calls: readonly JudgedCall[];
    /** With `seed`, replays it (`--seed S --path P`). */
    readonly path: string;
  };
}
