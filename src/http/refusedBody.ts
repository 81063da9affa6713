import type { IncomingMessage } from 'node:http';
import type { ApiError } from '../errors.js';
import { parseBody } from '../pipeline/pipeline.js';
import type { PipelineRequest } from '../pipeline/pipelineRequest.js';
import { checkContentEncoding } from '../validate/headers.js';
import { type BodyResult, collectBody } from './collectBody.js';

/**
 * Reads the body of a request refused from its headers alone (a missing or unknown key, a wrong media type, a
 * wrong path...) before the refusal is answered, so that the journal shows what the client sent with it. Calls
 * `then` once, with why the body was not kept if it was not: at once when the request announced none, or one
 * over the body limit (refused unread); else once the body has arrived.
 */
export function readRefusedBody(
  req: IncomingMessage,
  request: PipelineRequest,
  limit: number,
  refusal: ApiError,
  then: (notKept: string | undefined) => void,
): void {
  if (!request.bodySent) then(undefined);
  else if (refusal.code === 'PAYLOAD_TOO_LARGE' || (request.contentLength ?? 0) > limit)
    then(
      `not read: its Content-Length (${request.contentLength} bytes) is over the body limit of ${limit} bytes`,
    );
  else
    collectBody(req, request.contentLength, limit, { bodyArrived: (read) => then(keepBody(request, read)) });
}

/**
 * Keeps a refused request's body in `request` as the parse step would (`text` and `body`; the start of the text
 * when it is not JSON), without judging it; returns why it was not kept, if it was not.
 */
function keepBody(request: PipelineRequest, read: BodyResult): string | undefined {
  if (!read.ok) return bodyNotKept(read);
  if (checkContentEncoding(request.contentEncoding) !== undefined)
    return `not kept: it came compressed (Content-Encoding: ${request.contentEncoding}, ${read.value.length} bytes), and the journal keeps a body as text`;
  const { warnings } = request;
  parseBody(request, read.value);
  request.warnings = warnings; // a refused request is judged by its refusal alone
  return undefined;
}

/** Why a body that was read did not arrive whole: too long, cut short, or the client went away first. */
export function bodyNotKept(read: BodyResult): string | undefined {
  if (read.ok) return undefined;
  return 'gone' in read
    ? 'not kept: the client went away before the whole body arrived'
    : `not kept: ${read.error.message}`;
}
