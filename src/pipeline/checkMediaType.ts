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
    // Only a GET's body is lost to the client itself: fetch and browsers refuse to send one, and node:http sends
    // what is written to a GET without Content-Length or chunked framing, so the server cannot read it as a body.
    const getBody =
      request.method === 'GET'
        ? ' (fetch cannot send a GET body: use undici.request or node:http; node:http sends a GET body given to write() unframed, without Content-Length or Transfer-Encoding: chunked, so it is not read as the body: set the Content-Length header, Buffer.byteLength(body), or pass the body to end(body), which sets it)'
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
