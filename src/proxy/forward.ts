import { reach } from '../contract/reach.js';
import { type ApiError, apiError } from '../errors.js';
import type { Result } from '../result.js';
import { AnswerParser, type AnswerRead } from './answerParser.js';
import { type Connection, Connections, STOPPING } from './connections.js';
import { headerOf } from './headers.js';
import { setting } from './proxyOptions.js';

/** The service behind the proxy: its base URL and the kept-alive connections to it. */
export interface Target {
  readonly url: URL;
  readonly connections: Connections;
  /** Milliseconds the target has to answer in full, from the request's forwarding on. */
  readonly timeout: number;
  /** The largest answer body read, in bytes. */
  readonly bodyLimit: number;
}

/** The largest answer head read, in bytes: Node's own default (`--max-http-header-size`). */
const headLimit = 16 * 1024;

/** A target for a base URL (http or https; `ca` trusts a private certificate authority). */
export function target(url: URL, timeout: number, bodyLimit: number, ca?: string | Buffer): Target {
  const connections = new Connections(url, { max: 256, idleMs: 4_000, ...(ca ? { ca } : {}) });
  return { url, connections, timeout, bodyLimit };
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
/** Methods whose requests carry no body unless one is sent: no `Content-Length: 0` for them. */
const bodyless = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * Sends one request to the target and reads its answer (within the body limit), or the error to answer instead:
 * 502 `UPSTREAM_UNREACHABLE` (refused, reset, unknown host, TLS, a malformed or too large answer) or 504
 * `UPSTREAM_TIMEOUT` (no whole answer within the timeout). The request is written as HTTP/1.1 on a kept-alive
 * connection (`Connections`) and the answer read by `AnswerParser`: fetch refuses a GET body, and Node's own client
 * costs about 0.1 ms more per exchange (docs/decisions.md). A request whose kept-alive connection turns out to be
 * closed before any answer is sent again once on a new connection, if its method is idempotent.
 */
export function forward(
  to: Target,
  sent: Forwarded,
  done: (answer: Result<TargetAnswer, ApiError>) => void,
): void {
  const { url } = to;
  const where = `${url.origin}${sent.pathAndQuery}`;
  const message = requestBytes(to, sent);
  let settled = false;
  let using: Connection | undefined;
  const finish = (result: Result<TargetAnswer, ApiError>): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    done(result);
  };
  const timer = setTimeout(() => {
    finish({ ok: false, error: timedOut(where, to.timeout) });
    using?.destroy();
  }, to.timeout);

  const exchange = (connection: Connection | undefined): void => {
    if (connection === undefined) {
      finish({ ok: false, error: stopped(where) });
      return;
    }
    if (settled) {
      to.connections.give(connection, true);
      return;
    }
    using = connection;
    const parser = new AnswerParser(sent.method, { headBytes: headLimit, bodyBytes: to.bodyLimit });
    let received = false;
    const read = (step: AnswerRead): void => {
      if (step.state === 'more') return;
      using = undefined;
      if (step.state === 'done') {
        to.connections.give(connection, step.reusable, headerOf(step.head.rawHeaders, 'keep-alive'));
        finish({ ok: true, value: { ...step.head, body: step.body } });
        return;
      }
      connection.destroy();
      finish({ ok: false, error: answerProblem(where, step) });
    };
    connection.use({
      data: (bytes) => {
        received = true;
        read(parser.push(bytes));
      },
      ended: (error) => {
        if (error?.code === STOPPING) {
          using = undefined;
          finish({ ok: false, error: stopped(where) });
          return;
        }
        if (!received && connection.reused && !settled) {
          using = undefined;
          // The target had closed the kept-alive connection: a new one, unless sending again could act twice.
          if (idempotent.has(sent.method)) to.connections.take(exchange, true);
          else finish({ ok: false, error: closedUnderRequest(where, sent.method) });
          return;
        }
        if (error === undefined) read(parser.end());
        else if (resets.has(error.code ?? '')) {
          // Reset by the target: like its closing, but an answer read to the connection's end is not whole.
          const step = parser.end();
          read(step.state === 'done' ? { state: 'failed', problem: 'cut short', why: cutShort } : step);
        } else {
          using = undefined;
          finish({ ok: false, error: unreachable(where, error) });
        }
      },
    });
    const { socket } = connection;
    socket.cork();
    socket.write(message.head, 'latin1');
    if (message.body !== undefined && message.body.length > 0) socket.write(message.body);
    socket.uncork();
  };
  to.connections.take(exchange);
}

/** The request as HTTP/1.1: its head (Host first, then the end-to-end headers as they came) and its body. */
function requestBytes(to: Target, sent: Forwarded): { head: string; body: Buffer | undefined } {
  let head = `${sent.method} ${to.url.pathname.replace(/\/$/, '')}${sent.pathAndQuery} HTTP/1.1\r\nHost: ${to.url.host}\r\n`;
  const headers = sent.headers;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  if (sent.body !== undefined || !bodyless.has(sent.method))
    head += `Content-Length: ${sent.body?.length ?? 0}\r\n`;
  return { head: `${head}Connection: keep-alive\r\n\r\n`, body: sent.body };
}

/** A 502 for an answer the proxy could not read: malformed, over a limit, or cut short by the target. */
function answerProblem(where: string, step: AnswerRead & { state: 'failed' }): ApiError {
  // The request did reach the service: whatever it did stands, only its answer is lost.
  const advice =
    step.problem === 'too large'
      ? `, so it was not passed on (the service may have acted on the request)${step.why.includes('body') ? `; raise ${setting('bodyLimit', 'body-limit')} if the service really answers that much` : ''}`
      : step.problem === 'malformed'
        ? '; the service broke HTTP/1.1 framing, so its answer cannot be passed on (the service may have acted on the request)'
        : '; the service may or may not have acted on the request';
  return apiError('UPSTREAM_UNREACHABLE', `the target ${where} ${step.why}${advice}`);
}

/** The target resetting the connection (or having closed it under a write): it may have had the request. */
const resets = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE']);
const cutShort = 'closed the connection before the whole answer';

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
