import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { reach } from '../contract/reach.js';
import { type ApiError, apiError } from '../errors.js';
import type { Result } from '../result.js';
import { setting } from './proxyOptions.js';

/** The service behind the proxy: its base URL and the pooled connections to it. */
export interface Target {
  readonly url: URL;
  readonly agent: HttpAgent;
  /** Milliseconds the target has to answer in full, from the request's forwarding on. */
  readonly timeout: number;
  /** The largest answer body read, in bytes. */
  readonly bodyLimit: number;
}

/** A target for a base URL (http or https; `ca` trusts a private certificate authority). */
export function target(url: URL, timeout: number, bodyLimit: number, ca?: string | Buffer): Target {
  // Keep-alive, the most recently freed socket first (warm), and no Nagle delay on a write.
  const options = { keepAlive: true, maxSockets: 256, scheduling: 'lifo' as const, noDelay: true };
  const agent =
    url.protocol === 'https:'
      ? new HttpsAgent({ ...options, ...(ca ? { ca } : {}) })
      : new HttpAgent(options);
  return { url, agent, timeout, bodyLimit };
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

/**
 * Sends one request to the target and collects its answer (within the body limit), or the error to answer
 * instead: 502 `UPSTREAM_UNREACHABLE` (refused, reset, unknown host, TLS, an answer too large) or 504
 * `UPSTREAM_TIMEOUT` (no whole answer within the timeout). node:http rather than fetch: fetch refuses a GET body.
 */
export function forward(
  to: Target,
  sent: Forwarded,
  done: (answer: Result<TargetAnswer, ApiError>) => void,
): void {
  const { url } = to;
  const where = `${url.origin}${sent.pathAndQuery}`;
  let settled = false;
  const finish = (result: Result<TargetAnswer, ApiError>): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    done(result);
  };
  const headers = ['Host', url.host, ...sent.headers];
  if (sent.body !== undefined) headers.push('Content-Length', String(sent.body.length));
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const outgoing = send({
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port,
    method: sent.method,
    path: `${url.pathname.replace(/\/$/, '')}${sent.pathAndQuery}`,
    headers,
    agent: to.agent,
  });
  const timer = setTimeout(() => {
    finish({ ok: false, error: timedOut(where, to.timeout) });
    outgoing.destroy();
  }, to.timeout);
  outgoing.on('error', (error: NodeJS.ErrnoException) =>
    finish({ ok: false, error: unreachable(where, error) }),
  );
  outgoing.on('response', (res: IncomingMessage) => {
    const chunks: Buffer[] = [];
    let received = 0;
    res.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > to.bodyLimit) {
        const message = `the target ${where} answered a body larger than the limit of ${to.bodyLimit} bytes; raise --body-limit if the service really answers that much`;
        finish({ ok: false, error: apiError('UPSTREAM_UNREACHABLE', message) });
        res.destroy();
        outgoing.destroy();
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () =>
      finish({
        ok: true,
        value: {
          status: res.statusCode ?? 0,
          reason: res.statusMessage ?? '',
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks, received),
        },
      }),
    );
    res.on('error', (error: NodeJS.ErrnoException) =>
      finish({ ok: false, error: unreachable(where, error) }),
    );
  });
  outgoing.end(sent.body);
}

function unreachable(where: string, error: NodeJS.ErrnoException): ApiError {
  const code = error.code ?? error.message;
  const why =
    code === 'ECONNREFUSED'
      ? 'refused the connection (is the service running, on that port?)'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `has a host name that does not resolve (check ${setting('target')})`
        : code === 'ECONNRESET' || code === 'ECONNABORTED' || error.message === 'socket hang up'
          ? 'closed the connection without a whole answer'
          : certificateProblem(code)
            ? `presented a certificate this proxy does not trust (${code}: ${error.message}); if a private certificate authority signed it, give that authority's PEM file as ${setting('targetCa', 'target-ca')}`
            : `could not be reached (${code}${error.message && error.message !== code ? `: ${error.message}` : ''}; for a private certificate authority give ${setting('targetCa', 'target-ca')})`;
  return apiError(
    'UPSTREAM_UNREACHABLE',
    `the target ${where} ${why}; the request was not answered by the service`,
  );
}

/** TLS verification failures: OpenSSL's X.509 codes (`*CERT*`, `*_SIGNATURE`, `*_ISSUER*`) and Node's altname check. */
const certificateProblem = (code: string): boolean =>
  /CERT|SIGNATURE|ISSUER|ERR_TLS_CERT_ALTNAME_INVALID/.test(code);

function timedOut(where: string, ms: number): ApiError {
  return apiError(
    'UPSTREAM_TIMEOUT',
    `the target ${where} did not answer within ${ms} ms; the service is slow or hangs (raise ${setting('timeout')} to wait longer)`,
  );
}
