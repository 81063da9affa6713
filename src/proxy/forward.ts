import type { Socket } from 'node:net';
import { buildConnector, type Dispatcher, errors, Pool } from 'undici';
import type { ApiError } from '../errors.js';
import type { Result } from '../result.js';
import {
  bodyTooLarge,
  CutShort,
  closedUnder,
  closedUnderRequest,
  failure,
  keptAlive,
  resets,
  Stopping,
  TooLarge,
  timedOut,
} from './upstreamErrors.js';

/** The service behind the proxy: its base URL and undici's pool of kept-alive connections to it. */
export interface Target {
  readonly url: URL;
  /** The URL's path without its trailing slash, which each forwarded path follows. */
  readonly basePath: string;
  readonly pool: Pool;
  /** Milliseconds the target has to answer in full, from the request's forwarding on. */
  readonly timeout: number;
  /** The largest answer body read, in bytes (`answerLimit`: a multiple of the request body limit). */
  readonly bodyLimit: number;
  /**
   * Whether a connection to the target was reset in this turn of the event loop: true from the socket's first
   * `error` listener (this proxy's, put first with `prependListener`) to the next microtask, so while undici
   * handles that reset.
   */
  resetNow(): boolean;
}

/** The answer's headers as undici parses them. */
type IncomingHttpHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];

/** The largest answer head read, in bytes: Node's own default (`--max-http-header-size`). */
const headLimit = 16 * 1024;
/** How long a free connection is kept open: below the 5 s a Node.js server keeps an idle one. */
const idleMs = 4_000;

/**
 * A target for a base URL (http or https; `ca` trusts a private certificate authority; SNI names the host unless it
 * is an address). A free connection is closed 1 s before the target's `Keep-Alive: timeout` says it would be.
 */
export function target(url: URL, timeout: number, bodyLimit: number, ca?: string | Buffer): Target {
  const connector = buildConnector(ca === undefined ? {} : { ca });
  let resetting = false;
  const pool = new Pool(url.origin, {
    connections: 256,
    pipelining: 1,
    keepAliveTimeout: idleMs,
    keepAliveMaxTimeout: idleMs,
    keepAliveTimeoutThreshold: 1_000,
    maxHeaderSize: headLimit,
    // The exchange's own deadline (in forward) bounds the whole answer; undici's per-phase timers would only add
    // two timers to re-arm on every exchange.
    headersTimeout: 0,
    bodyTimeout: 0,
    // undici completes an answer framed by the connection's end when the connection is reset: it may be cut short.
    // The proxy's listener on the socket it made, put before any other, marks the reset for that turn.
    connect: (options, callback) =>
      connector(options, (error, socket) => {
        (socket as Socket | null)?.prependListener('error', (cause: NodeJS.ErrnoException) => {
          if (!resets.has(cause.code ?? '')) return;
          resetting = true;
          queueMicrotask(() => {
            resetting = false;
          });
        });
        (callback as (error: Error | null, socket: Socket | null) => void)(error, socket);
      }),
  });
  const basePath = url.pathname.replace(/\/$/, '');
  return { url, basePath, pool, timeout, bodyLimit, resetNow: () => resetting };
}

/** The URL a request for `pathAndQuery` goes to at the target: its origin, its base path, the request's path. */
export const addressOf = (to: Target, pathAndQuery: string): string =>
  `${to.url.origin}${to.basePath}${pathAndQuery}`;

/**
 * Closes every connection to the target now: each exchange still waiting on it is answered 504, saying the proxy
 * stopped, and none is sent from now on.
 */
export function stopForwarding(to: Target): void {
  to.pool.destroy(new Stopping()).catch(() => undefined);
}

/** The target's answer, as it came: status, reason, headers as sent, and the whole body. */
export interface TargetAnswer {
  readonly status: number;
  readonly reason: string;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** Whether the request was sent again, on a new connection, after a kept-alive one closed without answering. */
  readonly sentAgain: boolean;
}

/**
 * What to send: method, path with its query, end-to-end headers (flat, without `Expect`: the proxy has the whole
 * body before it forwards, and undici refuses the header), and the body bytes if one was sent.
 */
export interface Forwarded {
  readonly method: string;
  readonly pathAndQuery: string;
  readonly headers: readonly string[];
  readonly body: Buffer | undefined;
}

/** Methods a request may be sent again for when a kept-alive connection closed before any answer (RFC 9110, 9.2.2). */
const idempotent = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE']);

/**
 * Sends one request to the target through undici and reads its answer (within the body limit), or the 502 or
 * 504 to answer instead (upstreamErrors.ts). A request whose kept-alive connection turns out to be closed
 * before any answer is sent again once, if its method is idempotent.
 */
export function forward(
  to: Target,
  sent: Forwarded,
  done: (answer: Result<TargetAnswer, ApiError>) => void,
): void {
  new Exchange(to, sent, done);
}

/**
 * One exchange: undici's handler (its controller API), collecting the answer and naming what went wrong, under the
 * exchange's deadline. A second attempt is dispatched with the same handler: it is made only before any answer
 * came, so nothing is kept.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly #options: Dispatcher.DispatchOptions;
  readonly #timer: NodeJS.Timeout;
  #settled = false;
  #sentAgain = false;
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the proxy ended the exchange before undici had handed it a controller, if it did. */
  #ended: Error | undefined;
  #status = 0;
  #reason = '';
  #rawHeaders: string[] = [];
  readonly #body: Buffer[] = [];
  #bodyBytes = 0;

  constructor(
    readonly to: Target,
    readonly sent: Forwarded,
    readonly done: (result: Result<TargetAnswer, ApiError>) => void,
  ) {
    this.#options = {
      method: sent.method as Dispatcher.HttpMethod,
      path: `${to.basePath}${sent.pathAndQuery}`,
      headers: sent.headers as string[],
      body: sent.body ?? null,
      // undici closes the connection after a GET that carries a body unless told not to (decision 19); after a
      // HEAD it closes it to be safe from a target that sends a body anyway.
      ...(sent.method === 'HEAD' ? {} : { reset: false }),
    };
    this.#timer = setTimeout(() => {
      this.#finish({ ok: false, error: timedOut(this.#where(), to.timeout) });
      this.#end(new errors.RequestAbortedError());
    }, to.timeout);
    to.pool.dispatch(this.#options, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#ended !== undefined) controller.abort(this.#ended);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
    reason?: string,
  ): void {
    this.#status = status;
    if (status < 200) return; // interim (103 Early Hints...): read and dropped
    this.#reason = reason ?? '';
    this.#rawHeaders = flatHeaders(controller.rawHeaders, headers);
    const length = headers['content-length'];
    const bodiless = this.sent.method === 'HEAD' || this.#bodilessByStatus();
    if (!bodiless && length !== undefined && Number(length) > this.to.bodyLimit) this.#tooLarge();
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#bodyBytes += chunk.length;
    if (this.#bodyBytes > this.to.bodyLimit) this.#tooLarge();
    else this.#body.push(chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController): void {
    if (this.to.resetNow()) {
      this.onResponseError(controller, new CutShort());
      return;
    }
    this.#complete();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const { method } = this.sent;
    if (
      this.#bodilessByStatus() &&
      this.#bodyBytes === 0 &&
      error instanceof errors.ResponseContentLengthMismatchError
    ) {
      // undici holds a 204's or 304's Content-Length against the body llhttp rightly read as none: it is whole.
      this.#complete();
      return;
    }
    if (this.#status === 0 && !this.#sentAgain && closedUnder(error) && keptAlive(error)) {
      // The target had closed the kept-alive connection as the request arrived: once more on another, unless
      // sending again could act twice.
      this.#sentAgain = true;
      if (idempotent.has(method)) this.to.pool.dispatch(this.#options, this);
      else this.#finish({ ok: false, error: closedUnderRequest(this.#where(), method) });
      return;
    }
    this.#finish({ ok: false, error: failure(this.#where(), error, this.#status !== 0, headLimit) });
  }

  #complete(): void {
    const body =
      this.#body.length === 1 ? (this.#body[0] as Buffer) : Buffer.concat(this.#body, this.#bodyBytes);
    this.#finish({
      ok: true,
      value: {
        status: this.#status,
        reason: this.#reason,
        rawHeaders: this.#rawHeaders,
        body,
        sentAgain: this.#sentAgain,
      },
    });
  }

  #finish(result: Result<TargetAnswer, ApiError>): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.done(result);
  }

  /** Where the request went, as an error names it. */
  #where(): string {
    return addressOf(this.to, this.sent.pathAndQuery);
  }

  #bodilessByStatus(): boolean {
    return this.#status === 204 || this.#status === 304;
  }

  #tooLarge(): void {
    this.#end(new TooLarge(bodyTooLarge(this.to.bodyLimit)));
  }

  /** Ends the exchange with `reason`: now if undici has handed over its controller, else as it does. */
  #end(reason: Error): void {
    this.#ended ??= reason;
    if (this.#controller !== undefined && !this.#controller.aborted) this.#controller.abort(reason);
  }
}

/**
 * The answer's headers as a flat list: undici's raw list (names and values as sent, in order) when it gives one,
 * else the parsed headers (names in lower case, a repeated name's values together).
 */
function flatHeaders(
  raw: Dispatcher.DispatchController['rawHeaders'],
  parsed: IncomingHttpHeaders,
): string[] {
  if (Array.isArray(raw))
    return raw.map((item: Buffer | string) => (typeof item === 'string' ? item : item.toString('latin1')));
  const flat: string[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (Array.isArray(value)) for (const one of value) flat.push(name, one);
    else if (value !== undefined) flat.push(name, value);
  }
  return flat;
}
