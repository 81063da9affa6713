import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { type ApiError, apiError } from '../errors.js';

/** Reads the whole body up to `limit` bytes. A declared Content-Length over the limit fails before any read. */
export async function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ ok: true; bytes: Buffer } | { ok: false; error: ApiError | undefined }> {
  const declared = req.headers['content-length'];
  try {
    const bytes = await getRawBody(req, { limit, ...(declared === undefined ? {} : { length: declared }) });
    return { ok: true, bytes };
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') {
      const message = `the body is larger than the limit of ${limit} bytes; send a smaller body (the mock's limit is set with --body-limit)`;
      return {
        ok: false,
        error: apiError(
          'PAYLOAD_TOO_LARGE',
          message,
          [{ code: 'PAYLOAD_TOO_LARGE', path: '/body', message }],
          { headers: { connection: 'close' } },
        ),
      };
    }
    if (type === 'request.size.invalid') {
      const message =
        'the body is shorter or longer than its Content-Length; let the HTTP client set Content-Length';
      return {
        ok: false,
        error: apiError('HTTP_MALFORMED', message, [
          { code: 'HTTP_MALFORMED', path: '/headers/content-length', message },
        ]),
      };
    }
    return { ok: false, error: undefined };
  }
}

/** Whether the request announces a body at all (Content-Length above zero, or chunked). */
export const announcesBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
