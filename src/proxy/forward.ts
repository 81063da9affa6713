import type { Socket } from 'node:net';
import { buildConnector, type Dispatcher, errors, Pool } from 'undici';
import { reach } from '../contract/reach.js';
import { type ApiError, apiError } from '../errors.js';
import type { Result } from '../result.js';
import { setting } from './proxyOptions.js';

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
    headersTimeout: timeout,
    bodyTimeout: timeout,
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

/** What to send: method, path with its query, end-to-end headers (flat), and the body bytes if one was sent. */
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
    headers: withoutExpect(sent.headers),
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
    this.finish({ ok: false, error: failure(this.to, this.where, error, this.#status !== 0) });
  }

  #bodilessByStatus(): boolean {
    return this.#status === 204 || this.#status === 304;
  }

  #tooLarge(why: string): void {
    this.#aborted = true;
    this.#abort?.(new TooLarge(why));
  }
}

/** Drops `Expect`: the proxy has the whole body before it forwards, and undici refuses the header. */
function withoutExpect(headers: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < headers.length; i += 2)
    if ((headers[i] as string).toLowerCase() !== 'expect')
      kept.push(headers[i] as string, headers[i + 1] as string);
  return kept;
}

/** The proxy stopping with the exchange in flight. */
class Stopping extends Error {}
/** An answer over a limit, ended by the proxy. */
class TooLarge extends Error {}
/** An answer framed by the connection's end, which the target reset. */
class CutShort extends Error {}

/** undici's code for a body longer or shorter than its Content-Length. */
const lengthMismatch = 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH';

/** The target resetting the connection (or having closed it under a write): it may have had the request. */
const resets = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE']);

/**
 * An answer llhttp refuses (`HPE_*`), a body shorter or longer than its Content-Length, or what undici calls a bad
 * response (an interim 100 Continue nobody asked for, bytes before any request) or a bad upgrade (101 unasked).
 */
function framingFault(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return (
    error instanceof errors.HTTPParserError ||
    code === lengthMismatch ||
    (code === 'UND_ERR_SOCKET' && error.message.startsWith('bad '))
  );
}

/** The connection ended under the request: closed by the target (undici's SocketError) or reset. */
function closedUnder(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return error instanceof CutShort || resets.has(code) || (code === 'UND_ERR_SOCKET' && !framingFault(error));
}

/** Whether the connection had carried answers before this request (undici names the bytes it read on it). */
function keptAlive(error: Error): boolean {
  const socket = (error as { socket?: { bytesRead?: number } }).socket;
  return (socket?.bytesRead ?? 0) > 0;
}

const bodyTooLarge = (limit: number): string =>
  `answered a body larger than the limit of ${limit} bytes, so it was not passed on (the service may have acted on the request); raise ${setting('bodyLimit', 'body-limit')} if the service really answers that much`;

/** The 502 or 504 for an exchange that failed: `answering` when the answer's head had come. */
function failure(to: Target, where: string, error: Error, answering: boolean): ApiError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  // Stopped before this exchange was sent, or while it was in flight.
  if (error instanceof Stopping || code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED')
    return stopped(where);
  if (error instanceof TooLarge)
    return apiError('UPSTREAM_UNREACHABLE', `the target ${where} ${error.message}`);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return timedOut(where, to.timeout);
  if (code === 'UND_ERR_HEADERS_OVERFLOW')
    return apiError(
      'UPSTREAM_UNREACHABLE',
      `the target ${where} answered a head (status line and headers) over ${headLimit} bytes, so it was not passed on (the service may have acted on the request)`,
    );
  if (framingFault(error))
    return apiError(
      'UPSTREAM_UNREACHABLE',
      `the target ${where} sent an answer that breaks HTTP/1.1 framing (${code || error.name}: ${parserReason(error)}), so it cannot be passed on (the service may have acted on the request)`,
    );
  if (closedUnder(error))
    return apiError(
      'UPSTREAM_UNREACHABLE',
      `the target ${where} closed the connection ${answering ? 'before the whole answer' : 'without answering'}; the service may or may not have acted on the request`,
    );
  return unreachable(where, error);
}

/** What llhttp (or undici) says is wrong, without undici's wording around it. */
const parserReason = (error: Error): string =>
  /^Response does not match the HTTP\/1\.1 protocol \((.*)\)$/.exec(error.message)?.[1] ?? error.message;

/** A 502 for a target the request did not reach: refused, not resolved, or not trusted. */
function unreachable(where: string, error: NodeJS.ErrnoException): ApiError {
  const code = error.code ?? error.message;
  const why =
    code === 'ECONNREFUSED'
      ? 'refused the connection (is the service running, on that port?)'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `has a host name that does not resolve (check ${setting('target')})`
        : code === 'ERR_TLS_CERT_ALTNAME_INVALID'
          ? `presented a certificate that does not name this host (${error.message}); give ${setting('target')} a host name or address the certificate names, or have the certificate issued for this one`
          : certificateProblem(code)
            ? `presented a certificate this proxy does not trust (${code}: ${error.message}); if a private certificate authority signed it, give that authority's PEM file as ${setting('targetCa', 'target-ca')}`
            : `could not be reached (${code}${error.message && error.message !== code ? `: ${error.message}` : ''}; for a private certificate authority give ${setting('targetCa', 'target-ca')})`;
  return apiError(
    'UPSTREAM_UNREACHABLE',
    `the target ${where} ${why}; the request did not reach the service`,
  );
}

/** TLS verification failures: OpenSSL's X.509 codes (`*CERT*`, `*_SIGNATURE`, `*_ISSUER*`) and Node's altname check. */
const certificateProblem = (code: string): boolean =>
  /CERT|SIGNATURE|ISSUER|ERR_TLS_CERT_ALTNAME_INVALID/.test(code);

function closedUnderRequest(where: string, method: string): ApiError {
  return apiError(
    'UPSTREAM_UNREACHABLE',
    `the target ${where} closed its kept-alive connection as the request arrived, without answering; a ${method} is not sent again, since the service may have acted on it: retry it if that is safe`,
  );
}

function stopped(where: string): ApiError {
  return apiError(
    'UPSTREAM_TIMEOUT',
    `the target ${where} had not answered when the proxy stopped; the service is slow or hangs`,
  );
}

function timedOut(where: string, ms: number): ApiError {
  return apiError(
    'UPSTREAM_TIMEOUT',
    `the target ${where} did not answer within ${ms} ms; the service is slow or hangs (raise ${setting('timeout')} to wait longer)`,
  );
}
