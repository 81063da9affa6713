import { type ApiError, errorFromDiagnostics } from '../errors.js';
import type { Diagnostic } from '../spec/types.js';
import { checkContentEncoding, checkContentType } from '../validate/headers.js';
import type { PipelineRequest } from './pipelineRequest.js';

/**
 * Step 4, media type: a body must be sent, uncompressed, as `application/json` in UTF-8. Decided from the headers,
 * so a body that cannot be read as JSON is refused before it is read.
 */
export function checkMediaType(request: PipelineRequest): ApiError | undefined {
  if (!request.bodySent) {
    // Only a GET's body is lost to the client itself: fetch and browsers refuse to send one, and node:http sends a
    // GET body (written or given to end()) without Content-Length or chunked framing unless the caller sets one.
    const getBody =
      request.method === 'GET'
        ? ' (fetch cannot send a GET body: use undici.request, which frames it, or node:http with the Content-Length header set yourself, Buffer.byteLength(body): node:http sends a GET body unframed, without Content-Length or Transfer-Encoding, even through end(body), so it is not read as the body)'
        : '';
    const message = `${request.method} ${request.path} needs a JSON body and arrived without one; send it with "Content-Type: application/json" and a Content-Length header${getBody}`;
    return errorFromDiagnostics('BODY_MISSING', [{ code: 'BODY_MISSING', path: '/body', message }]);
  }
  const encoding = checkContentEncoding(request.contentEncoding);
  const type = checkContentType(request.contentType);
  if (encoding === undefined && type === undefined) return undefined;
  const found: Diagnostic[] = [];
  if (type !== undefined) found.push(type);
  if (encoding !== undefined) found.push(encoding);
  // Two Content-Type headers are a malformed request (400), not a media type refused (415).
  return errorFromDiagnostics(
    type?.code === 'HTTP_MALFORMED' ? 'HTTP_MALFORMED' : 'UNSUPPORTED_MEDIA_TYPE',
    found,
  );
}
