import type { Socket } from 'node:net';
import { buildConnector, type Dispatcher, Pool } from 'undici';
import { reach } from '../contract/reach.js';
import type { ApiError } from '../errors.js';
import type { Result } from '../result.js';
import {
  bodyTooLarge,
  CutShort,
  closedUnder,
  closedUnderRequest,
  failure,
  keptAlive,
  lengthMismatch,
  resets,
  Stopping,
  TooLarge,
  timedOut,
} from './upstreamErrors.js';

/** The service behind the proxy: its base URL and undici's pool of kept-alive connections to it. */
export interface Target {
  readonly url: URL;
  readonly pool: Pool;
  /** Milliseconds the target has to answer in full, from the request's forwarding on. */
  readonly timeout: number;
  /** The largest answer body read, in bytes. */
  readonly bodyLimit: number;
  /** Whether the connection being read was reset by the target just now (true only while undici handles that). */
  resetNow(): boolean;
}

/** The largest answer head read, in bytes: Node's own default (`--max-http-header-size`). */
const headLimit = 16 * 1024;
/** How long a free connection is kept open: below the 5 s a Node.js server keeps an idle one. */
const idleMs = 4_000;

/**
 * A target for a base URL (http or https; `ca` trusts a private certificate authority; SNI names the host unless it
 * is an address). One connection carries one exchange at a time (`pipelining: 1`), up to 256 at once; a free one is
 * closed after 4 s unused, or 1 s before the target's `Keep-Alive: timeout` says it will.
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
    // The socket's own listener, which runs before undici's, marks the reset for that turn.
    connect: (options, callback) =>
      connector(options, (error, socket) => {
        (socket as Socket | null)?.on('error', (cause: NodeJS.ErrnoException) => {
          if (!resets.has(cause.code ?? '')) return;
          resetting = true;
          queueMicrotask(() => {
            resetting = false;
          });
        });
        (callback as (error: Error | null, socket: Socket | null) => void)(error, socket);
      }),
  });
  return { url, pool, timeout, bodyLimit, resetNow: () => resetting };
}

/**
 * Closes every connection to the target now: each exchange still waiting on it is answered 504, saying the proxy
 * stopped, and none is sent from now on.
 */
export function stopForwarding(to: Target): void {
  to.pool.destroy(new Stopping()).catch(() => undefined);
}

/**
 * Whether the target accepts a TCP connection now (opened and closed at once, within `withinMs`): what the health
 * check can learn cheaply, without sending the service a request.
 */
export async function acceptsConnections(to: Target, withinMs = 1000): Promise<boolean> {
  return (await reach(to.url.href, Math.min(withinMs, to.timeout))).ok;
}

/** The target's answer, as it came: status, reason, headers as sent, and the whole body. */
export interface TargetAnswer {
  readonly status: number;
  readonly reason: string;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
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
 * Sends one request to the target through undici and reads its answer (within the body limit), or the error to
 * answer instead: 502 `UPSTREAM_UNREACHABLE` (refused, reset, unknown host, TLS, an answer llhttp refuses or one
 * too large) or 504 `UPSTREAM_TIMEOUT` (no whole answer within the timeout, or the proxy stopped). A request whose
 * kept-alive connection turns out to be closed before any answer is sent again once, if its method is idempotent.
 */
export function forward(
  to: Target,
  sent: Forwarded,
  done: (answer: Result<TargetAnswer, ApiError>) => void,
): void {
  const where = `${to.url.origin}${sent.pathAndQuery}`;
  const options: Dispatcher.DispatchOptions = {
    method: sent.method as Dispatcher.HttpMethod,
    path: `${to.url.pathname.replace(/\/$/, '')}${sent.pathAndQuery}`,
    headers: sent.headers as string[],
    body: sent.body ?? null,
    // undici closes the connection after a GET that carries a body unless told not to (decision 19); after a HEAD
    // it closes it to be safe from a target that sends a body anyway.
    ...(sent.method === 'HEAD' ? {} : { reset: false }),
  };
  let settled = false;
  const finish = (result: Result<TargetAnswer, ApiError>): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    done(result);
  };
  let exchange = new Exchange(to, where, sent.method, finish);
  const timer = setTimeout(() => {
    finish({ ok: false, error: timedOut(where, to.timeout) });
    exchange.abort();
  }, to.timeout);
  exchange.sendAgain = () => {
    exchange = new Exchange(to, where, sent.method, finish);
    to.pool.dispatch(options, exchange);
  };
  to.pool.dispatch(options, exchange);
}

/** One attempt at an exchange: undici's handler, collecting the answer and naming what went wrong. */
class Exchange implements Dispatcher.DispatchHandler {
  /** Set on the first attempt of an idempotent request: sends it again on a new exchange. */
  sendAgain: (() => void) | undefined;
  #abort: ((error?: Error) => void) | undefined;
  #aborted = false;
  #status = 0;
  #reason = '';
  #rawHeaders: string[] = [];
  /** Whether the answer is framed by the connection's end (a body with neither length nor chunked coding). */
  #closeDelimited = false;
  readonly #body: Buffer[] = [];
  #bodyBytes = 0;

  constructor(
    readonly to: Target,
    readonly where: string,
    readonly method: string,
    readonly finish: (result: Result<TargetAnswer, ApiError>) => void,
  ) {}

  /** Ends the exchange (its result is already given): the connection is closed, or the request never sent. */
  abort(): void {
    this.#aborted = true;
    this.#abort?.();
  }

  onConnect(abort: (error?: Error) => void): void {
    if (this.#aborted) abort();
    else this.#abort = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[], _resume: () => void, reason: string): boolean {
    if (status < 200) {
      this.#status = status; // interim (100 Continue, 103 Early Hints...): read and dropped
      return true;
    }
    const headers: string[] = new Array(rawHeaders.length);
    let length: string | undefined;
    let chunked = false;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = (rawHeaders[i] as Buffer).toString('latin1');
      const value = (rawHeaders[i + 1] as Buffer).toString('latin1');
      headers[i] = name;
      headers[i + 1] = value;
      const lower = name.toLowerCase();
      if (lower === 'content-length') length = value;
      else if (lower === 'transfer-encoding') chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
    }
    this.#status = status;
    this.#reason = reason;
    this.#rawHeaders = headers;
    const bodiless = this.method === 'HEAD' || this.#bodilessByStatus();
    this.#closeDelimited = !bodiless && length === undefined && !chunked;
    if (!bodiless && length !== undefined && Number(length) > this.to.bodyLimit)
      this.#tooLarge(bodyTooLarge(this.to.bodyLimit));
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#bodyBytes += chunk.length;
    if (this.#bodyBytes > this.to.bodyLimit) {
      this.#tooLarge(bodyTooLarge(this.to.bodyLimit));
      return false;
    }
    this.#body.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.#closeDelimited && this.to.resetNow()) {
      this.onError(new CutShort());
      return;
    }
    const body =
      this.#body.length === 1 ? (this.#body[0] as Buffer) : Buffer.concat(this.#body, this.#bodyBytes);
    this.finish({
      ok: true,
      value: { status: this.#status, reason: this.#reason, rawHeaders: this.#rawHeaders, body },
    });
  }

  onError(error: Error): void {
    if (
      this.#bodilessByStatus() &&
      this.#bodyBytes === 0 &&
      (error as NodeJS.ErrnoException).code === lengthMismatch
    ) {
      // undici holds a 204's or 304's Content-Length against the body llhttp rightly read as none: it is whole.
      this.#closeDelimited = false;
      this.onComplete();
      return;
    }
    if (this.#status === 0 && closedUnder(error) && this.sendAgain !== undefined && keptAlive(error)) {
      // The target had closed the kept-alive connection as the request arrived: once more on another, unless
      // sending again could act twice.
      if (idempotent.has(this.method)) {
        const again = this.sendAgain;
        this.sendAgain = undefined;
        again();
      } else this.finish({ ok: false, error: closedUnderRequest(this.where, this.method) });
      return;
    }
    this.finish({
      ok: false,
      error: failure(this.where, error, this.#status !== 0, headLimit),
    });
  }

  #bodilessByStatus(): boolean {
    return this.#status === 204 || this.#status === 304;
  }

  #tooLarge(why: string): void {
    this.#aborted = true;
    this.#abort?.(new TooLarge(why));
  }
}
