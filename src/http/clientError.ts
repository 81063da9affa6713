import type { Socket } from 'node:net';
import { apiError } from '../errors.js';
import { rawErrorResponse } from './respond.js';

/** Errors Node's HTTP parser reports before a request exists, answered with the same envelope. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const code = error.code ?? '';
  const reply =
    code === 'HPE_HEADER_OVERFLOW'
      ? apiError(
          'HEADERS_TOO_LARGE',
          'the request headers are larger than 16 KiB; send fewer or smaller headers',
        )
      : code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT'
        ? apiError(
            'REQUEST_TIMEOUT',
            'the request was not received in time; send the headers and body without pausing',
          )
        : apiError(
            'HTTP_MALFORMED',
            `the request is not valid HTTP/1.1 (${code || error.message}); check how the client frames it (e.g. both Content-Length and Transfer-Encoding, or two Content-Lengths)`,
          );
  socket.end(rawErrorResponse(reply));
}
