import { Agent, errors, request } from 'undici';
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
 * The targets conform talks to, one HTTP client (undici) for them all: calls go to each target in turn, so that
 * replicas behind one name must behave as one service.
 */
export class Targets {
  readonly #agent: Agent;
  #next = 0;

  constructor(
    readonly bases: readonly URL[],
    readonly keys: readonly string[],
    readonly timeout: number,
  ) {
    this.#agent = new Agent({ headersTimeout: timeout, bodyTimeout: timeout, connections: 8 });
  }

  /** Makes one call with key number `key` to the next target; a transport failure throws a RunNotMadeError. */
  async call(method: Call['method'], key: number, body: Call['body'], target?: number): Promise<Call> {
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
      return { target: base.href, method, key, body, status: answer.statusCode, answer: parsed };
    } catch (error) {
      const why =
        error instanceof errors.HeadersTimeoutError ||
        error instanceof errors.BodyTimeoutError ||
        (error as Error).name === 'TimeoutError'
          ? `did not answer within ${this.timeout} ms (--timeout)`
          : `could not be reached (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
      throw new RunNotMadeError(`${method} ${url.href} ${why}`);
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
