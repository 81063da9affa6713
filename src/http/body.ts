import type { IncomingMessage } from 'node:http';
import { type ApiError, apiError } from '../errors.js';
import { type RequestHead, readHead } from './head.js';

export type BodyResult = { ok: true; bytes: Buffer } | { ok: false; error: ApiError | undefined };

/**
 * Reads the whole body up to `limit` bytes and calls `done` once. A declared Content-Length over the limit fails
 * before any read; `error` is undefined when the client went away mid-body (there is nobody to answer).
 *
 * Hand-written rather than `raw-body`: this is on every request's path, and raw-body's general stream handling
 * (five listeners added and removed, a decoder check, a deferred callback) cost a fifth of the mock's CPU time per
 * request. Node's parser already frames the body by Content-Length or chunked encoding; this only gathers it. The
 * listeners stay until the request is collected, and `done` is called once, whatever comes after.
 */
export function collectBody(
  req: IncomingMessage,
  head: RequestHead,
  limit: number,
  done: (result: BodyResult) => void,
): void {
  const declared = head.contentLength;
  const expected = declared === undefined ? -1 : Number(declared);
  if (expected > limit) {
    done({ ok: false, error: tooLarge(limit) });
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const settle = (result: BodyResult): void => {
    if (settled) return;
    settled = true;
    done(result);
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) {
      req.removeListener('data', onData); // the rest is read and dropped; the answer closes the connection
      settle({ ok: false, error: tooLarge(limit) });
      return;
    }
    chunks.push(chunk);
  };
  req.on('data', onData);
  req.on('end', () => {
    if (expected !== -1 && received !== expected) {
      const message =
        'the body is shorter or longer than its Content-Length; let the HTTP client set Content-Length';
      settle({
        ok: false,
        error: apiError('HTTP_MALFORMED', message, [
          { code: 'HTTP_MALFORMED', path: '/headers/content-length', message },
        ]),
      });
      return;
    }
    settle({
      ok: true,
      bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received),
    });
  });
  // Node destroys the request with an error when the client goes away before the body is complete.
  req.on('error', () => settle({ ok: false, error: undefined }));
}

/** `collectBody` as a promise, for callers off the hot path (the admin API). */
export const readBody = (req: IncomingMessage, limit: number): Promise<BodyResult> =>
  new Promise((resolve) => collectBody(req, readHead(req), limit, resolve));

function tooLarge(limit: number): ApiError {
  const message = `the body is larger than the limit of ${limit} bytes; send a smaller body (the mock's limit is set with --body-limit)`;
  return apiError('PAYLOAD_TOO_LARGE', message, [{ code: 'PAYLOAD_TOO_LARGE', path: '/body', message }], {
    headers: { connection: 'close' },
  });
}
