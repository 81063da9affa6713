import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, errors, request } from 'undici';
import { retryLaterStatuses } from '../errors.js';
import type { Verdict } from '../model/referenceModel.js';
import type { OperationId } from '../spec/operations.js';

/** One call as it was made and answered. */
export interface Call {
  readonly target: string;
  readonly method: 'GET' | 'PUT' | 'POST';
  /** Which of the run's keys (0-based) the call was made with. */
  readonly key: number;
  readonly body: Readonly<Record<string, unknown>>;
  readonly status: number;
  /** The answer's JSON, or its text when it is not JSON. */
  readonly answer: unknown;
}

/**
 * One call of a sequence with the model's verdict on its answer (here, not beside the sequences, so that the
 * published types of `conformProvider` do not reach fast-check's).
 */
export interface JudgedCall extends Call {
  readonly operationId: OperationId;
  readonly verdict: Verdict;
}

/** The service could not be asked: a target unreachable, too slow, or one that refuses a key. */
export class RunNotMadeError extends Error {
  override readonly name = 'RunNotMadeError';
}

/**
 * Why an answer of 429 (rate limited) or 503 (unavailable) ends the run: neither says how the service behaves, only
 * that it would not serve the call now, and the rules would take it for a call refused.
 */
function notNow(status: number, retryAfter: string | string[] | undefined, answer: unknown): string {
  const wait = [retryAfter ?? []].flat()[0];
  const text = errorText(answer);
  // The header's wait, unless the answer's message says it already (the mock's does).
  const told = wait === undefined || text.includes('Retry-After') ? text : `${text}, Retry-After ${wait} s`;
  return status === 429
    ? `answered 429, rate limited (${told}): the service limits how fast a key may call it, and a refused call says nothing of its behaviour; pace the calls below the limit (--rate-limit N/min), or run against a deployment without it`
    : `answered 503, unavailable (${told}): the service cannot serve calls now, and a refused call says nothing of its behaviour; run again once it is available`;
}

/** An answer as a message names it: an error envelope's code and message, else its start. */
export function errorText(answer: unknown): string {
  const error = (answer as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (typeof error?.code === 'string')
    return typeof error.message === 'string' ? `${error.code}: ${error.message}` : error.code;
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * The targets conform talks to, one HTTP client (undici) for them all: calls go to each target in turn, so that
 * replicas behind one name must behave as one service.
 */
export class Targets {
  readonly #agent: Agent;
  #next = 0;

  /** Per key, when its next call may go (`performance.now()`), while the calls are paced. */
  readonly #nextAt: number[] = [];

  constructor(
    readonly bases: readonly URL[],
    readonly keys: readonly string[],
    readonly timeout: number,
    /** Calls at most per key in each minute, spaced evenly; undefined: not paced. */
    readonly perMinute?: number,
  ) {
    this.#agent = new Agent({ headersTimeout: timeout, bodyTimeout: timeout, connections: 8 });
  }

  /**
   * Makes one call with key number `key` to the next target (once its key's pace allows); a transport failure, or
   * an answer that says the service would not serve it now, throws a RunNotMadeError.
   */
  async call(method: Call['method'], key: number, body: Call['body'], target?: number): Promise<Call> {
    await this.#paced(key);
    const base = this.bases[target ?? this.#next++ % this.bases.length] as URL;
    const url = new URL('api/user', base.href.endsWith('/') ? base : `${base.href}/`);
    try {
      const answer = await request(url, {
        method,
        dispatcher: this.#agent,
        headers: { authorization: `Token ${this.keys[key]}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeout),
      });
      const text = await answer.body.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      if (retryLaterStatuses.has(answer.statusCode))
        throw new RunNotMadeError(
          `${method} ${url.href} ${notNow(answer.statusCode, answer.headers['retry-after'], parsed)}`,
        );
      return { target: base.href, method, key, body, status: answer.statusCode, answer: parsed };
    } catch (error) {
      if (error instanceof RunNotMadeError) throw error;
      const why =
        error instanceof errors.HeadersTimeoutError ||
        error instanceof errors.BodyTimeoutError ||
        (error as Error).name === 'TimeoutError'
          ? `did not answer within ${this.timeout} ms (--timeout)`
          : `could not be reached (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): is the service running at that address? Start it, or correct --target`;
      throw new RunNotMadeError(`${method} ${url.href} ${why}`);
    }
  }

  /** Waits until key `key` may call again: `perMinute` calls a minute, spaced evenly (the service limits per key). */
  async #paced(key: number): Promise<void> {
    if (this.perMinute === undefined) return;
    const now = performance.now();
    const at = Math.max(now, this.#nextAt[key] ?? now);
    this.#nextAt[key] = at + 60_000 / this.perMinute;
    if (at > now) await sleep(at - now);
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
