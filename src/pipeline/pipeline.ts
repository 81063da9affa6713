import type { World } from '../domain/model.js';
import type { ApiError } from '../errors.js';
import type { KeyRing } from '../runtime/keyRing.js';
import type { RateLimiter } from '../runtime/rateLimiter.js';
import { authenticate } from './authenticate.js';
import { checkLimits } from './checkLimits.js';
import { checkMediaType } from './checkMediaType.js';
import { checkQuery } from './checkQuery.js';
import { checkSchema } from './checkSchema.js';
import { checkValues } from './checkValues.js';
import { parseBody } from './parseBody.js';
import type { PipelineRequest, Routed } from './pipelineRequest.js';

/**
 * What an entry point gives the steps: the keys (none: only the form of `Authorization` is judged), the groups (to
 * recognise a group token sent as the key), the rate limiter and the body limit.
 */
export interface Surface {
  readonly keys?: KeyRing | undefined;
  readonly store?: { readonly world: World } | undefined;
  readonly rateLimiter?: RateLimiter | undefined;
  readonly bodyLimit: number;
}

/** One step: the error to answer, or undefined to go on. */
export type Step<R extends PipelineRequest, S extends Surface = Surface> = (
  request: Routed<R>,
  surface: S,
) => ApiError | undefined;

/**
 * The request's way after the route, in order, written once. The header stage is decided from the headers alone,
 * before any body is read; the body stage runs once the body has arrived (`parseBody` first).
 */
const order = {
  authenticate,
  query: checkQuery,
  limits: checkLimits,
  mediaType: checkMediaType,
  values: checkValues,
  schema: checkSchema,
} as const;
export type StepName = keyof typeof order;
const headStage: readonly StepName[] = ['authenticate', 'query', 'limits', 'mediaType'];
const bodyStage: readonly StepName[] = ['values', 'schema'];

/** What an entry point changes of the way: steps it leaves out, steps it does its own way, and its mode. */
export interface Way<R extends PipelineRequest, S extends Surface> {
  readonly skip?: readonly StepName[];
  readonly own?: { readonly [N in StepName]?: Step<R, S> };
  /**
   * `first` stops at the first problem (what a server answers); `every` goes on through the header stage to name
   * every problem it can (the library). The body stage always stops at its first problem: each step needs the one
   * before it to have passed (a schema is checked against an object).
   */
  readonly mode: 'first' | 'every';
}

/**
 * One entry point's pipeline: the order above with its own steps in place, made once per kind of entry point (a
 * request walks two arrays by index over its one record, and allocates nothing for it). Each stage is synchronous.
 */
export class Pipeline<R extends PipelineRequest, S extends Surface = Surface> {
  readonly #head: readonly Step<R, S>[];
  readonly #body: readonly Step<R, S>[];
  readonly #every: boolean;

  constructor(way: Way<R, S>) {
    const steps = (names: readonly StepName[]): Step<R, S>[] =>
      names.filter((name) => !way.skip?.includes(name)).map((name) => way.own?.[name] ?? order[name]);
    this.#head = steps(headStage);
    this.#body = steps(bodyStage);
    this.#every = way.mode === 'every';
  }

  /** The header stage; in `every` mode each problem also goes to `found`, and the first is returned. */
  head(request: Routed<R>, surface: S, found?: ApiError[]): ApiError | undefined {
    const steps = this.#head;
    let first: ApiError | undefined;
    for (let i = 0; i < steps.length; i++) {
      const error = (steps[i] as Step<R, S>)(request, surface);
      if (error === undefined) continue;
      if (!this.#every) return error;
      found?.push(error);
      first ??= error;
    }
    return first;
  }

  /**
   * The body stage: the body parsed from its bytes or text (`raw`; undefined when the record already holds the
   * body as a value), then the value checks and the schema, up to the first problem (also put in `found`).
   */
  body(
    request: Routed<R>,
    surface: S,
    raw: Uint8Array | string | undefined,
    found?: ApiError[],
  ): ApiError | undefined {
    let error = raw === undefined ? undefined : parseBody(request, raw);
    const steps = this.#body;
    for (let i = 0; error === undefined && i < steps.length; i++)
      error = (steps[i] as Step<R, S>)(request, surface);
    if (error !== undefined) found?.push(error);
    return error;
  }
}
