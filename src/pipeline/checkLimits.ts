import { type ApiError, apiError } from '../errors.js';
import type { Surface } from './pipeline.js';
import type { PipelineRequest } from './pipelineRequest.js';

/**
 * Step 3, limits: the rate limit of the caller's key (when the mock has one; needs `owner`), and a declared
 * Content-Length over the body limit, refused before any byte of the body is read.
 */
export function checkLimits(request: PipelineRequest, surface: Surface): ApiError | undefined {
  const { rateLimiter, bodyLimit } = surface;
  const owner = request.owner;
  if (rateLimiter !== undefined && owner !== undefined) {
    const wait = rateLimiter.take(`${owner.tenant}/${owner.environment}`);
    if (wait !== undefined) {
      const message = `more than ${rateLimiter.perMinute} requests in a minute from this API key; wait ${wait} s (Retry-After) and back off`;
      return apiError('RATE_LIMITED', message, [], { headers: { 'retry-after': String(wait) } });
    }
  }
  if ((request.contentLength ?? 0) > bodyLimit) return payloadTooLarge(bodyLimit);
  return undefined;
}

/** A body over the limit: answered, then the connection is closed (the rest of the body is not read). */
export function payloadTooLarge(limit: number): ApiError {
  const message = `the body is larger than the limit of ${limit} bytes; send a smaller body (the mock's limit is set with --body-limit)`;
  return apiError('PAYLOAD_TOO_LARGE', message, [{ code: 'PAYLOAD_TOO_LARGE', path: '/body', message }], {
    headers: { connection: 'close' },
  });
}
