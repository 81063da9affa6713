import type { RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type ApiError, apiError } from '../errors.js';
import { rawErrorResponse } from './respond.js';

/** The parser's errors for bytes that do not start a request where one should start. */
const notARequest = new Set(['HPE_INVALID_METHOD', 'HPE_INVALID_EOF_STATE']);

/** The last response each connection was given (a later pipelined one replaces an earlier one). */
const responses = new WeakMap<Socket, ServerResponse>();

/**
 * The server's request listener, noting each connection's response for `answerClientError` first: in the one
 * listener rather than a second one, which would make Node copy the listener list on every request.
 */
export const answeringClientErrors =
  (listener: RequestListener): RequestListener =>
  (req, res) => {
    responses.set(req.socket, res);
    listener(req, res);
  };

/**
 * Errors Node's HTTP parser reports before a request exists, answered with the same envelope.
 *
 * Bytes after a request on the same connection that are not a request are most often that request's own body
 * framed wrong: a Content-Length counted in characters for a body with non-ASCII characters, or a GET body that
 * node:http sent without Content-Length. The answer says so, and waits for the answer to the request before it
 * (the one the client is waiting for) to go out first.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const code = error.code ?? '';
  // The answer in flight on this connection, if any. When its request arrived whole, the error is about bytes
  // after it, and its answer is still to come; otherwise the error is about that request itself (a broken chunk, a
  // body too slow), which will not be answered.
  const last = responses.get(socket);
  const current = last?.writableFinished === false ? last : undefined;
  const inFlight = current?.req?.complete === true ? current : undefined;
  const afterRequest =
    inFlight !== undefined || (current === undefined && socket.bytesRead > rawPacketLength(error));
  const reply = replyTo(code, error, afterRequest && notARequest.has(code));
  const close = (): void => {
    if (socket.writable) socket.end(rawErrorResponse(reply));
    else socket.destroy();
  };
  if (inFlight === undefined || inFlight.writableFinished) close();
  else {
    // The answer to the request before must reach the client before this one and the close.
    inFlight.once('finish', close);
    inFlight.once('close', () => {
      if (!inFlight.writableFinished) socket.destroy();
    });
  }
}

function replyTo(code: string, error: Error, leftover: boolean): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW')
    return apiError(
      'HEADERS_TOO_LARGE',
      'the request headers are larger than 16 KiB; send fewer or smaller headers',
    );
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT')
    return apiError(
      'REQUEST_TIMEOUT',
      'the request was not received in time; send the headers and body without pausing',
    );
  if (leftover)
    return apiError(
      'HTTP_MALFORMED',
      `bytes after a request on this connection are not a request (${code}); most likely that request's Content-Length did not match its body: smaller than the body (counted in characters for a body with non-ASCII characters: count bytes, Buffer.byteLength(body)), larger than it (the next request's start was read as its body), or missing (node:http sends a GET body written with write() without Content-Length); let the HTTP client set Content-Length`,
    );
  const hint = Object.hasOwn(requestLineHints, code)
    ? requestLineHints[code]
    : 'check how the client frames it (e.g. both Content-Length and Transfer-Encoding, or two Content-Lengths)';
  return apiError('HTTP_MALFORMED', `the request is not valid HTTP/1.1 (${code || error.message}); ${hint}`);
}

/** What the parser's errors about the request line and header names most likely mean, and the fix. */
const requestLineHints: Readonly<Record<string, string>> = {
  HPE_INVALID_METHOD:
    'it does not start with an HTTP method, which is case-sensitive and in capitals (GET, PUT, POST); a TLS handshake starts so too, when https:// reaches this plain-HTTP port: use http://',
  HPE_INVALID_URL:
    'the request target is not a path: send /api/user (spaces and control characters percent-encoded)',
  HPE_INVALID_VERSION:
    'the request line must end with the version HTTP/1.1, and each line with CRLF (\\r\\n)',
  HPE_INVALID_CONSTANT:
    'the request line must be METHOD, one space, the path (spaces percent-encoded), one space, then HTTP/1.1, and each line end with CRLF (\\r\\n)',
  HPE_INVALID_HEADER_TOKEN:
    'a header holds a character HTTP does not allow: in its name a space or a colon, in its value a control character; a line that starts with a space (a folded header) is refused too: send each header as Name: value on one line',
  HPE_UNEXPECTED_SPACE:
    'a header line starts with a space (a folded header): send each header as Name: value on one line',
  HPE_PAUSED_H2_UPGRADE:
    'the client sent the HTTP/2 preface: this server speaks HTTP/1.1 only; send HTTP/1.1 (no prior-knowledge HTTP/2)',
};

/** The bytes of the chunk the parser failed in (Node attaches it to the error). */
const rawPacketLength = (error: Error): number => {
  const packet = (error as Error & { rawPacket?: Buffer }).rawPacket;
  return packet === undefined ? Number.POSITIVE_INFINITY : packet.length;
};
