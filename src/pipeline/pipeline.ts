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

/** What an entry point gives the steps: keys (none: only the form of `Authorization` is judged), groups, limits. */
export interface Surface {
  readonly keys?: KeyRing | undefined;
  /** The groups, to recognise a group token sent as the key. */
  readonly store?: { readonly world: World } | undefined;
  readonly rateLimiter?: RateLimiter | undefined;
  readonly bodyLimit: number;
}

/** One step over the routed record: the error to answer, or undefined to go on. */
export type Step<R extends PipelineRequest, S extends Surface> = (
  request: Routed<R>,
  surface: S,
) => ApiError | undefined;

/** The request's way after the route, in order, written once: the header stage, then (`parseBody` first) the body's. */
const steps = { authenticate, checkQuery, checkLimits, checkMediaType, checkValues, checkSchema };
const headStage = ['authenticate', 'checkQuery', 'checkLimits', 'checkMediaType'] as const;
const bodyStage = ['checkValues', 'checkSchema'] as const;

/**
 * One entry point's way: the steps above, with its `own` in place of some (null leaves one out), made once per kind
 * of entry point. `every` (the library) goes on through the header stage to name every problem; otherwise the first
 * problem stops it (a server's answer). The body stage always stops at its first: each step needs the one before.
 */
export class Pipeline<R extends PipelineRequest, S extends Surface = Surface> {
  readonly #head: readonly Step<R, S>[];
  readonly #body: readonly Step<R, S>[];

  constructor(
    own: { readonly [N in keyof typeof steps]?: Step<R, S> | null },
    private readonly every = false,
  ) {
    const stage = (names: readonly (keyof typeof steps)[]): Step<R, S>[] =>
      names.flatMap((name) => (own[name] === null ? [] : [own[name] ?? steps[name]]));
    this.#head = stage(headStage);
    this.#body = stage(bodyStage);
  }

  /** The header stage, decided before any body is read; with `every`, each problem also goes to `found`. */
  head(request: Routed<R>, surface: S, found?: ApiError[]): ApiError | undefined {
    let first: ApiError | undefined;
    for (let i = 0; i < this.#head.length; i++) {
      const error = (this.#head[i] as Step<R, S>)(request, surface);
      if (error !== undefined && !this.every) return error;
      if (error !== undefined) found?.push(error);
      first ??= error;
    }
    return first;
  }

  /** The body stage: `raw` parsed (undefined: the record holds the body as a value), then each step, to the first problem. */
  body(
    request: Routed<R>,
    surface: S,
    raw: Uint8Array | string | undefined,
    found?: ApiError[],
  ): ApiError | undefined {
    let error = raw === undefined ? undefined : parseBody(request, raw);
    for (let i = 0; error === undefined && i < this.#body.length; i++)
      error = (this.#body[i] as Step<R, S>)(request, surface);
    if (error !== undefined) found?.push(error);
    return error;
  }
}
