import { type ApiError, errorFromDiagnostics } from '../errors.js';
import type { Diagnostic } from '../spec/types.js';
import { checkContentEncoding, checkContentType } from '../validate/headers.js';
import { smallestBody } from '../validate/mistakes.js';
import type { PipelineRequest } from './pipelineRequest.js';

/**
 * Step 4, media type: a body must be sent, uncompressed, as `application/json` in UTF-8. Decided from the headers,
 * so a body that cannot be read as JSON is refused before it is read.
 */
export function checkMediaType(request: PipelineRequest): ApiError | undefined {
  if (!request.bodySent) {
    const message = bodyMissing(request);
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

/**
 * What to do about a missing body, in the words of the client that sent the request: curl (its User-Agent) gets
 * the command with `-d`; any other client the general form first, then, for a GET, the advice for Node's clients,
 * whose own choices lose a GET's body (fetch and browsers refuse to send one; node:http sends it unframed, without
 * Content-Length or chunked framing, unless the caller sets one).
 */
function bodyMissing(request: PipelineRequest): string {
  const { method, path, operation } = request;
  const example = operation === undefined ? undefined : smallestBody(operation);
  const missing = `${method} ${path} needs a JSON body and arrived without one`;
  if (request.userAgent?.startsWith('curl/') === true)
    return `${missing}; give curl the body with -d and its type: curl -X ${method} …${path} -H 'Authorization: Token <API_KEY>' -H 'Content-Type: application/json' -d '${example ?? '{…}'}'`;
  const general = `${missing}; send it with "Content-Type: application/json" and a Content-Length header${example === undefined ? '' : `, e.g. ${example}`}`;
  if (method !== 'GET') return general;
  return `${general}. From Node: fetch cannot send a GET body; use undici.request, which frames it, or node:http with the Content-Length header set yourself (Buffer.byteLength(body)): node:http sends a GET body unframed, even through end(body), so it is not read as the body`;
}
