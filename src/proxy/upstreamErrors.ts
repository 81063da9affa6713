import { errors } from 'undici';
import { type ApiError, apiError } from '../errors.js';
import { setting } from '../runtime/options.js';

/**
 * What went wrong on the way to the target, as the 502 or 504 the client gets: each message names the target
 * and says whether the service may have acted on the request.
 */

/** The proxy stopping with the exchange in flight. */
export class Stopping extends Error {}
/** An answer over a limit, ended by the proxy. */
export class TooLarge extends Error {}
/** An answer framed by the connection's end, which the target reset. */
export class CutShort extends Error {}

/** The target resetting the connection (or having closed it under a write): it may have had the request. */
export const resets = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE']);

/**
 * An answer llhttp refuses (undici's `HTTPParserError`, code `HPE_*`) or a body shorter or longer than its
 * Content-Length (`ResponseContentLengthMismatchError`).
 */
function framingFault(error: Error): boolean {
  return (
    error instanceof errors.HTTPParserError || error instanceof errors.ResponseContentLengthMismatchError
  );
}

/**
 * The connection ended under the request: closed by the target, reset, or ended by undici for an answer it would
 * not read on (undici's `SocketError`: it gives an unasked 100 Continue or 101 Switching Protocols no class or code
 * of its own).
 */
export function closedUnder(error: Error): boolean {
  return (
    error instanceof CutShort ||
    error instanceof errors.SocketError ||
    resets.has((error as NodeJS.ErrnoException).code ?? '')
  );
}

/** Whether the connection had carried answers before this request (undici's SocketError names the bytes read). */
export function keptAlive(error: Error): boolean {
  return error instanceof errors.SocketError && (error.socket?.bytesRead ?? 0) > 0;
}

export const bodyTooLarge = (limit: number): string =>
  `answered a body larger than the limit of ${limit} bytes (4 times the request body limit, at least 64 KiB), so it was not passed on (the service may have acted on the request); raise ${setting('bodyLimit', 'body-limit')} if the service really answers that much`;

/**
 * The largest answer body the proxy reads, for a request body limit: 4 times it, as an answer repeats the group a
 * request sent (its name and properties) with the envelope around it, and a service may write its characters as
 * `\u` escapes; at least 64 KiB, room for the envelope and for an error that lists many problems of a small request.
 */
export const answerLimit = (bodyLimit: number): number => Math.max(bodyLimit * 4, 64 * 1024);

/** The 502 or 504 for an exchange that failed: `answering` when the answer's head had come. */
export function failure(where: string, error: Error, answering: boolean, headBytes: number): ApiError {
  // Stopped before this exchange was sent, or while it was in flight.
  if (
    error instanceof Stopping ||
    error instanceof errors.ClientDestroyedError ||
    error instanceof errors.ClientClosedError
  )
    return apiError(
      'UPSTREAM_TIMEOUT',
      `the target ${where} had not answered when the proxy stopped; the service is slow or hangs`,
    );
  if (error instanceof TooLarge)
    return apiError('UPSTREAM_UNREACHABLE', `the target ${where} ${error.message}`);
  if (error instanceof errors.HeadersOverflowError)
    return apiError(
      'UPSTREAM_UNREACHABLE',
      `the target ${where} answered a head (status line and headers) over ${headBytes} bytes, so it was not passed on (the service may have acted on the request)`,
    );
  if (framingFault(error))
    return apiError(
      'UPSTREAM_UNREACHABLE',
      `the target ${where} sent an answer that breaks HTTP/1.1 framing (${(error as NodeJS.ErrnoException).code || error.name}: ${error.message}), so it cannot be passed on (the service may have acted on the request)`,
    );
  if (closedUnder(error))
    return apiError(
      'UPSTREAM_UNREACHABLE',
      `the target ${where} closed the connection ${answering ? 'before the whole answer' : 'without answering'}; the service may or may not have acted on the request`,
    );
  return unreachable(where, error);
}

/** A 502 for a target the request did not reach: refused, not resolved, or not trusted. */
function unreachable(where: string, error: NodeJS.ErrnoException): ApiError {
  const code = error.code ?? error.message;
  // An untrusted certificate: OpenSSL's X.509 verification codes (`*CERT*`, `*_SIGNATURE`, `*_ISSUER*`).
  const why =
    code === 'ECONNREFUSED'
      ? 'refused the connection (is the service running, on that port?)'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `has a host name that does not resolve (check ${setting('target')})`
        : code === 'ERR_TLS_CERT_ALTNAME_INVALID'
          ? `presented a certificate that does not name this host (${error.message}); give ${setting('target')} a host name or address the certificate names, or have the certificate issued for this one`
          : /CERT|SIGNATURE|ISSUER/.test(code)
            ? `presented a certificate this proxy does not trust (${code}: ${error.message}); if a private certificate authority signed it, give that authority's PEM file as ${setting('targetCa', 'target-ca')}`
            : `could not be reached (${code}${error.message && error.message !== code ? `: ${error.message}` : ''}; for a private certificate authority give ${setting('targetCa', 'target-ca')})`;
  return apiError(
    'UPSTREAM_UNREACHABLE',
    `the target ${where} ${why}; the request did not reach the service`,
  );
}

export function closedUnderRequest(where: string, method: string): ApiError {
  return apiError(
    'UPSTREAM_UNREACHABLE',
    `the target ${where} closed its kept-alive connection as the request arrived, without answering; a ${method} is not sent again, since the service may have acted on it: retry it if that is safe`,
  );
}

export function timedOut(where: string, ms: number): ApiError {
  return apiError(
    'UPSTREAM_TIMEOUT',
    `the target ${where} did not answer within ${ms} ms; the service is slow or hangs (raise ${setting('timeout')} to wait longer)`,
  );
}
